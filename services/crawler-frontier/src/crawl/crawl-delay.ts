// A site's robots.txt Crawl-delay for the whole fleet: when the frontier reads a robots.txt
// (robots.ts), the delay it gives Trawl's user agent goes into the host's shared pace
// (shared/src/domain/host-pace.ts), which every fetcher replica asks before a bulk page of
// the host starts. A file that no longer says it (or a 4xx: no file) clears it. The pace
// entry is operational state like the 429 back-off, not an event: the file is read again
// every ROBOTS_DEFAULTS.ttlMs, within the entry's idle TTL, so a forgotten entry comes back.
import type { JetStreamClient } from 'nats';
import { openHostPaces, paceKey, parsePace, withCrawlDelay } from '../../../../shared/src/domain/host-pace.js';
import { casUpdate } from '../../../../shared/src/infra/nats/kv-cas.js';
import { ruleCrawlDelay, type RobotsRule } from './robots.js';
import { madeOnce } from '../../../../shared/src/infra/made-once.js';

export function crawlDelayPublisher(js: JetStreamClient): (origin: string, rule: RobotsRule) => Promise<void> {
  const kv = madeOnce(() => openHostPaces(js));
  return async (origin, rule) => {
    // An unreachable robots.txt disallows the origin: no page of it loads, nothing to pace.
    if (rule.kind === 'disallowAll') return;
    const seconds = ruleCrawlDelay(rule);
    await casUpdate(await kv(), paceKey(new URL(origin).host), (text) => {
      const pace = parsePace(text);
      const next = withCrawlDelay(pace, seconds);
      // Nothing to say about a host never paced: no entry is made for it.
      return next === pace || (text === null && seconds === undefined) ? { result: undefined } : { value: JSON.stringify(next), result: undefined };
    });
  };
}
