// The crawl decider, one rule at a time: given(events) / when(command) / then(events).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { normalizeScrapeOptions } from '../../../shared/src/domain/scrape-options.js';
import { validateEventData } from '../../../shared/src/domain/events/index.js';
import { evolve, jobWebhookBody, robotsCandidates } from '../../../services/crawler-frontier/src/crawl/decider.js';
import {
  AT, CRAWL_ID, advance, cancelRequested, finished, given, keyOf, linksDiscovered, pageCompleted, pageFailed,
  pageFetched, pageRequested, requested, started, u,
} from './helpers.js';

describe('crawl decider: lifecycle', () => {
  test('a requested crawl starts and requests its start page at depth 0', () => {
    given([requested()]).when(advance).then([started(), pageRequested('/', 0)]);
  });

  test('advancing again while the start page is in flight decides nothing', () => {
    given([requested(), started(), pageRequested('/', 0)]).when(advance).then([]);
  });

  test('a completed page has its links judged once, then they are requested breadth-first', () => {
    given([requested(), started(), pageRequested('/', 0), pageCompleted('/', ['/a', '/b'])])
      .when(advance)
      .then([linksDiscovered('/', 1, ['/a', '/b']), pageRequested('/a', 1), pageRequested('/b', 1)]);
  });

  test('the crawl completes when nothing is in flight, queued or awaiting its links', () => {
    given([
      requested(), started(), pageRequested('/', 0), pageCompleted('/', ['/a', '/b']),
      linksDiscovered('/', 1, ['/a', '/b']), pageRequested('/a', 1), pageRequested('/b', 1),
      pageCompleted('/a'), pageFailed('/b'),
    ])
      .when(advance)
      .then([linksDiscovered('/a', 2, []), finished('COMPLETED', 3, 2, 1)]);
  });

  test('an error page (HTTP >= 400) counts as failed and its links are not followed', () => {
    given([
      requested(), started(), pageRequested('/', 0), pageCompleted('/', ['/gone', '/ok'], 200),
      linksDiscovered('/', 1, ['/gone', '/ok']), pageRequested('/gone', 1), pageRequested('/ok', 1),
      pageCompleted('/gone', ['/from-404-template'], 404), pageCompleted('/ok', [], 200),
    ])
      .when(advance)
      .then([linksDiscovered('/ok', 2, []), finished('COMPLETED', 3, 2, 1)]);
  });

  test('a start page the server answers with 500 fails the crawl, naming the status', () => {
    given([requested(), started(), pageRequested('/', 0), pageCompleted('/', ['/a'], 500)])
      .when(advance)
      .then([finished('FAILED', 1, 0, 1, 'start page failed: the server answered HTTP 500')]);
  });

  test('the start page failing fails the crawl with the reason', () => {
    given([requested(), started(), pageRequested('/', 0), pageFailed('/', 'connection refused')])
      .when(advance)
      .then([finished('FAILED', 1, 0, 1, 'start page failed: connection refused')]);
  });

  test('a finished crawl decides nothing more', () => {
    given([requested(), started(), pageRequested('/', 0), pageCompleted('/'), linksDiscovered('/', 1, []), finished('COMPLETED', 1, 1, 0)])
      .when(advance)
      .then([]);
  });

  test('a page whose links are all known leaves the discovered map and the queue as they were (no copy per page)', () => {
    const { state: before } = given([requested(), started(), pageRequested('/', 0), pageCompleted('/', ['/a', '/b']), linksDiscovered('/', 1, ['/a', '/b']), pageRequested('/a', 1), pageCompleted('/a', ['/b'])]);
    const after = evolve(before, linksDiscovered('/a', 2, []));
    assert.equal(after.discovered, before.discovered);
    assert.equal(after.queue, before.queue);
    assert.equal(after.awaitingLinks.size, before.awaitingLinks.size - 1);
    const grown = evolve(before, linksDiscovered('/a', 2, ['/c']));
    assert.deepEqual([...grown.discovered.keys()].length, before.discovered.size + 1);
    assert.equal(before.queue.length, 1); // the earlier state is not changed by the later fold
  });

  test('a repeated page result (redelivery) counts once', () => {
    const { state } = given([requested(), started(), pageRequested('/', 0), pageCompleted('/', ['/a']), pageCompleted('/', ['/a']), pageFailed('/')]);
    assert.equal(state.completed, 1);
    assert.equal(state.failed, 0);
  });

  test('every decided event satisfies its schema', () => {
    const events = given([requested({ webhookUrl: 'https://hooks.test/x' }), started(), pageRequested('/', 0), pageCompleted('/', ['/a'])])
      .when(advance).result();
    for (const e of events) validateEventData(e.event, e.data);
  });
});

