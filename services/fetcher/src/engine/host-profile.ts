// The `auto` engine's decider: which engine fetches a page, given what is known about its
// host (the host profile) and, once the cheap HTTP GET ("probe") is done, what it returned.
// Pure (decide/evolve): the router (engine-router.ts) does the fetching and stores the
// evolved profile (host-profile-store.ts). The host and per-marker-kind learning:
// docs/architecture.md "Fetch engines and host profiles".
import type { Engine } from '../../../../shared/src/domain/scrape-options.js';
import type { FleetTrust } from './fleet-prior.js';

export type HostMode = 'learning' | 'static' | 'browser';

export interface HostProfile {
  mode: HostMode;
  /** Consecutive agreeing verifications (reset by a disagreement). */
  agreeing: number;
  /** Of those, the ones whose results were identical (absent: 0, as in profiles written before it). */
  identical?: number;
  /**
   * Pages seen since the last verification, this one included (drives the drift check and
   * the recheck): counted before the page is decided, in the same compare-and-set write, so
   * of many pages decided at once exactly one claims the check.
   */
  sinceCheck: number;
  verifications: number;
  disagreements: number;
  /** The last verification, for operators (GET .../events shows it on the page too). */
  last?: { agreed: boolean; similarity: number; url: string; at: string };
  /** What verifications taught about each marker kind on this host (absent: none seen). */
  markers?: Record<string, MarkerProfile>;
}

/** The learning of one marker kind on one host (same modes and thresholds as the host's). */
export interface MarkerProfile {
  mode: HostMode;
  agreeing: number;
  identical?: number;
  verifications: number;
  disagreements: number;
}

export const NEW_HOST: HostProfile = { mode: 'learning', agreeing: 0, sinceCheck: 0, verifications: 0, disagreements: 0 };
const NEW_MARKER: MarkerProfile = { mode: 'learning', agreeing: 0, verifications: 0, disagreements: 0 };
/** Marker kinds kept per host: a site minting ids per page cannot grow its profile without bound (later kinds stay unverified). */
export const MAX_MARKER_KINDS = 32;

/**
 * A marker's kind: the marker without its measured detail ("little body text (12 chars)
 * beside scripts" -> "little body text beside scripts"); ids stay ("script fills empty #comments").
 */
export function markerKind(marker: string): string {
  return marker.replace(/\s*\(\d+ chars\)/, '');
}

export interface AutoPolicy {
  /** Agreeing verifications before a host is trusted over HTTP (K). */
  agreements: number;
  /** A static host still has one page in this many verified; a browser host rechecked as often. */
  recheckEvery: number;
}

export const AUTO_POLICY_DEFAULTS: AutoPolicy = { agreements: 3, recheckEvery: 25 };

/**
 * Agreeing verifications that make a host (or a marker kind) static when every one of them
 * was identical (the same markdown and links both ways) and it never disagreed: K - 1, at
 * least 1. An identical result is stronger evidence than one that merely passes
 * SAME_PAGE_THRESHOLD, and on a 20-page site the K-th render is 5% of its pages (a fresh
 * fleet's first framework sites rendered 3 of 20). A host with a near miss, or one that
 * ever disagreed, still needs K.
 */
export function identicalAgreements(policy: AutoPolicy): number {
  return Math.max(1, policy.agreements - 1);
}

/** Whether a run of agreeing verifications is enough to trust a host or a marker kind. */
function learnt(run: { agreeing: number; identical?: number; disagreements: number }, policy: AutoPolicy): boolean {
  if (run.agreeing >= policy.agreements) return true;
  return run.disagreements === 0 && (run.identical ?? 0) >= run.agreeing && run.agreeing >= identicalAgreements(policy);
}

/** What the HTTP GET gave: an HTML page (with any CSR markers found in it), or why not. */
export type ProbeOutcome =
  | { ok: true; csrMarkers: string[] }
  | { ok: false; why: 'not-html' | 'too-large' | 'failed'; detail: string };

export type EngineCommand =
  /** Before anything is fetched. `browserNeeds`: options only a browser can honour. */
  | { type: 'plan'; requested: Engine; browserNeeds: string[] }
  /**
   * After the probe (only asked when `plan` said probe; engine http is served its GET without asking).
   * `fleet`: whether the fleet vouches for the page's set of marker kinds (asked when `fleetMayVouch`).
   */
  | { type: 'probed'; requested: Exclude<Engine, 'http'>; probe: ProbeOutcome; fleet?: FleetTrust };

export type EngineDecision =
  /** Render in the browser only. */
  | { action: 'browser'; reason: string }
  /** Do the HTTP GET first, then decide again with `probed`. */
  | { action: 'probe'; reason: string }
  /** Serve the HTTP result. */
  | { action: 'http'; reason: string }
  /** Render too, compare both, serve the browser's result, record the verdict (`fleetCheck`: the check of a host served on the fleet's word). */
  | { action: 'verify'; reason: string; fleetCheck?: true };

