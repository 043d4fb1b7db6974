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
// check. A dialog whose first layer has no reject button is rejected on its settings layer
// (platforms.ts `settings`). What was done is returned as the page's record (record.ts).
import type { Frame, Page } from 'playwright-core';
import type { ConsentRecord } from '../../../../shared/src/domain/page-outcome/consent.js';
import { BOT_CHECK_FRAMES, FRAME_PLATFORMS, PAGE_PLATFORMS, type ConsentButtons, type ConsentChoice } from './platforms.js';
import { consentRecord, type ConsentSeen, type DialogStep } from './record.js';
import { choicePending, readTcf, readTcfAfterAction, tcfRejectAll } from './tcf.js';

export type { ConsentChoice } from './platforms.js';

/** How long a stub's CMP is given to answer a TCF call. */
const TCF_CALL_MS = 1000;
/** How long the dialog is given to go away (and the CMP to report the choice) after the answer. */
const SETTLE_MAX_MS = 2000;
const SETTLE_POLL_MS = 100;
/** How long a CMP that reports its dialog up (TCF) is given to draw it; a settings layer, to show its buttons. */
const DIALOG_DRAW_MS = 2000;
/** One frame's look for buttons; a frame busy with its own scripts is skipped. */
const FRAME_LOOK_MS = 1000;

/**
 * Answers the first consent dialog found and says what was done; never throws: a page
 * without a known dialog, or one that changed while we looked, is captured as it is.
 */
export async function answerConsent(page: Page, choice: ConsentChoice): Promise<ConsentRecord> {
  const seen: ConsentSeen = { choice, tcfRejected: false, dialogStayed: false };
  try {
    const main = page.mainFrame();
    seen.tcf = await readTcf(main, TCF_CALL_MS);
    if (choice === 'reject' && seen.tcf && choicePending(seen.tcf) && (await tcfRejectAll(main, TCF_CALL_MS))) {
      seen.tcfRejected = true;
      await dialogGone(page, choice);
    }
    // The CMP may record a TCF answer and still show its dialog: then its button closes it.
    // A CMP that says its dialog is up (TCF) is given a moment to draw it (an iframe loading).
    const pending = seen.tcf && !seen.tcfRejected && choicePending(seen.tcf);
    let step = await look(page, choice, { click: true, open: true });
    // (Still nothing to act on when the wait ends: a last look names a dialog shown without the choice.)
    if (!step && pending) step = (await lookUntil(page, choice, { click: true, open: true })) ?? (await look(page, choice, { click: false, open: false }));
    // A settings layer just opened: its reject or save button, once drawn (never opened twice).
    if (step?.did === 'opened-settings') {
      const onLayer = await lookUntil(page, choice, { click: true, open: false }, (s) => s.did === 'answered' || s.did === 'settings-answered');
      if (onLayer) step = { ...onLayer, did: 'settings-answered' };
    }
    if (step) seen.step = step;
    if (step?.did === 'answered' || step?.did === 'settings-answered') seen.dialogStayed = !(await dialogGone(page, choice));
    if ((seen.tcfRejected || step?.did === 'answered' || step?.did === 'settings-answered') && seen.tcf) {
      seen.tcfAfter = await readTcfAfterAction(main, TCF_CALL_MS);
    }
  } catch (error) {
    seen.failed = `the page changed while its dialog was answered: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`;
  }
  return consentRecord(seen);
}

interface LookMode {
  click: boolean;
  /** May click a settings layer's "open" button. */
  open: boolean;
}

/**
 * One look at every frame: the first dialog the choice can act on (clicked when asked): the
 * top document first, then each iframe; else the first dialog shown without such a button.
 */
async function look(page: Page, choice: ConsentChoice, mode: LookMode): Promise<DialogStep | undefined> {
  const main = page.mainFrame();
  let stuck: DialogStep | undefined;
  for (const frame of [main, ...page.frames().filter((f) => f !== main)]) {
    if (frame.isDetached()) continue;
    const url = frame.url();
    if (frame !== main && BOT_CHECK_FRAMES.test(url)) continue;
    const platforms = frame === main ? PAGE_PLATFORMS : [...FRAME_PLATFORMS.filter((p) => p.frameUrl.test(url)), ...PAGE_PLATFORMS];
    const found = await inFrame(frame, platforms, choice, mode);
    if (!found) continue;
    const step: DialogStep = { ...found, ...(frame !== main ? { frameUrl: url.slice(0, 200) } : {}) };
    if (step.did !== 'no-choice') return step;
    stuck ??= step;
  }
  return stuck;
}

