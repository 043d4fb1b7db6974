// Screenshots of console pages for docs/console/ (CONSOLE_SCREENSHOTS_DIR), at desktop
// (1280 px, the whole page) and phone (390 px, the first screen) widths. Without the
// variable nothing is taken.
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext } from 'playwright-core';

export const SHOTS = process.env.CONSOLE_SCREENSHOTS_DIR;

export async function shoot(browser: Browser, storage: Awaited<ReturnType<BrowserContext['storageState']>> | undefined, url: string, name: string, opts: { open?: string } = {}): Promise<void> {
  if (!SHOTS) return;
  fs.mkdirSync(SHOTS, { recursive: true });
  for (const [suffix, viewport] of [['desktop', { width: 1280, height: 860 }], ['phone', { width: 390, height: 844 }]] as const) {
    const ctx = await browser.newContext({ viewport, ...(storage ? { storageState: storage } : {}), deviceScaleFactor: 1 });
    const p = await ctx.newPage();
    await p.goto(url);
    // A section collapsed by default, opened for the picture (e.g. the event history).
    if (opts.open) await p.locator(opts.open).first().click();
    await p.screenshot({ path: path.join(SHOTS, `${name}-${suffix}.png`), fullPage: suffix === 'desktop' });
    await ctx.close();
  }
}