export type HostEvent =
  /** A page of the host is about to be decided (auto only). */
  | { type: 'seen' }
  /**
   * `markers`: the CSR markers the verified page's HTTP HTML showed (none: a plain page).
   * `fleetCheck`: the page was the check of a host served on the fleet's word (agreeing, it makes the host static).
   * `identical`: both results were the same markdown and links (not just above the threshold).
   */
  | { type: 'verified'; agreed: boolean; similarity: number; url: string; at: string; markers?: string[]; fleetCheck?: boolean; identical?: boolean };

/**
 * Pages of a host served on the fleet's word before its first check: late enough that a
 * small site (5-20 pages) is not rendered to be learnt, early enough that a host the prior
 * is wrong about is caught within a few pages; after an agreeing check the host is static,
 * with the drift checks of one that learnt itself (driftCheckEvery).
 */
export const FLEET_FIRST_CHECK_PAGES = 10;

/** A page's marker kinds, without repeats. */
export function markerKinds(markers: readonly string[]): string[] {
  return [...new Set(markers.map(markerKind))];
}

/**
 * Whether the fleet's prior may stand for this host's own learning of a page with these
 * kinds: only on a host that never disagreed (its own evidence outranks the fleet's) and
 * that has something left to learn for it (the host itself, or a kind it has not verified).
 */
export function fleetMayVouch(profile: HostProfile, kinds: readonly string[]): boolean {
  if (profile.disagreements > 0) return false;
  return profile.mode === 'learning' || kinds.some((k) => (profile.markers?.[k] ?? NEW_MARKER).mode === 'learning');
}

/** `profile` is the host's profile with this page already `seen`. */
export function decide(profile: HostProfile, command: EngineCommand, policy: AutoPolicy = AUTO_POLICY_DEFAULTS): EngineDecision {
  if (command.type === 'plan') {
    if (command.requested === 'browser') return { action: 'browser', reason: 'engine browser' };
    if (command.requested === 'http') return { action: 'probe', reason: 'engine http' };
    if (command.browserNeeds.length > 0) return { action: 'browser', reason: `options need a browser: ${command.browserNeeds.join(', ')}` };
    if (profile.mode === 'browser' && !recheckDue(profile, policy)) {
      return { action: 'browser', reason: `host renders with JavaScript (${profile.disagreements} disagreeing page${profile.disagreements === 1 ? '' : 's'})` };
    }
    return { action: 'probe', reason: `host ${profile.mode}` };
  }
  const { probe } = command;
  if (!probe.ok) return { action: 'browser', reason: `HTTP fetch ${probe.why}: ${probe.detail}` };
  const kinds = markerKinds(probe.csrMarkers);
  const vouched = command.fleet?.vouches && fleetMayVouch(profile, kinds) ? command.fleet : undefined;
  let trusted = '';
  if (kinds.length > 0) {
    const known = (kind: string): MarkerProfile => profile.markers?.[kind] ?? NEW_MARKER;
    const rendering = kinds.filter((k) => known(k).mode === 'browser');
    if (rendering.length > 0) {
      return recheckDue(profile, policy)
        ? { action: 'verify', reason: `recheck of markers that changed pages of this host (1 page in ${policy.recheckEvery}): ${rendering.join(', ')}` }
        : { action: 'browser', reason: `client-side rendering markers that changed pages of this host: ${rendering.join(', ')}` };
    }
    const unverified = kinds.filter((k) => known(k).mode === 'learning');
    if (unverified.length > 0 && !vouched) {
      return { action: 'verify', reason: `client-side rendering markers unverified on this host: ${unverified.map((k) => `${k} (${known(k).agreeing}/${policy.agreements} agreeing)`).join(', ')}` };
    }
    trusted = unverified.length > 0 ? `; markers the fleet vouches for: ${kinds.join(', ')}` : `; markers verified harmless on this host: ${kinds.join(', ')}`;
  }
  if (vouched && profile.mode === 'learning') {
    // A host new to this kind of page, served from its GET on the fleet's word, with a check of its own after FLEET_FIRST_CHECK_PAGES.
    return recheckDue(profile, FLEET_FIRST_CHECK_PAGES)
      ? { action: 'verify', reason: `first check of a host the fleet vouches for (1 page in ${FLEET_FIRST_CHECK_PAGES}): ${vouched.detail}`, fleetCheck: true }
      : { action: 'http', reason: `fleet prior: ${vouched.detail}` };
  }
  const decision = byHostMode(profile, policy);
  return trusted ? { ...decision, reason: decision.reason + trusted } : decision;
}

