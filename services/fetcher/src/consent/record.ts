// What the consent option did, as the page's record says it (metadata.consent; docs/api.md
// "Page outcome", *Consent walls*): a pure function of what answerConsent saw, so every
// case (answered, refused by the dialog, stored before, none found) is decided in one place.
import { MAX_PURPOSES, TCF_STATUS_MAX, type ConsentChoice, type ConsentRecord } from '../../../../shared/src/domain/page-outcome/consent.js';
import { choicePending, type TcfState } from './tcf.js';

/** One look at the dialogs (consent.ts): what was found and what was clicked. */
export interface DialogStep {
  platform: string;
  /**
   * `answered`: the choice's own button; `settings-answered`: the settings layer's reject or
   * save; `opened-settings`: the settings layer was opened (its buttons come next);
   * `no-choice`: the dialog is shown with no button for the choice.
   */
  did: 'answered' | 'settings-answered' | 'opened-settings' | 'no-choice';
  frameUrl?: string;
}

export interface ConsentSeen {
  choice: ConsentChoice;
  /** The TCF state as first read, when the page has `__tcfapi`. */
  tcf?: TcfState;
  /** The CMP said it did `postRejectAll`. */
  tcfRejected: boolean;
  /** The last step on the dialogs (undefined: no known dialog was shown). */
  step?: DialogStep;
  /** A dialog was still shown once the settle wait after the answer ran out. */
  dialogStayed: boolean;
  /** The TCF state read again after the answer. */
  tcfAfter?: TcfState;
  /** The page went away or threw while we looked. */
  failed?: string;
}

export function consentRecord(seen: ConsentSeen): ConsentRecord {
  const { choice, step } = seen;
  const found = seen.tcfAfter ?? seen.tcf;
  const tcf = found ? boundedTcf(found) : undefined;
  const base: ConsentRecord = { requested: choice, result: 'none-found', ...(tcf ? { tcf } : {}) };
  const where = step?.frameUrl ? { frameUrl: step.frameUrl } : {};
  if (seen.failed) return { ...base, result: 'not-possible', ...(step ? { platform: step.platform } : {}), reason: seen.failed.slice(0, 200) };
  const clicked = step && (step.did === 'answered' || step.did === 'settings-answered');
  if (seen.tcfRejected || clicked) {
    const platform = clicked ? step.platform : 'tcf';
    const via = seen.tcfRejected ? 'tcf' : step!.did === 'settings-answered' ? 'settings' : 'button';
    if (seen.dialogStayed) return { ...base, result: 'not-possible', platform, via, ...where, reason: 'the dialog was still shown after the answer' };
    return { ...base, result: choice === 'reject' ? 'rejected' : 'accepted', platform, via, ...where };
  }
  if (step) {
    const reason = step.did === 'opened-settings'
      ? 'its settings layer showed no reject or save button'
      : `the dialog has no ${choice} button${choice === 'reject' ? ' on its first layer or its settings layer' : ''}`;
    return { ...base, result: 'not-possible', platform: step.platform, ...where, reason };
  }
  if (seen.tcf && choicePending(seen.tcf)) {
    return { ...base, result: 'not-possible', platform: 'tcf', reason: 'the TCF CMP has a choice pending, but no known dialog button was shown' };
  }
  if (seen.tcf && (seen.tcf.eventStatus === 'tcloaded' || seen.tcf.eventStatus === 'useractioncomplete')) {
    return { ...base, result: 'already-answered', platform: 'tcf' };
  }
  return base;
}

/**
 * The TCF state as the event may hold it: the values come from the page's scripts, so a
 * CMP (or a page posing as one) that answers with odd numbers or long strings cannot make
 * page_fetched invalid. Purpose ids other than small positive integers are dropped.
 */
function boundedTcf(state: TcfState): NonNullable<ConsentRecord['tcf']> {
  const text = (value: unknown) => (typeof value === 'string' ? value.slice(0, TCF_STATUS_MAX) : undefined);
  const out: NonNullable<ConsentRecord['tcf']> = {
    purposeConsents: [...new Set(state.purposeConsents)].filter((id) => Number.isInteger(id) && id >= 1 && id <= 1000).slice(0, MAX_PURPOSES),
    vendorConsents: Number.isInteger(state.vendorConsents) && state.vendorConsents >= 0 ? state.vendorConsents : 0,
  };
  if (Number.isInteger(state.cmpId) && state.cmpId! >= 0) out.cmpId = state.cmpId!;
  for (const key of ['cmpStatus', 'displayStatus', 'eventStatus'] as const) {
    const value = text(state[key]);
    if (value !== undefined) out[key] = value;
  }
  if (typeof state.gdprApplies === 'boolean') out.gdprApplies = state.gdprApplies;
  return out;
}
