// Reads of an aggregate's history while one server of a real 3-node cluster is frozen
// (SIGSTOP; not the stream's leader, so the log itself stays available). Each read makes an
// ordered consumer; nats-server 2.9 may place it on the frozen server (until the meta leader
// takes that server for offline) or leave its create unanswered (the meta leader frozen),
// and nats.js asks again under the same name: a read placed there waited for the thaw. Run
// as a worker's handler runs them (again in place on an outage: worker.ts), every read
// answers within seconds, in full.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { EventLog } from '../../../shared/src/infra/nats/event-log.js';
import { isNatsOutage } from '../../../shared/src/infra/nats/outage.js';
import { frozenClusterPerSuite } from '../../support/nats-cluster.js';

const JOB = 'frozenReadJob000000001';
const EVENTS = 20;
/** Reads made one after another from the freeze on: most meet a consumer placed on the frozen server (before the fix, the first one already waited for the thaw). */
const READS = 5;
/** How long one read may take, outages run again in place included (the freeze lasts the whole test). */
const READ_WITHIN_MS = 30_000;

describe('log reads with one server of three frozen', { timeout: 240_000 }, () => {
  const suite = frozenClusterPerSuite({
    freeze: 'follower',
    setup: async (js) => {
      for (let i = 0; i < EVENTS; i++) {
        const data = { depth: 1, urls: [`http://site.test/${i}`], skipped: {}, discoveredAt: new Date().toISOString() };
        await js.publish(`trawl.crawl.${JOB}.${i.toString(16).padStart(16, '0')}.crawl_links_discovered`, JSON.stringify({ eventId: `e${i}`, occurredAt: new Date().toISOString(), data }));
      }
    },
  });

  test('each read answers in full within seconds, run again in place through the outage', async () => {
    const { nc, cluster } = suite;
    const log = new EventLog(nc.jetstream(), await nc.jetstreamManager());
    assert.equal((await log.history('crawl', JOB)).length, EVENTS);
    suite.freeze();
    const took: number[] = [];
    for (let i = 0; i < READS; i++) {
      const startedAt = Date.now();
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((resolve) => { timer = setTimeout(() => resolve('late'), READ_WITHIN_MS); });
      const outages: string[] = [];
      const events = await Promise.race([readThroughOutages(log, outages), late]).finally(() => clearTimeout(timer));
      assert.notEqual(events, 'late', `read ${i + 1} still waiting ${READ_WITHIN_MS} ms after it began (before: until the thaw; outages met: ${outages.join('; ')}); earlier reads took ${took.join(', ')} ms`);
      assert.equal((events as unknown[]).length, EVENTS, `read ${i + 1} in full`);
      took.push(Date.now() - startedAt);
    }
    process.stdout.write(`# read times (ms) with ${cluster.nodes[suite.frozen]!.name} frozen: ${took.join(', ')}\n`);
  });
});

/** A history read, again after a pause while NATS is unavailable: what a worker's handler does. */
async function readThroughOutages(log: EventLog, outages: string[]): Promise<unknown[]> {
  const startedAt = Date.now();
  for (let pauseMs = 500; ; pauseMs = Math.min(5_000, pauseMs * 2)) {
    try {
      return await log.history('crawl', JOB);
    } catch (err) {
      if (!isNatsOutage(err)) throw err;
      outages.push(`${Date.now() - startedAt} ms: ${String(err)}`);
      await sleep(pauseMs);
    }
  }
}