describe('crawl decider: politeness', () => {
  test('at most maxInFlight pages are requested; the rest wait in the queue', () => {
    const links = ['/1', '/2', '/3', '/4', '/5', '/6'];
    given([requested(), started(), pageRequested('/', 0), pageCompleted('/', links)])
      .when(advance, { maxInFlight: 2 })
      .then([linksDiscovered('/', 1, links), pageRequested('/1', 1), pageRequested('/2', 1)]);
  });

  test('a page finishing frees one slot for the next queued page', () => {
    const links = ['/1', '/2', '/3'];
    given([
      requested(), started(), pageRequested('/', 0), pageCompleted('/', links), linksDiscovered('/', 1, links),
      pageRequested('/1', 1), pageRequested('/2', 1), pageCompleted('/1'),
    ])
      .when(advance, { maxInFlight: 2 })
      .then([linksDiscovered('/1', 2, []), pageRequested('/3', 1)]);
  });

  test('a fetched page no longer loads: the next queued page is requested while it is transformed', () => {
    const links = ['/1', '/2', '/3'];
    given([
      requested(), started(), pageRequested('/', 0), pageCompleted('/', links), linksDiscovered('/', 1, links),
      pageRequested('/1', 1), pageRequested('/2', 1), pageFetched('/1'),
    ])
      .when(advance, { maxInFlight: 2 })
      .then([pageRequested('/3', 1)]);
  });

  test('pages requested and not finished stay within twice maxInFlight, fetched or not', () => {
    const links = ['/1', '/2', '/3', '/4', '/5'];
    given([
      requested(), started(), pageRequested('/', 0), pageCompleted('/', links), linksDiscovered('/', 1, links),
      pageRequested('/1', 1), pageRequested('/2', 1), pageFetched('/1'), pageFetched('/2'),
      pageRequested('/3', 1), pageRequested('/4', 1), pageFetched('/3'),
    ])
      .when(advance, { maxInFlight: 2 })
      .then([]);
  });

  test('page_fetched of a page not in flight, or fetched twice, changes nothing', () => {
    const links = ['/1', '/2', '/3'];
    given([
      requested(), started(), pageRequested('/', 0), pageCompleted('/', links), linksDiscovered('/', 1, links),
      pageRequested('/1', 1), pageRequested('/2', 1), pageFetched('/9'),
    ])
      .when(advance, { maxInFlight: 2 })
      .then([]);
    const { state } = given([
      requested(), started(), pageRequested('/', 0), pageCompleted('/', links), linksDiscovered('/', 1, links),
      pageRequested('/1', 1), pageFetched('/1'), pageFetched('/1'), pageCompleted('/1'),
    ]);
    assert.equal(state.fetched.size, 0);
    assert.equal(state.inFlight.size, 0);
  });

  test('robots.txt disallowed links are skipped unless ignoreRobots', () => {
    const robotsAllows = (url: string): boolean => !new URL(url).pathname.startsWith('/private');
    given([requested(), started(), pageRequested('/', 0), pageCompleted('/', ['/private/x', '/public'])])
      .when(advance, { robotsAllows })
      .then([linksDiscovered('/', 1, ['/public'], { robots: 1 }), pageRequested('/public', 1)]);
    given([requested({ ignoreRobots: true }), started(), pageRequested('/', 0), pageCompleted('/', ['/private/x', '/public'])])
      .when(advance, { robotsAllows })
      .then([linksDiscovered('/', 1, ['/private/x', '/public']), pageRequested('/private/x', 1), pageRequested('/public', 1)]);
  });

  test('robotsCandidates lists the links that passed the pure checks, for the worker to load robots.txt', () => {
    const { state } = given([requested(), started(), pageRequested('/', 0), pageCompleted('/', ['/a', '/', 'https://other.test/x', 'mailto:x@y'])]);
    assert.deepEqual(robotsCandidates(state), [u('/a')]);
    const ignoring = given([requested({ ignoreRobots: true }), started(), pageRequested('/', 0), pageCompleted('/', ['/a'])]);
    assert.deepEqual(robotsCandidates(ignoring.state), []);
  });
});

