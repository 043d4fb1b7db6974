// The monitor aggregate as a pure decider: `evolve` folds a monitor's events into a state,
// `decide` turns a command (tick, finish) and the state into new events. No IO, no clock:
// the scheduler passes `now`. Runs never overlap: ticks due while a run is in progress are
// skipped, and the next run is for the newest due time.
import type { EventData } from '../events/index.js';
import type { MonitorCreated, MonitorRunFinished } from '../events/monitor.js';
import { createHash } from 'node:crypto';
import { dueTick } from './schedule.js';

export type MonitorEvent =
  | { event: 'monitor_created'; data: EventData<'monitor_created'> }
  | { event: 'monitor_deleted'; data: EventData<'monitor_deleted'> }
  | { event: 'monitor_ticked'; data: EventData<'monitor_ticked'> }
  | { event: 'monitor_run_finished'; data: EventData<'monitor_run_finished'> };

export interface MonitorState {
  status: 'none' | 'active' | 'deleted';
  monitorId: string;
  definition: MonitorCreated | null;
  /** The newest tick and its run. */
  lastTick: EventData<'monitor_ticked'> | null;
  /** The run of lastTick has finished. */
  lastRunFinished: boolean;
  runsFinished: number;
}

export type MonitorCommand =
  | { type: 'tick'; now: Date }
  | { type: 'finish'; runId: string; result: Omit<MonitorRunFinished, 'runId' | 'tick'> };

export const initialState = (monitorId = ''): MonitorState => ({
  status: 'none', monitorId, definition: null, lastTick: null, lastRunFinished: true, runsFinished: 0,
});

export function evolve(state: MonitorState, e: MonitorEvent): MonitorState {
  switch (e.event) {
    case 'monitor_created':
      return state.status === 'none' ? { ...state, status: 'active', definition: e.data } : state;
    case 'monitor_deleted':
      return { ...state, status: 'deleted' };
    case 'monitor_ticked':
      return { ...state, lastTick: e.data, lastRunFinished: false };
    case 'monitor_run_finished':
      return state.lastTick?.runId === e.data.runId && !state.lastRunFinished
        // A SKIPPED run looked at nothing: it is no baseline (its `new` pages stay quiet).
        ? { ...state, lastRunFinished: true, runsFinished: state.runsFinished + (e.data.status === 'SKIPPED' ? 0 : 1) }
        : state;
  }
}

/** The run's job id: 22 URL-safe characters, like every job id, the same for the same monitor and tick. */
export function runIdOf(monitorId: string, tick: string): string {
  return createHash('sha256').update(`trawl-monitor-run:${monitorId}:${tick}`).digest('base64url').slice(0, 22);
}

/**
 * tick: an active monitor with no run in progress and a due time emits monitor_ticked for
 * the newest due time, its run's job id derived from the monitor and that time (replicas
 * deciding the same tick name the same job; the scheduler appends it on the subject's last
 * sequence, deduped by the tick). finish: monitor_run_finished with the run's changes.
 */
export function decide(command: MonitorCommand, state: MonitorState): MonitorEvent[] {
  const def = state.definition;
  if (command.type === 'tick') {
    if (state.status !== 'active' || !def || !state.lastRunFinished) return [];
    const after = new Date(state.lastTick?.tick ?? def.createdAt);
    const due = dueTick(def.schedule, new Date(def.createdAt), after, command.now);
    if (!due) return [];
    const tick = due.toISOString();
    return [{
      event: 'monitor_ticked',
      data: { tick, runId: runIdOf(state.monitorId, tick), jobKind: def.crawl ? 'crawl' : 'scrape', tickedAt: command.now.toISOString() },
    }];
  }
  const last = state.lastTick;
  if (!last || state.lastRunFinished || last.runId !== command.runId) return [];
  return [{ event: 'monitor_run_finished', data: { runId: last.runId, tick: last.tick, ...command.result } }];
}

/** Whether a run's changes are worth a webhook: new pages count after the first run (the baseline). */
export function isChange(changeStatus: string, state: Pick<MonitorState, 'runsFinished'>): boolean {
  return changeStatus === 'changed' || changeStatus === 'removed' || (changeStatus === 'new' && state.runsFinished > 0);
}
