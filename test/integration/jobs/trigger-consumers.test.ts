// The job runner's consumers on a real nats-server: one per trigger (not the whole
// `trawl.<kind>.>`, whose events were mostly the runner's own appends), taking over from the
// single consumer of earlier versions where it stood: a trigger it had settled is not
// handled again, one it had not is, and the old consumer is gone once the new ones exist.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AckPolicy, DeliverPolicy } from 'nats';
import { startBatchWorker } from '../../../services/crawler-frontier/src/batch/worker.js';
import { batchJob } from '../../../services/crawler-frontier/src/batch/worker.js';
import { triggerConsumers } from '../../../services/crawler-frontier/src/job/runner.js';
import { uniquePages } from '../../../shared/src/domain/batch-options.js';
import { makeEvent, type AnyEvent, type EventData, type EventName } from '../../../shared/src/domain/events/index.js';
import { normalizeScrapeOptions } from '../../../shared/src/domain/scrape-options.js';
import { newId } from '../../../shared/src/infra/ids.js';
import { type RunningService } from '../../../shared/src/infra/service.js';
import { STREAM_NAME } from '../../../shared/src/infra/subjects.js';
import { servicePerSuite } from '../../support/service-context.js';
import { until } from '../../support/wait.js';

const R = { bucket: 'b', name: 'n', size: 1, contentType: 'application/json' };

describe('job trigger consumers', () => {
  let worker: RunningService | undefined;
  const suite = servicePerSuite('crawler-frontier', { stopFirst: async () => worker?.stop() });

  const append = <N extends EventName>(id: string, part: string, event: N, data: EventData<N>) =>
    suite.ctx.log.append(makeEvent(event, { kind: 'batch', id, part }, data, { eventId: newId(), now: new Date() }) as AnyEvent, { once: true });
  const requestBatch = (id: string) => append(id, 'job', 'batch_requested', {
    pages: uniquePages(['https://site.test/a']), requestedUrls: 1, invalidUrls: 0, options: normalizeScrapeOptions({}), apiKeyId: 'k1', requestedAt: new Date().toISOString(),
  });
  const requested = async (id: string): Promise<string[]> => (await suite.ctx.log.history('batch', id)).filter((e) => e.event === 'page_requested').map((e) => e.part);
  // Durable ones only: a log read's ordered consumer (the runner catching a job up) may be listed
  // too while it is read (deleted after, not awaited; 1 run in 3 at load 30).
  const consumerNames = async (): Promise<string[]> => (await suite.ctx.jsm.consumers.list(STREAM_NAME).next()).filter((c) => c.config.durable_name).map((c) => c.name).sort();

  test('the consumers of earlier versions are replaced where they stood; only triggers are delivered', async () => {
    // An earlier version's single consumer, which settled the first batch's request.
    await suite.ctx.jsm.consumers.add(STREAM_NAME, { durable_name: batchJob.durable, ack_policy: AckPolicy.Explicit, filter_subject: 'trawl.batch.>', deliver_policy: DeliverPolicy.All });
    const settled = newId();
    await requestBatch(settled);
    const legacy = await suite.ctx.js.consumers.get(STREAM_NAME, batchJob.durable);
    const first = await legacy.next({ expires: 2000 });
    assert.ok(first);
    await first.ackAck();
    const pending = newId();
    await requestBatch(pending);

    worker = await startBatchWorker(suite.ctx, { maxInFlight: 1 });
    const expected = triggerConsumers('batch', batchJob.durable).map((c) => c.durable).sort();
    assert.deepEqual(await consumerNames(), expected, 'one consumer per trigger, the old one deleted');
    await until(async () => (await requested(pending)).length === 1);
    await new Promise((r) => setTimeout(r, 300));
    assert.deepEqual(await requested(settled), [], 'a trigger the old consumer had settled is not handled again');

    // The page's outcome finishes the batch; the page_requested the runner appended is not delivered to it.
    const [part] = await requested(pending);
    await append(pending, part!, 'page_completed', {
      result: R, metadata: { title: '', description: '' }, links: [], timings: { queueWaitMs: 0, fetchMs: 0, renderMs: 0, transformMs: 0, screenshotMs: 0, totalMs: 0 }, completedAt: new Date().toISOString(),
    });
    await until(async () => (await suite.ctx.log.history('batch', pending)).some((e) => e.event === 'batch_finished'));
    const delivered = new Map<string, number>();
    for (const c of await suite.ctx.jsm.consumers.list(STREAM_NAME).next()) delivered.set(c.name, c.delivered.consumer_seq);
    const events = (await suite.ctx.log.history('batch', pending)).map((e) => e.event);
    assert.deepEqual(events, ['batch_requested', 'batch_started', 'page_requested', 'page_completed', 'batch_finished']);
    assert.equal(delivered.get(`${batchJob.durable}-page_completed`), 1, 'the page outcome consumer got the page_completed alone');
    assert.equal(delivered.get(`${batchJob.durable}-job`), 3, 'the job part: requested, started, finished (not the first batch, settled)');
    assert.equal(delivered.get(`${batchJob.durable}-page_fetched`), 0);

    // Started again: the consumers are kept, none is made or replayed.
    await worker.stop();
    worker = await startBatchWorker(suite.ctx, { maxInFlight: 1 });
    assert.deepEqual(await consumerNames(), expected);
  });
});
