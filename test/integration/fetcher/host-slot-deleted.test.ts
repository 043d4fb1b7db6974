// A host slot whose message is already gone when it is deleted (given back twice, or taken
// over from a copy that had not seen its delete) is freed, not an error. nats-server answers
// such a delete "sequence N not found"; before, that failed the page's handler from the
// take-over path, and the page's claim kept its redelivery waiting 60 s for a fetcher that
// had handed it back. Real 3-node JetStream cluster at R3 (a single server answers "no
// message found", which was handled); the warnings the slots log are captured.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { connect, type NatsConnection } from 'nats';
import { HostSlots } from '../../../services/fetcher/src/fleet/host-slots.js';
import { createLogger } from '../../../shared/src/infra/logger.js';
import { ensureInfrastructure } from '../../../shared/src/infra/nats/infrastructure.js';
import { startNatsCluster, type NatsClusterHandle } from '../../support/nats-cluster.js';

const DAY_MS = 86_400_000;
let cluster: NatsClusterHandle;
let nc: NatsConnection;
before(async () => {
  cluster = await startNatsCluster(3);
  nc = await connect({ servers: cluster.url.split(',') });
  // The slots' stream follows the log's factor.
  await ensureInfrastructure(nc, { eventRetentionMs: DAY_MS, payloadTtlMs: DAY_MS, baselineTtlMs: DAY_MS, replicas: 3 });
});
after(async () => {
  await nc?.close();
  await cluster?.stop();
});

test('deleting a slot already deleted gives it back quietly, and the slot is free', async () => {
  const logger = createLogger('host-slot-deleted', 'silent');
  const warnings: string[] = [];
  logger.warn = ((obj: unknown, msg?: string) => { warnings.push(`${msg ?? ''} ${JSON.stringify(obj)}`); }) as typeof logger.warn;
  const slots = new HostSlots(nc.jetstream(), { holderId: 'fetcher-a', logger });
  // Three places of one host: the middle one's message is deleted between two others.
  const taken = [await takeThroughElection(slots), await takeThroughElection(slots), await takeThroughElection(slots)];
  assert.ok(taken.every(Boolean), 'three free slots are taken');
  const [, middle] = taken.map((t) => t!).sort((a, b) => a.seq - b.seq);
  await slots.release(middle!);
  // The same message again: the server answers "sequence N not found" (an interior delete).
  await slots.release(middle!);
  assert.deepEqual(warnings, [], 'no warning for a slot already freed');
  const again = await takeThroughElection(slots);
  assert.equal(again?.subject, middle!.subject, 'the slot is free');
  await slots.stop();
});

/** A slot of the test's host, asked again while the slots' new stream elects its leader. */
async function takeThroughElection(slots: HostSlots): Promise<Awaited<ReturnType<HostSlots['take']>>> {
  for (const end = Date.now() + 30_000; Date.now() < end;) {
    const slot = await slots.take('deleted.test', 3).catch(() => undefined);
    if (slot) return slot;
    await new Promise((r) => setTimeout(r, 250));
  }
  return undefined;
}
