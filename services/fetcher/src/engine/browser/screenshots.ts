// Screenshots of a rendered page: viewport or full page, png / jpeg / webp (Playwright
// 1.65 takes webp natively through CDP Page.captureScreenshot on Chromium), an element
// when `clip` names a CSS selector, and the elements of `excludeTags` hidden with
// visibility:hidden (layout kept, so the page does not reflow between DOM and image).
import type { Page } from 'playwright-core';
import { imageSize } from 'image-size';
import { SelectorNotFoundError } from '../../../../../shared/src/domain/errors.js';
import type { ResolvedScrapeOptions } from '../../../../../shared/src/domain/scrape-options.js';
import { captureError, isTimeout, selectorError } from './failures.js';

export type ScreenshotFormat = 'png' | 'jpeg' | 'webp';

export interface CapturedScreenshot {
  data: Buffer;
  width: number;
  height: number;
  format: ScreenshotFormat;
  role: 'final' | 'action';
}

export type ScreenshotSpec = NonNullable<ResolvedScrapeOptions['screenshot']>;

/** What an action screenshot uses when the request asked for no screenshot format. */
export const ACTION_SCREENSHOT_DEFAULTS: Pick<ScreenshotSpec, 'fullPage' | 'format' | 'quality'> = {
  fullPage: false,
  format: 'png',
  quality: 80,
};

/**
 * A stylesheet hiding the excluded selectors. One rule per selector, so a selector the CSS
 * parser rejects drops only its own rule; braces would let a selector escape its rule, so
 * such selectors are skipped here (they still apply to the HTML cleaning).
 */
export function hideStyle(excludeTags: string[]): string | undefined {
  const rules = excludeTags
    .filter((s) => !/[{}]/.test(s))
    .map((s) => `${s} { visibility: hidden !important; }`);
  return rules.length > 0 ? rules.join('\n') : undefined;
}

export interface ShotRequest {
  format: ScreenshotFormat;
  quality: number;
  fullPage: boolean;
  clip?: string;
  excludeTags: string[];
  role: 'final' | 'action';
  timeoutMs: number;
}

export async function takeScreenshot(page: Page, shot: ShotRequest): Promise<CapturedScreenshot> {
  const base = {
    type: shot.format,
    ...(shot.format === 'png' ? {} : { quality: shot.quality }),
    scale: 'css' as const,
    caret: 'hide' as const,
    timeout: shot.timeoutMs,
    style: hideStyle(shot.excludeTags),
  };
  let data: Buffer;
  if (shot.clip) {
    const what = 'screenshotOptions.clip';
    const element = page.locator(`css=${shot.clip}`).first();
    let found: number;
    try {
      found = await page.locator(`css=${shot.clip}`).count();
    } catch (err) {
      throw selectorError(err, what, shot.clip, 0);
    }
    if (found === 0) throw new SelectorNotFoundError(`${what}: selector '${shot.clip}' not found`);
    try {
      data = await element.screenshot(base);
    } catch (err) {
      if (isTimeout(err)) throw new SelectorNotFoundError(`${what}: selector '${shot.clip}' matched no visible element`, { cause: err });
      throw captureError(err, 'the element screenshot');
    }
  } else {
    try {
      data = await page.screenshot({ ...base, fullPage: shot.fullPage });
    } catch (err) {
      throw captureError(err, 'the screenshot');
    }
  }
  const size = imageSize(data);
  return { data, width: size.width, height: size.height, format: shot.format, role: shot.role };
}
