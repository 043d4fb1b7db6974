// The monitor scheduler (docs/architecture.md "Monitors"): every MONITOR_CHECK_INTERVAL_MS
// it catches its monitors' states up with the log, asks the decider for due ticks and looks
// after the run in progress. Exactly once per tick across replicas and restarts: see
// `MonitorScheduler`.
import { AppendConflictError } from '../../../../shared/src/infra/nats/event-log.js';
import { makeEvent, type StoredEvent } from '../../../../shared/src/domain/events/index.js';
import { newId } from '../../../../shared/src/infra/ids.js';
import type { Logger } from '../../../../shared/src/infra/logger.js';
import { decide, evolve, initialState, isChange, type MonitorEvent, type MonitorState } from '../../../../shared/src/domain/monitors/decider.js';
import type { RunningService, ServiceContext } from '../../../../shared/src/infra/service.js';
import { SUBJECT_ROOT, subjectOf } from '../../../../shared/src/infra/subjects.js';
import { AdmissionLedger } from '../../../../shared/src/infra/admission/ledger.js';
import { PlanLimiter } from '../../../../shared/src/infra/admission/plan-limits.js';
import { createStore } from '../../../../shared/src/infra/store/index.js';
import { runOutcome, startRun, type RunDeps, type RunOutcome, type RunPage } from './runs.js';

/** A webhook's diffs together at most; past it a page's diff is left out (`diffOmitted`). */
const WEBHOOK_DIFF_BYTES = 512 * 1024;
const MONITOR_EVENTS = new Set(['monitor_created', 'monitor_deleted', 'monitor_ticked', 'monitor_run_finished']);

interface Tracked {
  keyId: string;
  state: MonitorState;
  /** Last sequences seen on the monitor_ticked and monitor_run_finished subjects (the append guards). */
  tickSeq: number;
  finishSeq: number;
  /** The run whose job this process has appended (or found) already. */
  started?: string;
}

/**
 * Exactly once per tick: every replica may decide the same tick, but monitor_ticked is
 * appended on the sequence the replica last saw on that subject (one that is behind loses
 * with a conflict and catches up) with the tick as its Nats-Msg-Id. The run's job id comes
 * from the tick and its first event is appended `once`: a scheduler that died between tick
 * and job makes the same job when it (or another replica) comes back. monitor_run_finished
 * and the webhook are guarded the same way.
 */
export class MonitorScheduler {
  private readonly monitors = new Map<string, Tracked>();
  private lastSeq = 0;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(private readonly deps: RunDeps & { logger: Logger; checkIntervalMs: number; clock?: () => Date }) {}

