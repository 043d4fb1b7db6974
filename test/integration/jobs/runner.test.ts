// The job runner (services/crawler-frontier/src/job/runner.ts) against a real nats-server:
// a batch plays the page pipeline's part by hand. The runner reacts to page_fetched as to a
// result (a fetched page no longer loads, so the next one may), bounds the pages loading and
// the pages unfinished like a crawl's, and finishes the batch once every page has a result.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { startBatchWorker } from '../../../services/crawler-frontier/src/batch/worker.js';
import { uniquePages } from '../../../shared/src/domain/batch-options.js';
import { makeEvent, type AnyEvent, type EventData, type EventName, type StoredEvent } from '../../../shared/src/domain/events/index.js';
import { newId } from '../../../shared/src/infra/ids.js';
import { normalizeScrapeOptions } from '../../../shared/src/domain/scrape-options.js';
import { type RunningService } from '../../../shared/src/infra/service.js';
import { servicePerSuite } from '../../support/service-context.js';
import { until } from '../../support/wait.js';

const R = { bucket: 'b', name: 'n', size: 1, contentType: 'application/json' };

describe('job runner over NATS', () => {
  let worker: RunningService | undefined;
  const suite = servicePerSuite('crawler-frontier', { stopFirst: async () => worker?.stop() });
  before(async () => {
    worker = await startBatchWorker(suite.ctx, { maxInFlight: 1 });
  });

  test('a batch loads its next page once the last one is fetched, and finishes after every result', async () => {
    const id = newId();
    const pages = uniquePages(['https://site.test/a', 'https://site.test/b', 'https://site.test/c']);
    const append = <N extends EventName>(part: string, event: N, data: EventData<N>) =>
      suite.ctx.log.append(makeEvent(event, { kind: 'batch', id, part }, data, { eventId: newId(), now: new Date() }) as AnyEvent, { once: true });
    const history = (): Promise<StoredEvent[]> => suite.ctx.log.history('batch', id);
    const requested = async (): Promise<string[]> => (await history()).filter((e) => e.event === 'page_requested').map((e) => e.part);
    const at = new Date().toISOString();
    const fetched = (part: string) => append(part, 'page_fetched', {
      finalUrl: 'https://site.test/', statusCode: 200, rawHtml: R, timings: { queueWaitMs: 0, fetchMs: 0, renderMs: 0, screenshotMs: 0 }, fetchedAt: at,
    });
    const completed = (part: string) => append(part, 'page_completed', {
      result: R, metadata: { title: '', description: '' }, links: [], timings: { queueWaitMs: 0, fetchMs: 0, renderMs: 0, transformMs: 0, screenshotMs: 0, totalMs: 0 }, completedAt: at,
    });
    const [a, b, c] = pages.map((p) => p.pageKey) as [string, string, string];

    await append('job', 'batch_requested', { pages, requestedUrls: 3, invalidUrls: 0, options: normalizeScrapeOptions({}), apiKeyId: 'k1', requestedAt: at });
    await until(async () => (await requested()).length === 1);
    assert.deepEqual(await requested(), [a], 'one page loads at a time (maxInFlight 1)');

    await fetched(a);
    await until(async () => (await requested()).length === 2);
    assert.deepEqual(await requested(), [a, b], 'page_fetched lets the next page load while the first is transformed');

    await fetched(b);
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.deepEqual(await requested(), [a, b], 'no more than 2 × maxInFlight pages unfinished');

    await completed(a);
    await until(async () => (await requested()).length === 3);
    await completed(b);
    await fetched(c);
    await completed(c);
    await until(async () => (await history()).some((e) => e.event === 'batch_finished'));
    const done = (await history()).find((e) => e.event === 'batch_finished')!;
    assert.deepEqual(done.data, { status: 'COMPLETED', totalUrls: 3, completedUrls: 3, failedUrls: 0, finishedAt: (done.data as { finishedAt: string }).finishedAt });
  });
});
