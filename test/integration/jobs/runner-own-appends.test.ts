// The job runner (services/crawler-frontier/src/job/runner.ts) folds in its own appends
// before it decides again. A trigger is often older than the runner's last decision (another
// page finished while it was made); a state caught up only to the trigger decided that
// decision again, and the log refused each of its events as a duplicate (a publish and an
// error answer each: about two per page of an unchanged recrawl, docs/benchmarks.md). And a
// trigger the state has already passed is decided on it without a read.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { batchJob } from '../../../services/crawler-frontier/src/batch/worker.js';
import { createJobRunner } from '../../../services/crawler-frontier/src/job/runner.js';
import { uniquePages } from '../../../shared/src/domain/batch-options.js';
import { makeEvent, type AnyEvent, type EventData, type EventName } from '../../../shared/src/domain/events/index.js';
import { newId } from '../../../shared/src/infra/ids.js';
import { EventLog, type AppendOptions, type AppendResult } from '../../../shared/src/infra/nats/event-log.js';
import { normalizeScrapeOptions } from '../../../shared/src/domain/scrape-options.js';
import { servicePerSuite } from '../../support/service-context.js';

const R = { bucket: 'b', name: 'n', size: 1, contentType: 'application/json' };

/** The real event log, counting the appends it refused as already there. */
class CountingLog extends EventLog {
  duplicates: string[] = [];
  reads = 0;
  override historyAfter(...args: Parameters<EventLog['historyAfter']>): ReturnType<EventLog['historyAfter']> {
    this.reads++;
    return super.historyAfter(...args);
  }
  override history(...args: Parameters<EventLog['history']>): ReturnType<EventLog['history']> {
    this.reads++;
    return super.history(...args);
  }
  override async append(event: AnyEvent, opts: AppendOptions = {}): Promise<AppendResult> {
    const result = await super.append(event, opts);
    if (result.duplicate) this.duplicates.push(`${event.part} ${event.event}`);
    return result;
  }
}

describe('job runner: own appends', () => {
  const suite = servicePerSuite('crawler-frontier');

  test('a trigger older than the runner\'s last decision does not make that decision again', async () => {
    const log = new CountingLog(suite.ctx.js, suite.ctx.jsm);
    const runner = createJobRunner(log, batchJob, { maxInFlight: 1 });
    const id = newId();
    const pages = uniquePages(['https://site.test/a', 'https://site.test/b', 'https://site.test/c']);
    const [a, b] = pages.map((p) => p.pageKey) as [string, string, string];
    const append = async <N extends EventName>(part: string, event: N, data: EventData<N>): Promise<number> =>
      (await suite.ctx.log.append(makeEvent(event, { kind: 'batch', id, part }, data, { eventId: newId(), now: new Date() }) as AnyEvent, { once: true })).seq;
    const at = new Date().toISOString();
    const requestedSeq = await append('job', 'batch_requested', { pages, requestedUrls: 3, invalidUrls: 0, options: normalizeScrapeOptions({}), apiKeyId: 'k1', requestedAt: at });
    await runner.advance(id, undefined, undefined, requestedSeq);
    // Page a is fetched and completed before the runner handles either.
    const fetchedSeq = await append(a, 'page_fetched', {
      finalUrl: 'https://site.test/a', statusCode: 200, rawHtml: R, timings: { queueWaitMs: 0, fetchMs: 0, renderMs: 0, screenshotMs: 0 }, fetchedAt: at,
    });
    const completedSeq = await append(a, 'page_completed', {
      result: R, metadata: { title: '', description: '' }, links: [], timings: { queueWaitMs: 0, fetchMs: 0, renderMs: 0, transformMs: 0, screenshotMs: 0, totalMs: 0 }, completedAt: at,
    });
    await runner.advance(id, undefined, undefined, fetchedSeq); // requests page b, after completedSeq in the log
    await runner.advance(id, undefined, undefined, completedSeq);
    const requested = (await suite.ctx.log.history('batch', id)).filter((e) => e.event === 'page_requested').map((e) => e.part);
    assert.deepEqual(requested, [a, b], 'page b requested once (one page loading at a time)');
    assert.deepEqual(log.duplicates, [], 'no append refused as a duplicate');

    // The state is past page a's triggers now: handling one again (a redelivery) reads nothing
    // (a read past the state's last event would only learn the log's end, a miss).
    const reads = log.reads;
    await runner.advance(id, undefined, undefined, fetchedSeq);
    assert.equal(log.reads, reads, 'no log read for a trigger the state has passed');
    assert.deepEqual(log.duplicates, [], 'and no append refused as a duplicate');
  });
});