  start(): void {
    const loop = (): void => {
      if (this.stopped) return;
      this.running = this.pass().catch((err: unknown) => this.deps.logger.warn({ err: (err as Error).message }, 'monitor pass failed; the next one retries'))
        .finally(() => { if (!this.stopped) this.timer = setTimeout(loop, this.deps.checkIntervalMs); });
    };
    loop();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  /** One look at every monitor (exported for tests through `start`'s loop). */
  async pass(): Promise<void> {
    await this.catchUp();
    for (const tracked of this.monitors.values()) {
      if (this.stopped) return;
      try {
        await this.tick(tracked);
        await this.followRun(tracked);
      } catch (err) {
        this.deps.logger.warn({ monitorId: tracked.state.monitorId, err: (err as Error).message }, 'monitor step failed; retried next pass');
      }
    }
  }

  private async catchUp(): Promise<void> {
    const events = await this.deps.log.read(`${SUBJECT_ROOT}.monitor.>`, this.lastSeq + 1);
    for (const e of events) {
      this.lastSeq = Math.max(this.lastSeq, e.seq);
      if (MONITOR_EVENTS.has(e.event)) this.apply(e);
    }
  }

  private apply(e: StoredEvent): void {
    const key = `${e.id}.${e.part}`;
    let tracked = this.monitors.get(key);
    if (!tracked) {
      tracked = { keyId: e.id, state: initialState(e.part), tickSeq: 0, finishSeq: 0 };
      this.monitors.set(key, tracked);
    }
    tracked.state = evolve(tracked.state, e as unknown as MonitorEvent);
    if (e.event === 'monitor_ticked') tracked.tickSeq = Math.max(tracked.tickSeq, e.seq);
    if (e.event === 'monitor_run_finished') tracked.finishSeq = Math.max(tracked.finishSeq, e.seq);
    if (tracked.state.status === 'deleted' && tracked.state.lastRunFinished) this.monitors.delete(key);
  }

  private at(t: Tracked) {
    return { kind: 'monitor' as const, id: t.keyId, part: t.state.monitorId };
  }

  private async tick(t: Tracked): Promise<void> {
    const now = this.now();
    const [ticked] = decide({ type: 'tick', now }, t.state);
    if (!ticked || ticked.event !== 'monitor_ticked') return;
    // A revoked key's monitors stop: no run starts for it (a point read, only when a tick is due).
    if (await this.deps.log.exists({ kind: 'apikey', id: t.keyId, part: 'key', event: 'key_revoked' })) return;
    const event = makeEvent('monitor_ticked', this.at(t), ticked.data, { eventId: newId(), now });
    const msgId = `${subjectOf({ ...this.at(t), event: 'monitor_ticked' })}:${ticked.data.tick}`;
    const appended = await this.appendGuarded(event, t.tickSeq, msgId);
    if (!appended) return;
    t.tickSeq = appended;
    t.state = evolve(t.state, ticked);
  }

  private async followRun(t: Tracked): Promise<void> {
    const { state } = t;
    const tick = state.lastTick;
    const def = state.definition;
    if (!tick || state.lastRunFinished || !def) return;
    let outcome: RunOutcome | null = null;
    if (t.started !== tick.runId) {
      const refused = await startRun(this.deps, def, tick.runId, this.now());
      // A run the quota refuses ends at once, SKIPPED with the reason (no job, no webhook).
      if (refused) outcome = { status: 'SKIPPED', reason: refused.skipped, pages: [] };
      else t.started = tick.runId;
    }
    outcome ??= await runOutcome(this.deps, def, tick.runId);
    if (!outcome) return;
    const changed = outcome.pages.filter((p) => p.changeStatus && isChange(p.changeStatus, state));
    const unchanged = outcome.pages.length - changed.length;
    const notify = outcome.status !== 'SKIPPED' && (changed.length > 0 || def.notifyUnchanged);
    const now = this.now();
    if (notify) await this.requestWebhook(t, tick, outcome.status, changed, unchanged, now);
    const [finished] = decide({
      type: 'finish', runId: tick.runId,
      result: {
        status: outcome.status, ...(outcome.reason ? { reason: outcome.reason } : {}), changed: changed.slice(0, 1000).map((p) => ({ url: p.url, changeStatus: p.changeStatus! })),
        unchanged, notified: notify, finishedAt: now.toISOString(),
      },
    }, state);
    if (!finished || finished.event !== 'monitor_run_finished') return;
    const event = makeEvent('monitor_run_finished', this.at(t), finished.data, { eventId: newId(), now });
    const msgId = `${subjectOf({ ...this.at(t), event: 'monitor_run_finished' })}:${tick.runId}`;
    const appended = await this.appendGuarded(event, t.finishSeq, msgId);
    if (!appended) return;
    t.finishSeq = appended;
    t.state = evolve(t.state, finished);
  }

  /** monitor.changed: once per run (its own subject, appended `once`). */
  private async requestWebhook(t: Tracked, tick: NonNullable<MonitorState['lastTick']>, status: string, changed: RunPage[], unchanged: number, now: Date): Promise<void> {
    const def = t.state.definition!;
    let budget = WEBHOOK_DIFF_BYTES;
    const pages = changed.map((p) => {
      const size = Buffer.byteLength(p.diff ?? '');
      const fits = size <= budget;
      if (fits) budget -= size;
      return { url: p.url, changeStatus: p.changeStatus, ...(p.diff && fits ? { diff: p.diff } : {}), ...(p.diff && !fits ? { diffOmitted: true } : {}) };
    });
    // The shape of every webhook: {event, data, timestamp}.
    const body = JSON.stringify({
      event: 'monitor.changed',
      data: { monitorId: t.state.monitorId, runId: tick.runId, jobKind: tick.jobKind, tick: tick.tick, status, url: def.url, changed: pages, unchanged },
      timestamp: now.toISOString(),
    });
    const part = `${t.state.monitorId}-${tick.runId}`;
    await this.deps.log.append(makeEvent('webhook_requested', { kind: 'monitor', id: t.keyId, part }, {
      url: def.webhookUrl, type: 'monitor.changed', body, webhookId: `msg_${tick.runId}`, apiKeyId: def.apiKeyId, requestedAt: now.toISOString(),
    }, { eventId: newId(), now }), { once: true });
  }

  /** Appends on the expected sequence; a conflict or a duplicate means another replica did it (caught up next pass). */
  private async appendGuarded(event: Parameters<RunDeps['log']['append']>[0], expected: number, msgId: string): Promise<number | undefined> {
    try {
      const appended = await this.deps.log.append(event, { expectedLastSubjectSequence: expected, msgId });
      return appended.duplicate ? undefined : appended.seq;
    } catch (err) {
      if (err instanceof AppendConflictError) return undefined;
      throw err;
    }
  }

  private now(): Date {
    return this.deps.clock ? this.deps.clock() : new Date();
  }
}

export async function startMonitorScheduler(ctx: ServiceContext): Promise<RunningService> {
  const logger = ctx.logger.child({ worker: 'monitors' });
  const admission = ctx.config.quotas ? await quotaAdmission(ctx, logger) : undefined;
  const scheduler = new MonitorScheduler({
    log: ctx.log, payloads: ctx.payloads, newId, logger, checkIntervalMs: ctx.config.monitorCheckIntervalMs,
    ...(admission ? { admit: admission.admit } : {}),
  });
  scheduler.start();
  return {
    stop: async () => {
      await scheduler.stop();
      await admission?.close();
    },
  };
}

/**
 * Runs charge the monthly quota as the gateway's jobs do: the same limiter over the
 * key-usage read model and the admission ledger (not the concurrency limit: a scheduled
 * run is not refused because the key's other jobs are running).
 */
async function quotaAdmission(ctx: ServiceContext, logger: Logger): Promise<{ admit: NonNullable<RunDeps['admit']>; close: () => Promise<void> }> {
  const store = createStore(ctx.config);
  await store.init();
  const limiter = new PlanLimiter(store, new AdmissionLedger(ctx.js), () => new Date(), { concurrency: false, quota: true });
  return {
    admit: async (keyId, need) => {
      const key = await store.apiKeys.get(keyId);
      // A monitor's key was in the read model when the monitor was made: missing here, this
      // process does not share the gateway's store (a misconfiguration docs/deploy.md
      // rules out). Run uncharged rather than stop every monitor.
      if (!key) {
        logger.warn({ keyId }, 'monitor run not charged: its key is not in this read model (is MONGODB_URL shared with the gateway?)');
        return undefined;
      }
      return limiter.admit({ keyId, plan: key.plan }, need);
    },
    close: () => store.close(),
  };
}
