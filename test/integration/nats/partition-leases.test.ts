// Partition leases against a real nats-server: replicas split the partitions without
// overlap, a second replica gets its share from the first, a dead one's partitions move to
// the survivor once its leases expire, and a frozen holder sees its lease lapsed by its own
// clock before it could act; a replica restarted under its predecessor's id takes that
// one's leases back at once, and nobody else's.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type NatsConnection } from 'nats';
import { createLogger } from '../../../shared/src/infra/logger.js';
import { PartitionLeases } from '../../../shared/src/infra/nats/partition-leases.js';
import { natsPerSuite } from '../../support/nats-server.js';
import { until } from '../../support/wait.js';

const PARTITIONS = ['a', 'b', 'c', 'd'];
const logger = createLogger('leases-test', 'silent');

function replica(nc: NatsConnection, memberId: string, group: string, now?: () => number, ttlMs = 3_000) {
  const working = new Set<string>();
  const leases = new PartitionLeases(nc.jetstream(), {
    group, partitions: PARTITIONS, memberId, logger, ttlMs, renewMs: 300, ...(now ? { now } : {}),
    onAcquire: async (p) => { assert.ok(!working.has(p)); working.add(p); },
    onRelease: async (p) => { working.delete(p); },
  });
  return { leases, working };
}

describe('partition leases', { timeout: 60_000 }, () => {
  const nats = natsPerSuite();

  test('two replicas split the partitions, never both working on one; the survivor takes all', async () => {
    const one = replica(nats.nc, 'one', 'split');
    await one.leases.start();
    assert.deepEqual([...one.working].sort(), PARTITIONS, 'alone, a replica folds every partition');
    const two = replica(nats.nc, 'two', 'split');
    await two.leases.start();
    const overlap = (): string[] => [...one.working].filter((p) => two.working.has(p));
    await until(() => one.working.size === 2 && two.working.size === 2, { timeoutMs: 15_000 });
    assert.deepEqual(overlap(), []);
    assert.deepEqual([...one.working, ...two.working].sort(), PARTITIONS);
    // A graceful stop hands the leases back at once.
    await two.leases.stop();
    await until(() => one.working.size === 4, { timeoutMs: 10_000 });
    await one.leases.stop();
  });

  test('a frozen holder sees its lease lapsed by its own clock; the others take it when it expires', async () => {
    let skewMs = 0;
    const frozen = replica(nats.nc, 'frozen', 'freeze', () => Date.now() + skewMs);
    await frozen.leases.start();
    assert.ok(frozen.leases.holds('a'));
    // Time passes for this replica without a renewal (as after SIGSTOP): it must not act.
    skewMs = 10_000;
    assert.equal(frozen.leases.holds('a'), false);
    skewMs = 0;
    // A replica that stopped renewing (killed) loses its partitions to the others after the TTL.
    const dead = replica(nats.nc, 'dead', 'expire');
    await dead.leases.start();
    assert.equal(dead.working.size, 4);
    // A kill: no more renewals, no hand-back.
    kill(dead.leases);
    const survivor = replica(nats.nc, 'survivor', 'expire');
    await survivor.leases.start();
    await until(() => survivor.working.size === 4, { timeoutMs: 15_000 });
    await survivor.leases.stop();
    await frozen.leases.stop();
  });

  test('a replica restarted under its predecessor\'s id takes its leases back at once, not after the TTL', async () => {
    // A TTL far longer than the test waits: only a take-back can explain the partitions moving.
    const ttlMs = 60_000;
    const first = replica(nats.nc, 'slot-0', 'restart', undefined, ttlMs);
    const other = replica(nats.nc, 'slot-1', 'restart', undefined, ttlMs);
    await first.leases.start();
    await other.leases.start();
    await until(() => first.working.size === 2 && other.working.size === 2, { timeoutMs: 15_000 });
    const mine = [...first.working].sort();
    kill(first.leases);
    const restarted = replica(nats.nc, 'slot-0', 'restart', undefined, ttlMs);
    try {
      await restarted.leases.start();
      assert.deepEqual([...restarted.working].sort(), mine, 'the predecessor\'s partitions, in the first round');
      // The other replica's leases are not its own: they stay where they are.
      await new Promise((r) => setTimeout(r, 1_000));
      assert.equal(other.working.size, 2);
      assert.deepEqual([...restarted.working].filter((p) => other.working.has(p)), []);
    } finally {
      await restarted.leases.stop();
      await other.leases.stop();
    }
  });
});

/** A kill: no more renewals, no hand-back. */
function kill(leases: PartitionLeases): void {
  const internals = leases as unknown as { stopped: boolean; timer: NodeJS.Timeout };
  internals.stopped = true;
  clearInterval(internals.timer);
}
