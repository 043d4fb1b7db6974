// A crawl's hosts that answer with bot challenges or block pages (docs/api.md "Page
// outcome"): a pure fold of page results per host, and the verdicts the crawl decider acts
// on (back off after one refusal, block after HOST_BLOCK_AFTER in a row). Why: a site that
// refuses a crawler refuses every page after the first few; asking it for the rest costs
// the user quota and tells the site's bot manager to harden its verdict.
import { FAILING_OUTCOMES, HOST_REFUSAL_OUTCOMES } from '../../../../shared/src/domain/page-outcome/outcome.js';

/** Refusals in a row after which a crawl stops asking a host. */
export const HOST_BLOCK_AFTER = 3;

/** Page error codes that are a host refusing the crawler (PAGE_CHALLENGE, PAGE_BLOCKED). */
export const REFUSAL_CODES: ReadonlySet<string> = new Set(HOST_REFUSAL_OUTCOMES.map((o) => (FAILING_OUTCOMES as Record<string, string>)[o]!));

export interface HostRefusals {
  /** Refusals in a row, per host (absent: none). */
  streak: ReadonlyMap<string, number>;
  /** Hosts the crawl stopped asking. */
  blocked: ReadonlySet<string>;
}

export const noRefusals = (): HostRefusals => ({ streak: new Map(), blocked: new Set() });

export type PageResult = 'refused' | 'completed' | 'other';

/**
 * The result of a page of `host` folded in: a refusal lengthens the host's streak, a page
 * that completes ends it, other failures (timeouts, network) neither count nor reset it.
 */
export function withResult(h: HostRefusals, host: string, result: PageResult): HostRefusals {
  if (result === 'other') return h;
  const streak = new Map(h.streak);
  if (result === 'completed') {
    if (!streak.has(host)) return h;
    streak.delete(host);
  } else {
    streak.set(host, (streak.get(host) ?? 0) + 1);
  }
  return { ...h, streak };
}

/** The crawl stopped asking `host` (crawl_host_blocked folded in). */
export function withBlocked(h: HostRefusals, host: string): HostRefusals {
  return h.blocked.has(host) ? h : { ...h, blocked: new Set(h.blocked).add(host) };
}

export const isBlocked = (h: HostRefusals, host: string): boolean => h.blocked.has(host);

/** A host that refused the last page asked of it: one of its pages loading at a time (no
 *  clock needed: the next page waits for the last one's answer). */
export const backingOff = (h: HostRefusals, host: string): boolean => (h.streak.get(host) ?? 0) > 0;

/** Hosts due to be blocked: HOST_BLOCK_AFTER refusals in a row and not blocked yet (then
 *  crawl_host_blocked: its queued pages count under failedUrls, its links are skipped). */
export function dueToBlock(h: HostRefusals, after = HOST_BLOCK_AFTER): string[] {
  return [...h.streak].filter(([host, n]) => n >= after && !h.blocked.has(host)).map(([host]) => host);
}

/** The host a page URL belongs to (lower-case, with a non-default port). */
export function hostOf(url: string): string {
  try {
    return new URL(url).host.toLowerCase();
  } catch {
    return '';
  }
}
