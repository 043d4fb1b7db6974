// robots.txt for the crawl frontier (IO at the edge of the decider): fetched once per
// origin through the SSRF-safe client, parsed with robots-parser, cached for a while, and
// offered to the decider as a synchronous predicate.
//
// Rules (RFC 9309): the groups for user agent "TrawlBot" apply (the product token of
// TRAWL_USER_AGENT, which is also the User-Agent header of the fetch), else "*".
//   2xx        parsed (at most 512 KiB, the rest is ignored)
//   4xx        no robots.txt: everything allowed
//   5xx, network error, timeout: "unreachable", everything disallowed (retried after the TTL)
// Crawl-delay is handed to `onRead` (crawl-delay.ts writes it into the fleet's pace of the
// host, which spaces every fetcher replica's starts) before the rule is used, so no link of
// the origin is requested before its delay is in force.
import { fetchRobotsTxt, robotsParser } from '../../../../shared/src/net/robots-txt.js';
import type { CidrRange } from '../../../../shared/src/net/url-safety.js';
import { LRUCache } from 'lru-cache';

type Robot = ReturnType<typeof robotsParser>;

export const ROBOTS_USER_AGENT = 'TrawlBot';

export const ROBOTS_DEFAULTS = {
  timeoutMs: 5_000,
  maxBytes: 512 * 1024,
  ttlMs: 10 * 60_000,
  maxOrigins: 1_000,
} as const;

export type RobotsRule = { kind: 'parsed'; robot: Robot } | { kind: 'allowAll' } | { kind: 'disallowAll' };

export interface RobotsCacheOptions {
  allow: CidrRange[];
  timeoutMs?: number;
  maxBytes?: number;
  ttlMs?: number;
  maxOrigins?: number;
  now?: () => number;
  /** Called with each rule read from the site, before it is used; a failure leaves it unread. */
  onRead?: (origin: string, rule: RobotsRule) => Promise<void>;
}

/** The rule a robots.txt answer gives (pure). */
export function robotsRule(robotsUrl: string, status: number, body: string): RobotsRule {
  if (status >= 200 && status < 300) return { kind: 'parsed', robot: robotsParser(robotsUrl, body) };
  if (status >= 400 && status < 500) return { kind: 'allowAll' };
  return { kind: 'disallowAll' };
}

/** The rule's Crawl-delay for Trawl's user agent, in seconds (undefined: none). */
export function ruleCrawlDelay(rule: RobotsRule): number | undefined {
  return rule.kind === 'parsed' ? rule.robot.getCrawlDelay(ROBOTS_USER_AGENT) : undefined;
}

export function ruleAllows(rule: RobotsRule, url: string): boolean {
  if (rule.kind === 'allowAll') return true;
  if (rule.kind === 'disallowAll') return false;
  return rule.robot.isAllowed(url, ROBOTS_USER_AGENT) !== false;
}

export class RobotsCache {
  private readonly entries: LRUCache<string, { rule: RobotsRule; expiresAt: number }>;
  private readonly loading = new Map<string, Promise<void>>();
  private readonly opts: Required<Omit<RobotsCacheOptions, 'now' | 'onRead'>> & Pick<RobotsCacheOptions, 'onRead'> & { now: () => number };

  constructor(options: RobotsCacheOptions) {
    this.opts = { ...ROBOTS_DEFAULTS, now: Date.now, ...options };
    this.entries = new LRUCache({ max: this.opts.maxOrigins });
  }

  /** Loads (or refreshes) the robots.txt of every URL's origin, in parallel. */
  async prepare(urls: Iterable<string>, signal?: AbortSignal): Promise<void> {
    const origins = new Set<string>();
    for (const url of urls) {
      try { origins.add(new URL(url).origin); } catch { /* not a URL: nothing to load */ }
    }
    await Promise.all([...origins].map((origin) => this.load(origin, signal)));
  }

  /** Synchronous verdict; an origin not loaded yet is allowed (prepare() first). */
  allows(url: string): boolean {
    let origin: string;
    try { origin = new URL(url).origin; } catch { return false; }
    const entry = this.entries.get(origin);
    return entry ? ruleAllows(entry.rule, url) : true;
  }

  private load(origin: string, signal?: AbortSignal): Promise<void> {
    const entry = this.entries.get(origin);
    if (entry && entry.expiresAt > this.opts.now()) return Promise.resolve();
    let pending = this.loading.get(origin);
    if (!pending) {
      pending = this.fetchRule(origin, signal)
        .then(async (rule) => {
          await this.opts.onRead?.(origin, rule);
          this.remember(origin, rule);
        })
        .finally(() => this.loading.delete(origin));
      this.loading.set(origin, pending);
    }
    return pending;
  }

  private async fetchRule(origin: string, signal?: AbortSignal): Promise<RobotsRule> {
    try {
      const robots = await fetchRobotsTxt(origin, { allow: this.opts.allow, timeoutMs: this.opts.timeoutMs, maxBytes: this.opts.maxBytes, signal });
      return robotsRule(`${origin}/robots.txt`, robots.status, robots.text);
    } catch (err) {
      // Shutdown is not an answer from the site: do not cache it.
      if (signal?.aborted) throw err;
      return { kind: 'disallowAll' };
    }
  }

  private remember(origin: string, rule: RobotsRule): void {
    this.entries.set(origin, { rule, expiresAt: this.opts.now() + this.opts.ttlMs });
  }
}
