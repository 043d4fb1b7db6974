// Crawl back-off and host blocking (services/crawler-frontier/src/crawl/host-blocks.ts,
// docs/api.md "Page outcome"): the pure fold, then the crawl decider, given / when / then.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { backingOff, dueToBlock, HOST_BLOCK_AFTER, noRefusals, withBlocked, withResult } from '../../../services/crawler-frontier/src/crawl/host-blocks.js';
import { hostPart, type LogEvent } from '../../../services/crawler-frontier/src/crawl/decider.js';
import { validateEventData } from '../../../shared/src/domain/events/index.js';
import { AT, CRAWL_ID, advance, finished, given, keyOf, linksDiscovered, pageCompleted, pageFetched, pageRequested, requested, started } from './helpers.js';

const O = (n: number): string => `https://other.test/p${n}`;
const refused = (url: string, code = 'PAGE_CHALLENGE'): LogEvent => ({
  part: keyOf(url),
  event: 'page_failed',
  data: { error: { code: code as 'PAGE_CHALLENGE', message: 'the page is a bot check', pageOutcome: 'challenge', evidence: ['header cf-mitigated: challenge'] }, failedAt: AT, attempt: 1 },
});
const timedOut = (url: string): LogEvent => ({ part: keyOf(url), event: 'page_failed', data: { error: { code: 'PAGE_TIMEOUT', message: 'slow' }, failedAt: AT, attempt: 1 } });
const blocked = (host: string, refusals: number): LogEvent => ({ part: hostPart(host), event: 'crawl_host_blocked', data: { host, refusals, blockedAt: AT } });
/** A crawl whose start page linked to five pages of other.test and to /a. */
const crawlWithOthers = (overrides = {}): LogEvent[] => [
  requested({ allowExternalLinks: true, ...overrides }), started(), pageRequested('/', 0), pageCompleted('/', [], 200),
  linksDiscovered('/', 1, [O(1), O(2), O(3), O(4), O(5), '/a']),
];

describe('host refusals (pure)', () => {
  test('refusals in a row count per host; a completed page ends the streak; other failures change nothing', () => {
    let h = noRefusals();
    h = withResult(withResult(h, 'a.test', 'refused'), 'a.test', 'refused');
    h = withResult(h, 'b.test', 'refused');
    assert.deepEqual([...h.streak], [['a.test', 2], ['b.test', 1]]);
    assert.equal(withResult(h, 'a.test', 'other'), h);
    h = withResult(h, 'b.test', 'completed');
    assert.deepEqual([...h.streak], [['a.test', 2]]);
    assert.ok(backingOff(h, 'a.test') && !backingOff(h, 'b.test'));
  });

  test(`a host is due to be blocked after ${HOST_BLOCK_AFTER} refusals in a row, once`, () => {
    let h = noRefusals();
    for (let i = 0; i < HOST_BLOCK_AFTER - 1; i++) h = withResult(h, 'a.test', 'refused');
    assert.deepEqual(dueToBlock(h), []);
    h = withResult(h, 'a.test', 'refused');
    assert.deepEqual(dueToBlock(h), ['a.test']);
    assert.deepEqual(dueToBlock(withBlocked(h, 'a.test')), []);
  });
});

describe('crawl decider: hosts that refuse the crawler', () => {
  test('after a refusal the host has one page loading at a time; other hosts go on', () => {
    given([...crawlWithOthers(), pageRequested(O(1), 1), pageRequested(O(2), 1), refused(O(1))])
      .when(advance)
      // other.test backs off while O(2) loads: /a is asked for, O(3) waits.
      .then([pageRequested('/a', 1)]);
  });

  test('once the backing-off host\'s page is fetched, its next page is asked for', () => {
    const decided = given([...crawlWithOthers(), pageRequested(O(1), 1), pageRequested(O(2), 1), refused(O(1)), pageRequested('/a', 1), pageFetched(O(2))])
      .when(advance).result();
    assert.deepEqual(decided, [pageRequested(O(3), 1)]);
  });

  test(`${HOST_BLOCK_AFTER} refusals in a row: crawl_host_blocked and a crawl.host_blocked webhook; its queued pages count as failed`, () => {
    const decided = given([
      ...crawlWithOthers({ webhookUrl: 'https://hooks.test/h' }), pageRequested(O(1), 1), pageRequested(O(2), 1), pageRequested(O(3), 1), pageRequested('/a', 1),
      refused(O(1)), refused(O(2), 'PAGE_BLOCKED'), refused(O(3)), pageCompleted('/a', [], 200), linksDiscovered('/a', 2, []),
    ]).when(advance).result();
    assert.deepEqual(decided[0], blocked('other.test', 3));
    const hook = decided[1]!;
    assert.equal(hook.event, 'webhook_requested');
    assert.equal(hook.part, `webhook-${hostPart('other.test')}`);
    const data = hook.data as { type: string; body: string };
    assert.equal(data.type, 'crawl.host_blocked');
    assert.deepEqual(JSON.parse(data.body), {
      event: 'crawl.host_blocked', data: { id: CRAWL_ID, status: 'PROCESSING', startUrl: 'https://site.test/', host: 'other.test', refusals: 3 }, timestamp: AT,
    });
    // Nothing more is asked of other.test: O(4) and O(5) count as failed, the crawl ends.
    assert.deepEqual(decided[2], finished('COMPLETED', 7, 2, 5));
    assert.equal(decided.length, 4, 'and the crawl.completed webhook');
    for (const e of decided) assert.doesNotThrow(() => validateEventData(e.event, e.data), e.event);
  });

  test('a page that completes in between ends the streak; timeouts neither count nor reset', () => {
    given([
      ...crawlWithOthers(), pageRequested(O(1), 1), pageRequested(O(2), 1), pageRequested(O(3), 1), pageRequested(O(4), 1),
      refused(O(1)), refused(O(2)), pageCompleted(O(3), [], 200), refused(O(4)), linksDiscovered(O(3), 2, []),
    ])
      .when(advance)
      .then([pageRequested(O(5), 1), pageRequested('/a', 1)]);
    const timeouts = given([...crawlWithOthers(), pageRequested(O(1), 1), pageRequested(O(2), 1), pageRequested(O(3), 1), pageRequested(O(4), 1),
      refused(O(1)), timedOut(O(2)), refused(O(3)), refused(O(4))]).when(advance).result();
    assert.deepEqual(timeouts[0], blocked('other.test', 3));
  });

  test('links to a blocked host are skipped as blocked-host', () => {
    const decided = given([
      ...crawlWithOthers(), pageRequested(O(1), 1), pageRequested(O(2), 1), pageRequested(O(3), 1), pageRequested('/a', 1),
      refused(O(1)), refused(O(2)), refused(O(3)), blocked('other.test', 3), pageCompleted('/a', [O(9), '/b'], 200),
    ]).when(advance).result();
    const links = decided.find((e) => e.event === 'crawl_links_discovered')?.data as { urls: string[]; skipped: Record<string, number> } | undefined;
    assert.deepEqual([links?.urls, links?.skipped], [['https://site.test/b'], { 'blocked-host': 1 }]);
  });
});