/** Looks again until a step the choice can act on (or `done`) comes, for at most DIALOG_DRAW_MS. */
async function lookUntil(page: Page, choice: ConsentChoice, mode: LookMode, done: (s: DialogStep) => boolean = (s) => s.did !== 'no-choice'): Promise<DialogStep | undefined> {
  const until = Date.now() + DIALOG_DRAW_MS;
  let last: DialogStep | undefined;
  while (Date.now() < until) {
    await page.waitForTimeout(SETTLE_POLL_MS);
    last = await look(page, choice, mode);
    if (last && done(last)) return last;
  }
  return undefined;
}

/** Waits (bounded) until no known dialog is shown in any frame; false when one still is. */
async function dialogGone(page: Page, choice: ConsentChoice): Promise<boolean> {
  const until = Date.now() + SETTLE_MAX_MS;
  while (Date.now() < until) {
    await page.waitForTimeout(SETTLE_POLL_MS);
    if (!(await look(page, choice, { click: false, open: false }))) return true;
  }
  return false;
}

/** The first platform whose dialog is shown in this frame, and what the choice did there. */
async function inFrame(frame: Frame, platforms: readonly ConsentButtons[], choice: ConsentChoice, mode: LookMode): Promise<Omit<DialogStep, 'frameUrl'> | undefined> {
  const look = frame.evaluate(dialogStep, { platforms: platforms.map(({ platform, reject, accept, settings, shadowHost }) => ({ platform, reject, accept, ...(settings ? { settings } : {}), ...(shadowHost ? { shadowHost } : {}) })), choice, ...mode });
  const timeout = new Promise<null>((resolve) => setTimeout(() => resolve(null), FRAME_LOOK_MS).unref());
  const found = await Promise.race([look, timeout]).catch(() => null);
  // What the frame answered is the page's to tamper with: only our own names are taken.
  if (!found || !platforms.some((p) => p.platform === found.platform) || !STEPS.has(found.did)) return undefined;
  return { platform: found.platform, did: found.did };
}

const STEPS = new Set<string>(['answered', 'settings-answered', 'opened-settings', 'no-choice'] satisfies DialogStep['did'][]);

// Runs in the frame (serialised by Playwright: it must not use anything from this module).
function dialogStep({ platforms, choice, click, open }: { platforms: ConsentButtons[]; choice: ConsentChoice } & LookMode): Omit<DialogStep, 'frameUrl'> | null {
  // Shown: laid out and not hidden (a dialog its SDK only hid after an earlier answer is not one).
  const shown = (el: HTMLElement) => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden';
  const first = (root: ParentNode, selectors: string[]) => {
    for (const selector of selectors) {
      const el = root.querySelector<HTMLElement>(selector);
      if (el && shown(el)) return el;
    }
    return null;
  };
  for (const p of platforms) {
    const root: ParentNode | null | undefined = p.shadowHost ? document.querySelector(p.shadowHost)?.shadowRoot : document;
    if (!root) continue;
    const own = first(root, choice === 'reject' ? p.reject : p.accept);
    if (own) {
      if (click) own.click();
      return { platform: p.platform, did: 'answered' };
    }
    const layer = choice === 'reject' ? p.settings : undefined;
    if (layer) {
      const refuse = first(root, layer.reject);
      const save = refuse ? null : first(root, layer.save);
      if (refuse || save) {
        if (click) {
          // Saving stores what is ticked: every optional purpose is switched off first.
          if (save) root.querySelectorAll<HTMLElement>(layer.optional).forEach((toggle) => toggle.click());
          (refuse ?? save)!.click();
        }
        return { platform: p.platform, did: 'settings-answered' };
      }
      const opener = first(root, layer.open);
      if (opener && open) {
        if (click) opener.click();
        return { platform: p.platform, did: 'opened-settings' };
      }
    }
    if (first(root, [...(choice === 'reject' ? p.accept : p.reject), ...(p.settings?.open ?? [])])) return { platform: p.platform, did: 'no-choice' };
  }
  return null;
}
