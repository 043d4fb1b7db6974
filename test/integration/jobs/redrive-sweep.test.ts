// The frontier's re-drive sweep (services/crawler-frontier/src/job/redrive-sweep.ts) and the
// worker's re-drive (shared/src/infra/nats/worker.ts) against a real nats-server: a page
// whose page_requested the fetcher lane let go of (acked) with no step of the fetcher in the
// log is handed to the lane's workers again, by its sequence; a page whose message the lane
// still holds is not.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { RedriveSweep } from '../../../services/crawler-frontier/src/job/redrive-sweep.js';
import { makeEvent, type StoredEvent } from '../../../shared/src/domain/events/index.js';
import { normalizeScrapeOptions } from '../../../shared/src/domain/scrape-options.js';
import { newId } from '../../../shared/src/infra/ids.js';
import { ConsumerWorker } from '../../../shared/src/infra/nats/worker.js';
import { fetcherDurable, redriveSubject, TRANSFORMER_DURABLE, STREAM_NAME } from '../../../shared/src/infra/subjects.js';
import { servicePerSuite } from '../../support/service-context.js';
import { until } from '../../support/wait.js';

describe('re-drive sweep over NATS', () => {
  let lane: ConsumerWorker | undefined;
  let release: () => void = () => undefined;
  const suite = servicePerSuite('crawler-frontier', { stopFirst: async () => { release(); await lane?.stop(); } });

  test('a page whose message its consumer let go of without its step is handled again; one the consumer still holds is not', async () => {
    const { ctx } = suite;
    const id = newId();
    const held = new Promise<void>((r) => { release = r; });
    const handled: string[] = [];
    // The fetcher's crawl lane, played by hand: p1 is acked with no step written (what a
    // message let go of looks like), p2 stays in the handler (pending at its consumer).
    lane = new ConsumerWorker<StoredEvent>({
      js: ctx.js, jsm: ctx.jsm, logger: ctx.logger, durable: fetcherDurable('crawl'), filterSubject: 'trawl.crawl.*.*.page_requested', concurrency: 4,
      handle: async (e) => { handled.push(e.part); if (e.part === 'p2') await held; },
    });
    await lane.start();
    await ctx.jsm.consumers.add(STREAM_NAME, { durable_name: TRANSFORMER_DURABLE, filter_subject: 'trawl.*.*.*.page_fetched', ack_policy: 'explicit' as never });
    const requestedSeq: Record<string, number> = {};
    for (const part of ['p1', 'p2']) {
      const data = { url: `https://site.test/${part}`, options: normalizeScrapeOptions({}), apiKeyId: 'k1', depth: 1, requestedAt: new Date().toISOString() };
      requestedSeq[part] = (await ctx.log.append(makeEvent('page_requested', { kind: 'crawl', id, part }, data, { eventId: newId(), now: new Date() }), { once: true })).seq;
    }
    await until(() => handled.length === 2);
    await until(async () => (await ctx.jsm.consumers.info(STREAM_NAME, fetcherDurable('crawl'))).ack_floor.stream_seq >= requestedSeq.p1!);

    const asked: number[] = [];
    const sub = ctx.nc.subscribe(redriveSubject(fetcherDurable('crawl')), { callback: (_e, m) => asked.push((JSON.parse(m.string()) as { seq: number }).seq) });
    const sweep = new RedriveSweep({
      kind: 'crawl', log: ctx.log, jsm: ctx.jsm, nc: ctx.nc, logger: ctx.logger, idleMs: 0,
      // The job as the runner holds it: both pages in flight.
      jobs: { advance: async () => undefined, pagesInFlight: async () => ['p1', 'p2'] },
    });
    sweep.touched(id);
    await sweep.sweep();
    await until(() => handled.length === 3);
    assert.deepEqual(asked, [requestedSeq.p1], 'only the page whose message was let go of is asked for');
    assert.deepEqual(handled, ['p1', 'p2', 'p1'], 'the lane handled it again');
    // Still without its step: the next sweep, whose read starts at the oldest page in flight, asks again.
    await sweep.sweep();
    await until(() => handled.length === 4);
    sub.unsubscribe();
    assert.deepEqual(asked, [requestedSeq.p1, requestedSeq.p1], 'asked again while it stays stuck');
  });

  test('a restarted sweep finds the jobs the log has requested and not finished, and advances them once idle', async () => {
    const { ctx } = suite;
    // A crawl whose crawl_requested no trigger consumer handed out (nothing in this process
    // ever touched it), and one already over: only the first is the sweep's to look at.
    const [waiting, over] = [newId(), newId()];
    for (const subject of [`trawl.crawl.${waiting}.job.crawl_requested`, `trawl.crawl.${over}.job.crawl_requested`, `trawl.crawl.${over}.job.crawl_finished`]) {
      await ctx.js.publish(subject, new TextEncoder().encode('{}'));
    }
    const advanced: string[] = [];
    const sweep = new RedriveSweep({
      kind: 'crawl', log: ctx.log, jsm: ctx.jsm, nc: ctx.nc, logger: ctx.logger, idleMs: 0,
      jobs: { advance: async (id) => { advanced.push(id); }, pagesInFlight: async () => [] },
    });
    await sweep.sweep();
    assert.deepEqual(advanced, [waiting]);
  });
});