function byHostMode(profile: HostProfile, policy: AutoPolicy): EngineDecision {
  switch (profile.mode) {
    case 'learning':
      return { action: 'verify', reason: `host unverified (${profile.agreeing}/${policy.agreements} agreeing pages)` };
    case 'browser':
      return { action: 'verify', reason: `recheck of a JavaScript host (1 page in ${policy.recheckEvery})` };
    case 'static': {
      const every = driftCheckEvery(profile, policy);
      return recheckDue(profile, every)
        ? { action: 'verify', reason: `drift check (1 page in ${every})` }
        : { action: 'http', reason: `host verified static (${profile.verifications} verifications)` };
    }
  }
}

export function evolve(profile: HostProfile, event: HostEvent, policy: AutoPolicy = AUTO_POLICY_DEFAULTS): HostProfile {
  if (event.type === 'seen') return { ...profile, sinceCheck: profile.sinceCheck + 1 };
  const last = { agreed: event.agreed, similarity: event.similarity, url: event.url, at: event.at };
  const kinds = markerKinds(event.markers ?? []);
  if (kinds.length > 0) {
    // The markers explain a disagreement: they learn, the host's own count is left as it is.
    const markers = evolveMarkers(profile.markers ?? {}, kinds, event, policy);
    if (!event.agreed) return { ...profile, sinceCheck: 0, verifications: profile.verifications + 1, disagreements: profile.disagreements + 1, last, markers };
    return { ...agreedBy(profile, policy, event), last, markers };
  }
  if (!event.agreed) {
    return { ...profile, mode: 'browser', agreeing: 0, identical: 0, sinceCheck: 0, verifications: profile.verifications + 1, disagreements: profile.disagreements + 1, last };
  }
  return { ...agreedBy(profile, policy, event), last };
}

/**
 * A host after one more agreeing verification. The check of a host served on the fleet's
 * word counts as its K agreeing pages: the fleet's K hosts and its own page stand for them.
 */
function agreedBy(profile: HostProfile, policy: AutoPolicy, event: { fleetCheck?: boolean; identical?: boolean }): HostProfile {
  const agreeing = event.fleetCheck ? Math.max(profile.agreeing + 1, policy.agreements) : profile.agreeing + 1;
  const identical = (profile.identical ?? 0) + (event.identical ? 1 : 0);
  // A JavaScript host whose recheck agrees is learnt again (every page verified until K agree).
  const mode = learnt({ agreeing, identical, disagreements: profile.disagreements }, policy) ? 'static' : profile.mode === 'browser' ? 'learning' : profile.mode;
  return { ...profile, mode, agreeing, identical, sinceCheck: 0, verifications: profile.verifications + 1 };
}

function evolveMarkers(markers: Record<string, MarkerProfile>, kinds: string[], event: { agreed: boolean; identical?: boolean }, policy: AutoPolicy): Record<string, MarkerProfile> {
  const next = { ...markers };
  for (const kind of kinds) {
    const known = next[kind];
    if (!known && Object.keys(next).length >= MAX_MARKER_KINDS) continue;
    const m = known ?? NEW_MARKER;
    if (!event.agreed) {
      next[kind] = { mode: 'browser', agreeing: 0, identical: 0, verifications: m.verifications + 1, disagreements: m.disagreements + 1 };
      continue;
    }
    const agreeing = m.agreeing + 1;
    const identical = (m.identical ?? 0) + (event.identical ? 1 : 0);
    const mode = learnt({ agreeing, identical, disagreements: m.disagreements }, policy) ? 'static' : m.mode === 'browser' ? 'learning' : m.mode;
    next[kind] = { mode, agreeing, identical, verifications: m.verifications + 1, disagreements: m.disagreements };
  }
  return next;
}

/** Every `every`-th page seen since the last verification is verified. */
function recheckDue(profile: HostProfile, every: AutoPolicy | number): boolean {
  const n = typeof every === 'number' ? every : every.recheckEvery;
  return profile.sinceCheck > 0 && profile.sinceCheck % n === 0;
}

/** Doublings of a static host's drift-check interval at most (recheckEvery × 8). */
export const MAX_DRIFT_BACKOFF_DOUBLINGS = 3;

/**
 * A static host's drift check: 1 page in recheckEvery, doubled for each agreeing verification
 * in a row past the K that made it static (a disagreement sends the host back to the browser
 * and the count to 0). Each check is a Chromium render and two extractions (doubling only
 * after each K more made 11 verifications in a 500-page crawl of one static site, 6 of them
 * drift checks; now 2 to 4): a host that keeps agreeing is checked less often, and still
 * regularly (1 page in 8 x recheckEvery at least).
 */
export function driftCheckEvery(profile: HostProfile, policy: AutoPolicy): number {
  const doublings = Math.max(0, profile.agreeing - policy.agreements);
  return policy.recheckEvery * 2 ** Math.min(doublings, MAX_DRIFT_BACKOFF_DOUBLINGS);
}
