// The projector's reader started again and again while one server of a real 3-node cluster
// is frozen (SIGSTOP; not the stream's leader). Each start makes an ordered consumer, whose
// CONSUMER.CREATE goes unanswered when it meets a frozen meta leader (until the others elect
// one) or is placed on the frozen server (about one create in three, for the whole freeze).
// Before, nats.js asked again after its pull expiry (30 s by default, so 15-45 s) and under
// the same name, so a name placed on the frozen server waited for the thaw: a partition
// just taken read nothing for that long (the chaos drill's crawl status trailed the crawl by
// 34 s). Now each start reads the log within seconds (ordered-start.ts).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ProjectionReader, type Delivery, type ReaderMember } from '../../../services/projector/src/reader.js';
import { createLogger } from '../../../shared/src/infra/logger.js';
import { frozenClusterPerSuite } from '../../support/nats-cluster.js';
import { until } from '../../support/wait.js';

const EVENTS = 5;
/** Starts one after another from the freeze on: one placed on the frozen server is all but sure among them (about one in three is). */
const STARTS = 6;
/** How long one start may take to read every event (the freeze lasts the whole test). */
const READ_WITHIN_MS = 30_000;

describe('projector reader with a server of three frozen', { timeout: 400_000 }, () => {
  const suite = frozenClusterPerSuite({
    freeze: 'follower',
    setup: async (js) => {
      for (let i = 0; i < EVENTS; i++) await js.publish(`trawl.crawl.job${i}.job.crawl_requested`, '{}');
    },
  });

  test('each start of the reader reads the log within seconds', async () => {
    const { nc, cluster } = suite;
    suite.freeze();
    const took: number[] = [];
    for (let i = 0; i < STARTS; i++) {
      const seen: number[] = [];
      const member: ReaderMember = { appliedSeq: 0, take: async (d: Delivery) => { seen.push(d.seq); }, settle: async () => undefined };
      const reader = new ProjectionReader(nc.jetstream(), createLogger('reader-test', 'silent'));
      const startedAt = Date.now();
      const reading = reader.read([member]);
      const read = await until(() => seen.length === EVENTS, { timeoutMs: READ_WITHIN_MS, intervalMs: 50 }).then(() => true, () => false);
      assert.ok(read, `start ${i + 1} read ${seen.length} of ${EVENTS} events in ${READ_WITHIN_MS} ms (before: nothing until the thaw); earlier starts took ${took.join(', ')} ms`);
      took.push(Date.now() - startedAt);
      assert.deepEqual(seen, [1, 2, 3, 4, 5]);
      await reading;
      await reader.stop();
    }
    process.stdout.write(`# read times (ms) of each start with ${cluster.nodes[suite.frozen]!.name} frozen: ${took.join(', ')}\n`);
  });
});
