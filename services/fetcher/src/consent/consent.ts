// The `consent` scrape option (docs/api.md "Page outcome"): before capture, answer the
// page's consent dialog with the chosen answer (reject unless the user means to consent),
// so the page behind a cookie wall is what gets captured.
//
// In order: read the IAB TCF API (`__tcfapi`) when the page has one; to reject, ask a CMP
// whose choice is pending to `postRejectAll` where it offers that command; then click the
// platform's own button, in the page, in a shadow root, or inside an iframe (cross-origin
// ones too: Sourcepoint and TrustArc draw their dialogs there); then wait until the dialog
// is gone and the CMP reports the choice. Only the platforms' documented buttons are
// clicked, and frames of bot checks are never looked into: the option never answers a bot
// check.
import type { Frame, Page } from 'playwright-core';
import { BOT_CHECK_FRAMES, FRAME_PLATFORMS, PAGE_PLATFORMS, type ConsentButtons, type ConsentChoice } from './platforms.js';
import { choicePending, readTcf, readTcfAfterAction, tcfRejectAll, type TcfState } from './tcf.js';

export type { ConsentChoice } from './platforms.js';

export interface ConsentAnswer {
  /** The platform whose dialog was answered (`tcf` when only the TCF API was), if any. */
  platform?: string;
  /** How: the CMP's TCF `postRejectAll`, or its button. */
  via?: 'tcf' | 'button';
  /** The URL of the iframe the button was in, when it was in one. */
  frameUrl?: string;
  /** The TCF state once answered (or as found, when nothing was answered). */
  tcf?: TcfState;
}

/** How long a stub's CMP is given to answer a TCF call. */
const TCF_CALL_MS = 1000;
/** How long the dialog is given to go away (and the CMP to report the choice) after the answer. */
const SETTLE_MAX_MS = 2000;
const SETTLE_POLL_MS = 100;
/** How long a CMP that reports its dialog up (TCF) is given to draw it. */
const DIALOG_DRAW_MS = 2000;
/** One frame's look for buttons; a frame busy with its own scripts is skipped. */
const FRAME_LOOK_MS = 1000;

/**
 * Answers the first consent dialog found; never throws: a page without a known dialog, or
 * one that changed while we looked, is captured as it is.
 */
export async function answerConsent(page: Page, choice: ConsentChoice): Promise<ConsentAnswer> {
  try {
    const main = page.mainFrame();
    const found = await readTcf(main, TCF_CALL_MS);
    let answer: ConsentAnswer = found ? { tcf: found } : {};
    if (choice === 'reject' && found && choicePending(found) && (await tcfRejectAll(main, TCF_CALL_MS))) {
      answer = { platform: 'tcf', via: 'tcf' };
      await dialogGone(page, choice);
    }
    // The CMP may record a TCF answer and still show its dialog: then its button closes it.
    // A CMP that says its dialog is up (TCF) is given a moment to draw it (an iframe loading).
    const clicked = (await clickButton(page, choice)) ?? (found && !answer.via && choicePending(found) ? await clickWhenDrawn(page, choice) : undefined);
    if (clicked) {
      answer = { ...answer, ...clicked, via: answer.via ?? 'button' };
      await dialogGone(page, choice);
    }
    if (answer.via && found) {
      const after = await readTcfAfterAction(main, TCF_CALL_MS);
      if (after) answer.tcf = after;
    }
    return answer;
  } catch {
    return {};
  }
}

/** Clicks the chosen button of the first dialog found: the top document first, then each iframe. */
async function clickButton(page: Page, choice: ConsentChoice): Promise<Omit<ConsentAnswer, 'via' | 'tcf'> | undefined> {
  const main = page.mainFrame();
  const top = await inFrame(main, PAGE_PLATFORMS, choice, true);
  if (top) return { platform: top };
  for (const frame of page.frames()) {
    if (frame === main || frame.isDetached()) continue;
    const url = frame.url();
    if (BOT_CHECK_FRAMES.test(url)) continue;
    const platforms = [...FRAME_PLATFORMS.filter((p) => p.frameUrl.test(url)), ...PAGE_PLATFORMS];
    const platform = await inFrame(frame, platforms, choice, true);
    if (platform) return { platform, frameUrl: url.slice(0, 200) };
  }
  return undefined;
}

async function clickWhenDrawn(page: Page, choice: ConsentChoice): Promise<Omit<ConsentAnswer, 'via' | 'tcf'> | undefined> {
  const until = Date.now() + DIALOG_DRAW_MS;
  while (Date.now() < until) {
    await page.waitForTimeout(SETTLE_POLL_MS);
    const clicked = await clickButton(page, choice);
    if (clicked) return clicked;
  }
  return undefined;
}

/** Waits (bounded) until no known dialog button is shown in any frame. */
async function dialogGone(page: Page, choice: ConsentChoice): Promise<void> {
  const until = Date.now() + SETTLE_MAX_MS;
  while (Date.now() < until) {
    await page.waitForTimeout(SETTLE_POLL_MS);
    if (!(await anyShown(page, choice))) return;
  }
}

async function anyShown(page: Page, choice: ConsentChoice): Promise<boolean> {
  for (const frame of page.frames()) {
    if (frame.isDetached() || BOT_CHECK_FRAMES.test(frame.url())) continue;
    const platforms = frame === page.mainFrame() ? PAGE_PLATFORMS : [...FRAME_PLATFORMS.filter((p) => p.frameUrl.test(frame.url())), ...PAGE_PLATFORMS];
    if (await inFrame(frame, platforms, choice, false)) return true;
  }
  return false;
}

/** The first platform with a shown button for the choice in this frame (clicked when asked). */
async function inFrame(frame: Frame, platforms: readonly ConsentButtons[], choice: ConsentChoice, click: boolean): Promise<string | undefined> {
  const look = frame.evaluate(findButton, { platforms: platforms.map(({ platform, reject, accept, shadowHost }) => ({ platform, reject, accept, ...(shadowHost ? { shadowHost } : {}) })), choice, click });
  const timeout = new Promise<null>((resolve) => setTimeout(() => resolve(null), FRAME_LOOK_MS).unref());
  return (await Promise.race([look, timeout]).catch(() => null)) ?? undefined;
}

// Runs in the frame (serialised by Playwright: it must not use anything from this module).
function findButton({ platforms, choice, click }: { platforms: ConsentButtons[]; choice: ConsentChoice; click: boolean }): string | null {
  // Shown: laid out and not hidden (a dialog its SDK only hid after an earlier answer is not one).
  const shown = (el: HTMLElement) => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden';
  for (const p of platforms) {
    const root: ParentNode | null | undefined = p.shadowHost ? document.querySelector(p.shadowHost)?.shadowRoot : document;
    if (!root) continue;
    for (const selector of choice === 'reject' ? p.reject : p.accept) {
      const button = root.querySelector<HTMLElement>(selector);
      if (button && shown(button)) {
        if (click) button.click();
        return p.platform;
      }
    }
  }
  return null;
}