describe('crawl decider: cancel', () => {
  test('a cancel stops scheduling at once: the crawl finishes CANCELLED with the counters at the cancel', () => {
    given([
      requested(), started(), pageRequested('/', 0), pageCompleted('/', ['/a', '/b', '/c']),
      linksDiscovered('/', 1, ['/a', '/b', '/c']), pageRequested('/a', 1), cancelRequested(),
    ])
      .when(advance)
      .then([finished('CANCELLED', 4, 1, 0)]);
  });

  test('page results after the cancel do not count', () => {
    const { state } = given([
      requested(), started(), pageRequested('/', 0), pageCompleted('/', ['/a']), linksDiscovered('/', 1, ['/a']),
      pageRequested('/a', 1), cancelRequested(), pageCompleted('/a'),
    ]);
    assert.equal(state.completed, 1);
    given([
      requested(), started(), pageRequested('/', 0), pageCompleted('/', ['/a']), linksDiscovered('/', 1, ['/a']),
      pageRequested('/a', 1), cancelRequested(), pageCompleted('/a', ['/z']),
    ]).when(advance).then([finished('CANCELLED', 2, 1, 0)]);
  });

  test('a crawl cancelled before it started finishes CANCELLED without requesting a page', () => {
    given([requested(), cancelRequested()]).when(advance).then([finished('CANCELLED', 0, 0, 0)]);
  });
});

describe('crawl decider: webhook', () => {
  const hook = 'https://hooks.test/crawl';
  const webhook = (type: 'crawl.completed' | 'crawl.failed' | 'crawl.cancelled', status: 'COMPLETED' | 'FAILED' | 'CANCELLED', total: number, done: number, failed: number) => ({
    part: 'webhook',
    event: 'webhook_requested' as const,
    data: {
      url: hook,
      type,
      body: jobWebhookBody(type, { id: CRAWL_ID, status, startUrl: u('/'), totalUrls: total, completedUrls: done, failedUrls: failed }, AT),
      webhookId: `msg_${CRAWL_ID}`,
      apiKeyId: 'key1',
      requestedAt: AT,
    },
  });

  test('completion requests a crawl.completed webhook with the spec payload', () => {
    given([requested({ webhookUrl: hook }), started(), pageRequested('/', 0), pageCompleted('/')])
      .when(advance)
      .then([linksDiscovered('/', 1, []), finished('COMPLETED', 1, 1, 0), webhook('crawl.completed', 'COMPLETED', 1, 1, 0)]);
  });

  test('failure and cancellation send crawl.failed and crawl.cancelled', () => {
    given([requested({ webhookUrl: hook }), started(), pageRequested('/', 0), pageFailed('/')])
      .when(advance)
      .then([finished('FAILED', 1, 0, 1, 'start page failed: boom'), webhook('crawl.failed', 'FAILED', 1, 0, 1)]);
    given([requested({ webhookUrl: hook }), started(), cancelRequested()])
      .when(advance)
      .then([finished('CANCELLED', 1, 0, 0), webhook('crawl.cancelled', 'CANCELLED', 1, 0, 0)]);
  });

  test('the payload has exactly the spec fields, timestamp with milliseconds', () => {
    const body = JSON.parse(jobWebhookBody('crawl.completed', { id: 'c', status: 'COMPLETED', startUrl: 'https://x.test/', totalUrls: 3, completedUrls: 2, failedUrls: 1 }, AT));
    assert.deepEqual(body, {
      event: 'crawl.completed',
      data: { id: 'c', status: 'COMPLETED', startUrl: 'https://x.test/', totalUrls: 3, completedUrls: 2, failedUrls: 1 },
      timestamp: '2025-01-02T03:04:05.678Z',
    });
  });

  test('crawl pages carry the crawl scrapeOptions', () => {
    const options = normalizeScrapeOptions({ formats: ['markdown', 'links'], onlyMainContent: false });
    const [, req] = given([requested({ scrapeOptions: options })]).when(advance).result();
    assert.equal(req?.event, 'page_requested');
    assert.deepEqual((req!.data as { options: unknown }).options, options);
    assert.equal(req!.part, keyOf(u('/')));
  });
});
