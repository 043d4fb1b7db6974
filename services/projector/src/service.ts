// The projector on a connected service context: main.ts runs it in its own process, and
// `npm start`'s service host (scripts/service-host.ts) beside the other light services.
// The read models are folded in partitions (partitions.ts), each by the one replica that
// holds its lease (shared/src/infra/nats/partition-leases.ts): replicas share the partitions,
// and a dead replica's partitions move to the others when its leases expire.
import { observedGauge } from '../../../shared/src/infra/metrics.js';
import { newId } from '../../../shared/src/infra/ids.js';
import { PartitionLeases } from '../../../shared/src/infra/nats/partition-leases.js';
import type { RunningService, ServiceContext } from '../../../shared/src/infra/service.js';
import { PROJECTION_PARTITIONS, STREAM_NAME, type ProjectionPartition } from '../../../shared/src/infra/subjects.js';
import { createStore } from '../../../shared/src/infra/store/index.js';
import { modelsOf } from './partitions.js';
import { Projector } from './projector.js';
import { ProjectionReader } from './reader.js';
import { READ_MODELS } from './read-models/index.js';

/** How often the partitions' progress is compared with the log's end. */
const STALL_CHECK_MS = 5_000;
/** A partition behind the log that has not moved for this long is restarted from its checkpoint. */
const STALL_AFTER_MS = 30_000;
/** How long a stalled projector gets to stop before its replacement starts anyway. */
const STALL_STOP_MS = 5_000;

export async function startProjector({ config, nc, js, jsm, payloads, logger }: ServiceContext): Promise<RunningService> {
  const store = createStore(config);
  await store.init();
  const running = new Map<ProjectionPartition, Projector>();
  // One reader of the log for the partitions held here (reader.ts), restarted when they change.
  const reader = new ProjectionReader(js, logger);
  // Not awaited by the lease loop's callbacks: a restart waits (boundedly) for the previous
  // read to end, and the lease loop must go on renewing meanwhile.
  const readHeld = (): Promise<void> => reader.read([...running.values()])
    .catch((err) => logger.warn({ err: String(err) }, 'projector reader could not start; the watchdog tries again'));
  const leases: PartitionLeases = new PartitionLeases(js, {
    group: 'projector',
    partitions: PROJECTION_PARTITIONS,
    // A stable id takes back its predecessor's leases at once after a restart (no TTL wait).
    memberId: config.instanceId ?? newId(),
    logger,
    onAcquire: async (name) => {
      const partition = name as ProjectionPartition;
      const projector = makeProjector(partition);
      await projector.prepare();
      running.set(partition, projector);
      void readHeld();
    },
    onRelease: async (name) => {
      const partition = name as ProjectionPartition;
      const projector = running.get(partition);
      running.delete(partition);
      await projector?.stop();
      void readHeld();
    },
  });
  function makeProjector(partition: ProjectionPartition): Projector {
    return new Projector({
      nc, js, store, payloads, logger, payloadTtlMs: config.payloadTtlMs,
      readModels: modelsOf(partition, READ_MODELS), partition, mayApply: () => leases.holds(partition),
    });
  }
  await leases.start();
  // A consumer that stopped delivering (seen after a stream leader died under load) would
  // leave its partitions behind for good: when one that is behind the log's end has not
  // moved for STALL_AFTER_MS, the held partitions start again from their checkpoints.
  const progress = new Map<ProjectionPartition, { seq: number; since: number }>();
  const watchdog = setInterval(() => void (async () => {
    const last = (await jsm.streams.info(STREAM_NAME)).state.last_seq;
    for (const [partition, projector] of running) {
      const seen = progress.get(partition);
      if (!seen || seen.seq !== projector.appliedSeq || projector.appliedSeq >= last) {
        progress.set(partition, { seq: projector.appliedSeq, since: Date.now() });
        continue;
      }
      if (Date.now() - seen.since < STALL_AFTER_MS) continue;
      if (!leases.holds(partition)) {
        // Not restarted (its lease is not this replica's to act on), but not silent either: a
        // status standing still with nothing in the logs was one reading of issue 26.
        logger.warn({ partition, appliedSeq: projector.appliedSeq, lastSeq: last }, 'projector partition behind the log waits for its lease');
        progress.set(partition, { seq: projector.appliedSeq, since: Date.now() });
        continue;
      }
      logger.warn({ partition, appliedSeq: projector.appliedSeq, lastSeq: last }, 'projector partition stalled: restarting the held partitions from their checkpoints');
      progress.clear();
      const stale = [...running];
      await Promise.race([Promise.all(stale.map(([, p]) => p.stop())), new Promise((r) => setTimeout(r, STALL_STOP_MS))]);
      for (const [held, old] of stale) {
        if (running.get(held) !== old) continue; // released meanwhile
        const fresh = makeProjector(held);
        await fresh.prepare();
        running.set(held, fresh);
      }
      await readHeld();
      return;
    }
  })().catch((err) => logger.warn({ err: String(err) }, 'projector watchdog: could not check progress')), STALL_CHECK_MS);
  // How far this replica's partitions trail the log: what a slow status answer would first show.
  const appliedSeq = (): number => (running.size ? Math.min(...[...running.values()].map((p) => p.appliedSeq)) : 0);
  observedGauge('trawl_projector_applied_seq', 'Stream sequence of the last event applied by the partitions this replica folds', appliedSeq);
  observedGauge('trawl_projector_lag_events', 'Events in the log not yet applied by the partitions this replica folds',
    async () => (running.size ? Math.max(0, (await jsm.streams.info(STREAM_NAME)).state.last_seq - appliedSeq()) : 0));
  observedGauge('trawl_projector_partitions', 'Read-model partitions this replica folds', () => running.size);
  return {
    ready: async () => ({ store: await store.ping() }),
    stop: async () => {
      clearInterval(watchdog);
      await leases.stop();
      await reader.stop();
      await store.close();
    },
  };
}
