// Device emulation: the viewport, pixel ratio, touch, mobile flag and user agent a capture
// gets from the scrape options `device`, `mobile`, `viewport` and `darkMode` (presets and
// precedence: docs/api.md "Page options"). The user agents name the running Chromium's
// major version, so they never say "HeadlessChrome" nor lie about the engine. Screenshots
// are taken in CSS pixels, so their size is the viewport's whatever the pixel ratio.
import type { BrowserContextOptions } from 'playwright-core';
import { SCRAPE_DEFAULTS, type ResolvedScrapeOptions } from '../../../../shared/src/domain/scrape-options.js';

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

/**
 * Pure: the emulation a capture runs with. `device` picks the preset and wins over `mobile`
 * (without it, mobile true/false means the mobile/desktop preset); `viewport` replaces the
 * preset's width or height one at a time, a dimension equal to its default counting as not
 * set (options arrive with defaults applied); `darkMode` is independent.
 */
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
