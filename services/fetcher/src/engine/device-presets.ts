// Device emulation: which viewport, pixel ratio, touch, mobile flag and user agent a capture
// gets from the scrape options `device`, `mobile`, `viewport` and `darkMode`.
//
// Presets (the user agents name the Chrome major version of the running Chromium, so the
// UA never says "HeadlessChrome" and never lies about the engine):
//
// | preset  | viewport (CSS px) | deviceScaleFactor | isMobile | hasTouch | user agent                                  |
// |---------|-------------------|-------------------|----------|----------|---------------------------------------------|
// | desktop | 1280 x 800        | 1                 | false    | false    | Chrome on Linux x86_64 (desktop)            |
// | tablet  | 800 x 1280        | 2                 | true     | true     | Chrome on Android, tablet form (no "Mobile")|
// | mobile  | 412 x 915         | 2.625             | true     | true     | Chrome on Android, phone form ("Mobile")    |
//
// Precedence, most specific first:
// 1. `device`, when given, picks the preset. It wins over `mobile` (device "desktop" with
//    mobile true is a desktop; device "mobile" with mobile false is a mobile).
// 2. Without `device`, `mobile: true` means the "mobile" preset and `mobile: false` the
//    "desktop" preset.
// 3. `viewport` overrides the preset's size one dimension at a time: a width (or height)
//    other than the default 1280 (or 800) replaces the preset's width (or height); the
//    other traits of the preset (pixel ratio, touch, user agent) stay. Options arrive with
//    defaults already applied, so a dimension equal to its default counts as "not set".
// 4. `darkMode` is independent: prefers-color-scheme is dark when true, light otherwise.
//
// Screenshots are taken in CSS pixels (scale "css"), so their size is the viewport (or
// page, or element) size whatever the pixel ratio.
import type { BrowserContextOptions } from 'playwright-core';
import { SCRAPE_DEFAULTS, type ResolvedScrapeOptions } from '../../../../shared/src/scrape-options.js';

export type DeviceName = 'desktop' | 'tablet' | 'mobile';

export interface DevicePreset {
  viewport: { width: number; height: number };
  deviceScaleFactor: number;
  isMobile: boolean;
  hasTouch: boolean;
  userAgent: (chromeMajor: string) => string;
}

export const DEVICE_PRESETS: Record<DeviceName, DevicePreset> = {
  desktop: {
    viewport: { ...SCRAPE_DEFAULTS.viewport },
    deviceScaleFactor: 1,
    isMobile: false,
    hasTouch: false,
    userAgent: (v) => `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${v}.0.0.0 Safari/537.36`,
  },
  tablet: {
    viewport: { width: 800, height: 1280 },
    deviceScaleFactor: 2,
    isMobile: true,
    hasTouch: true,
    userAgent: (v) => `Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${v}.0.0.0 Safari/537.36`,
  },
  mobile: {
    viewport: { width: 412, height: 915 },
    deviceScaleFactor: 2.625,
    isMobile: true,
    hasTouch: true,
    userAgent: (v) => `Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${v}.0.0.0 Mobile Safari/537.36`,
  },
};

export type Emulation = Required<Pick<BrowserContextOptions, 'viewport' | 'deviceScaleFactor' | 'isMobile' | 'hasTouch' | 'userAgent' | 'colorScheme'>> & {
  device: DeviceName;
};

export function presetName(options: Pick<ResolvedScrapeOptions, 'device' | 'mobile'>): DeviceName {
  return options.device ?? (options.mobile ? 'mobile' : 'desktop');
}

/** Pure: the emulation a capture runs with (see the precedence rules above). */
export function resolveEmulation(
  options: Pick<ResolvedScrapeOptions, 'device' | 'mobile' | 'viewport' | 'darkMode'>,
  browserVersion: string,
): Emulation {
  const device = presetName(options);
  const preset = DEVICE_PRESETS[device];
  const defaults = SCRAPE_DEFAULTS.viewport;
  const chromeMajor = /^(\d+)/.exec(browserVersion)?.[1] ?? '120';
  return {
    device,
    viewport: {
      width: options.viewport.width !== defaults.width ? options.viewport.width : preset.viewport.width,
      height: options.viewport.height !== defaults.height ? options.viewport.height : preset.viewport.height,
    },
    deviceScaleFactor: preset.deviceScaleFactor,
    isMobile: preset.isMobile,
    hasTouch: preset.hasTouch,
    userAgent: preset.userAgent(chromeMajor),
    colorScheme: options.darkMode ? 'dark' : 'light',
  };
}
