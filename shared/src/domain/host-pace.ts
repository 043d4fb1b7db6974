// The fleet's pace per host, as a pure fold: what every fetcher replica agrees on through
// one KV entry per host (services/fetcher/src/fleet/host-governor.ts), and what a crawl's
// status reads to say that its host is slowed and why. It holds
//   - when the next page may start (starts are spaced by the host's interval);
//   - a back-off after 429 or 503: the interval doubles on each (from BACKOFF_BASE_MS, up to
//     BACKOFF_MAX_MS), nothing starts before Retry-After, and each page that succeeds halves
//     it again, so the pace recovers on its own. `reason` says why the host is slowed;
//   - the host's robots.txt `Crawl-delay` (written by the crawl frontier when it reads the
//     file), a least spacing of starts for every replica while the file says so.
// The pages of a host loading at once are not counted here: a compare-and-set is not exact
// on a replicated stream of nats-server 2.9, so they are the fleet's host slots
// (services/fetcher/src/fleet/host-slots.ts).

import type { JetStreamClient, KV } from 'nats';
import { openKv } from '../infra/nats/replicas.js';
import { madeOnce } from '../infra/made-once.js';

export const HOST_PACE_BUCKET = 'trawl-host-pace';
/** A host not asked for this long forgets its pace (the bucket's max age). */
export const PACE_IDLE_TTL_MS = 60 * 60_000;

/** KV keys allow letters, digits and -/_=. : anything else in a host becomes "_". */
export const paceKey = (host: string): string => `h.${host.toLowerCase().replace(/[^a-z0-9\-_.]/g, '_')}`;

export function openHostPaces(js: JetStreamClient): Promise<KV> {
  return openKv(js, HOST_PACE_BUCKET, { history: 1, ttl: PACE_IDLE_TTL_MS });
}

export function parsePace(text: string | null): HostPace {
  if (!text) return freshPace();
  try {
    return { ...freshPace(), ...(JSON.parse(text) as Partial<HostPace>) };
  } catch {
    return freshPace();
  }
}

export interface Slowed { host: string; reason: string; until: string }

/** Reads whether `host` is slowed now (a back-off after 429/503), and why; for a job's status. */
export function slowedHostReader(js: JetStreamClient, now: () => number = Date.now): (host: string) => Promise<Slowed | undefined> {
  const kv = madeOnce(() => openHostPaces(js));
  return async (host) => {
    const entry = await (await kv()).get(paceKey(host));
    const pace = parsePace(entry && entry.length > 0 ? entry.string() : null);
    const until = new Date(Math.max(pace.nextAt, now())).toISOString();
    if (pace.reason && pace.backoffMs > 0) return { host, reason: pace.reason, until };
    if (pace.crawlDelayMs) return { host, reason: `robots.txt Crawl-delay: one page every ${pace.crawlDelayMs / 1000} s`, until };
    return undefined;
  };
}

export const PACE_DEFAULTS = {
  backoffBaseMs: 1_000,
  backoffMaxMs: 5 * 60_000,
  /** Retry-After beyond this is capped (a site asking for a day must not stall a crawl for a day). */
  retryAfterMaxMs: 10 * 60_000,
  /** Crawl-delay beyond this is capped (a file asking for an hour a page would stall a crawl). */
  crawlDelayMaxMs: 60_000,
} as const;

export interface PaceLimits {
  /** Pages of one host loading at once across every fetcher. */
  maxInFlight: number;
  /** Least time between two starts on one host (Crawl-delay, or the operator's floor). */
  intervalMs: number;
}

export interface HostPace {
  /** No start before this (ms since epoch). */
  nextAt: number;
  /** Extra spacing after 429/503 (0: none). */
  backoffMs: number;
  /** Why the host is slowed, while it is. */
  reason?: string;
  /** When the last 429/503 came (a page started before it says nothing about the pace since). */
  refusedAt?: number;
  /** The host's robots.txt Crawl-delay, as last read (absent: none). */
  crawlDelayMs?: number;
}

export const freshPace = (): HostPace => ({ nextAt: 0, backoffMs: 0 });

export type Start = { granted: true; pace: HostPace } | { granted: false; waitMs: number };

/** The least time between two starts now: the interval, the Crawl-delay or the back-off, whichever is longest. */
export const spacingMs = (pace: HostPace, intervalMs: number): number => Math.max(intervalMs, pace.crawlDelayMs ?? 0, pace.backoffMs);

/** A page may start when the host's next start is due; the one after it is spaced from now. */
export function start(pace: HostPace, now: number, intervalMs: number): Start {
  if (now < pace.nextAt) return { granted: false, waitMs: pace.nextAt - now };
  return { granted: true, pace: { ...pace, nextAt: now + spacingMs(pace, intervalMs) } };
}

/** Retry-After as delay-seconds or an HTTP date, in ms from now; undefined when absent or unreadable. */
export function retryAfterMs(header: string | undefined, now: number): number | undefined {
  if (!header) return undefined;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * The host's answer to one page folded in: 429/503 slow every replica, a success of a page
 * started after the last refusal speeds it back up (`startedAt`, default now).
 */
export function observe(pace: HostPace, now: number, statusCode: number, retryAfter: number | undefined, startedAt = now): HostPace {
  if (statusCode === 429 || statusCode === 503) {
    const backoffMs = Math.min(PACE_DEFAULTS.backoffMaxMs, Math.max(PACE_DEFAULTS.backoffBaseMs, pace.backoffMs * 2));
    const waitMs = Math.max(backoffMs, Math.min(retryAfter ?? 0, PACE_DEFAULTS.retryAfterMaxMs));
    const reason = `HTTP ${statusCode}${retryAfter !== undefined ? ` with Retry-After ${Math.round(retryAfter / 1000)} s` : ''}: one page every ${Math.round(backoffMs / 100) / 10} s`;
    return { ...pace, backoffMs, nextAt: Math.max(pace.nextAt, now + waitMs), reason, refusedAt: now };
  }
  if (statusCode < 400 && pace.backoffMs > 0 && startedAt >= (pace.refusedAt ?? 0)) {
    const backoffMs = pace.backoffMs / 2 < PACE_DEFAULTS.backoffBaseMs ? 0 : pace.backoffMs / 2;
    const { reason, ...rest } = pace;
    return backoffMs === 0 ? { ...rest, backoffMs } : { ...rest, backoffMs, ...(reason ? { reason } : {}) };
  }
  return pace;
}

/**
 * The host's robots.txt Crawl-delay (seconds, as the file gives it; undefined: the file has
 * none) folded in, capped; the same pace when nothing changes (so nothing is written).
 */
export function withCrawlDelay(pace: HostPace, crawlDelaySeconds: number | undefined): HostPace {
  const ms = crawlDelaySeconds !== undefined && Number.isFinite(crawlDelaySeconds) && crawlDelaySeconds > 0
    ? Math.min(PACE_DEFAULTS.crawlDelayMaxMs, Math.round(crawlDelaySeconds * 1000))
    : undefined;
  if (ms === pace.crawlDelayMs) return pace;
  const { crawlDelayMs: _, ...rest } = pace;
  void _;
  return ms === undefined ? rest : { ...rest, crawlDelayMs: ms };
}
