// The IAB TCF v2.2 CMP API (`window.__tcfapi(command, version, callback, parameter)`), as
// the `consent` option uses it: `ping` and `addEventListener` to read whether a CMP is on the
// page, whether it shows its dialog and what the user's choice is; and, to reject, the
// `postRejectAll` command that some CMPs (Sourcepoint) add to the four the standard requires.
// The standard has no command to give or refuse consent, so without one the dialog's
// button is clicked. Every call is bounded: a stub whose CMP never loads only queues calls.
import type { Frame } from 'playwright-core';

/** What the CMP said, in the TCF's own words (see the CMP API v2 spec: PingReturn, TCData). */
export interface TcfState {
  cmpId?: number;
  /** ping: `stub`, `loading`, `loaded` or `error`. */
  cmpStatus?: string;
  /** ping: `visible`, `hidden` or `disabled` (the CMP's dialog). */
  displayStatus?: string;
  gdprApplies?: boolean;
  /** addEventListener: `tcloaded` (a stored choice, no dialog), `cmpuishown` or `useractioncomplete`. */
  eventStatus?: string;
  /** Purpose ids with consent (purpose.consents), and how many vendors have it. */
  purposeConsents: number[];
  vendorConsents: number;
}

/**
 * The CMP's state, read through ping and one addEventListener call (removed at once). Waits
 * up to `waitMs` for a stub's CMP to answer; undefined when the page has no `__tcfapi`.
 */
export async function readTcf(frame: Frame, waitMs: number): Promise<TcfState | undefined> {
  return (await frame.evaluate(tcfState, { waitMs, wantAction: false }).catch(() => null)) ?? undefined;
}

/**
 * The state once the user's choice is in (`useractioncomplete`, or `tcloaded` from a CMP
 * that stored it without telling): the listener stays up to `waitMs` for that event.
 */
export async function readTcfAfterAction(frame: Frame, waitMs: number): Promise<TcfState | undefined> {
  return (await frame.evaluate(tcfState, { waitMs, wantAction: true }).catch(() => null)) ?? undefined;
}

/** Asks the CMP to reject every purpose and vendor (`postRejectAll`); true when it says it did. */
export async function tcfRejectAll(frame: Frame, waitMs: number): Promise<boolean> {
  return frame.evaluate((waitMs) => new Promise<boolean>((resolve) => {
    const api = (window as unknown as { __tcfapi?: (...args: unknown[]) => void }).__tcfapi;
    if (typeof api !== 'function') return resolve(false);
    const timer = setTimeout(() => resolve(false), waitMs);
    try {
      api('postRejectAll', 2, (_data: unknown, success: unknown) => {
        clearTimeout(timer);
        resolve(success === true);
      });
    } catch {
      clearTimeout(timer);
      resolve(false);
    }
  }), waitMs).catch(() => false);
}

/** A CMP that has loaded and has no stored choice yet: its dialog is up, or coming. */
export function choicePending(state: TcfState): boolean {
  return state.cmpStatus === 'loaded' && state.gdprApplies !== false && state.eventStatus !== 'tcloaded' && state.eventStatus !== 'useractioncomplete';
}

// Runs in the page (serialised by Playwright: it must not use anything from this module).
function tcfState({ waitMs, wantAction }: { waitMs: number; wantAction: boolean }): Promise<TcfState | null> {
  type Tc = { cmpId?: number; gdprApplies?: boolean; eventStatus?: string; listenerId?: number; purpose?: { consents?: Record<string, boolean> }; vendor?: { consents?: Record<string, boolean> } };
  type Ping = { cmpId?: number; cmpStatus?: string; displayStatus?: string; gdprApplies?: boolean };
  const win = window as unknown as { __tcfapi?: (...args: unknown[]) => unknown };
  if (typeof win.__tcfapi !== 'function') return Promise.resolve(null);
  // Looked up at each call: the CMP's script replaces the stub's function when it loads.
  const api = (...args: unknown[]) => win.__tcfapi!(...args);
  return new Promise((resolve) => {
    let ping: Ping | undefined;
    let last: Tc | undefined;
    let listenerId: number | undefined;
    let done = false;
    const ids = (m: Record<string, boolean> | undefined) => Object.entries(m ?? {}).filter(([, v]) => v === true).map(([k]) => Number(k));
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (listenerId !== undefined) try { api('removeEventListener', 2, () => undefined, listenerId); } catch { /* the CMP went away */ }
      // ping again: the CMP may have loaded, or hidden its dialog, since the first one.
      try { api('ping', 2, (p: Ping) => { ping = p; }); } catch { /* a stub that throws */ }
      const state: TcfState = { purposeConsents: ids(last?.purpose?.consents), vendorConsents: ids(last?.vendor?.consents).length };
      const cmpId = last?.cmpId ?? ping?.cmpId;
      const gdprApplies = last?.gdprApplies ?? ping?.gdprApplies;
      if (typeof cmpId === 'number') state.cmpId = cmpId;
      if (typeof gdprApplies === 'boolean') state.gdprApplies = gdprApplies;
      if (ping?.cmpStatus) state.cmpStatus = ping.cmpStatus;
      if (ping?.displayStatus) state.displayStatus = ping.displayStatus;
      if (last?.eventStatus) state.eventStatus = last.eventStatus;
      resolve(state);
    };
    const timer = setTimeout(finish, waitMs);
    try {
      api('ping', 2, (p: Ping) => { ping = p; });
      api('addEventListener', 2, (tc: Tc | null, success: boolean) => {
        if (!success || !tc) return;
        last = tc;
        listenerId ??= tc.listenerId;
        // The first call comes at registration with the current data; when waiting for the
        // user's choice, later calls bring it.
        if (!wantAction || tc.eventStatus === 'useractioncomplete' || tc.eventStatus === 'tcloaded') finish();
      });
    } catch {
      finish();
    }
  });
}
