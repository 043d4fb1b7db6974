// The monitor decider and its schedule, one rule at a time: given(events) / when(command) / then(events).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ValidationError } from '../../../shared/src/domain/errors.js';
import type { MonitorCreated } from '../../../shared/src/domain/events/index.js';
import { decide, evolve, initialState, isChange, runIdOf, type MonitorCommand, type MonitorEvent, type MonitorState } from '../../../shared/src/domain/monitors/decider.js';
import { checkSchedule, dueTick, nextTickAfter } from '../../../shared/src/domain/monitors/schedule.js';
import { normalizeScrapeOptions } from '../../../shared/src/domain/scrape-options.js';
import { deciderSpec } from '../../support/decider.js';

const ID = 'mon1';
const spec = deciderSpec<MonitorCommand, MonitorEvent, MonitorState>({ decide, evolve, initialState: () => initialState(ID) });
const CREATED_AT = '2026-01-01T00:00:00.000Z';
const created = (over: Partial<MonitorCreated> = {}): MonitorEvent => ({
  event: 'monitor_created',
  data: {
    apiKeyId: 'k1', url: 'https://example.com/', scrapeOptions: normalizeScrapeOptions({ formats: ['changeTracking'] }),
    schedule: { intervalSeconds: 60 }, webhookUrl: 'https://hooks.example.com/', notifyUnchanged: false, createdAt: CREATED_AT, ...over,
  },
});
const ticked = (tick: string): MonitorEvent => ({ event: 'monitor_ticked', data: { tick, runId: runIdOf(ID, tick), jobKind: 'scrape', tickedAt: tick } });
const finished = (tick: string): MonitorEvent => ({
  event: 'monitor_run_finished',
  data: { runId: runIdOf(ID, tick), tick, status: 'COMPLETED', changed: [], unchanged: 1, notified: false, finishedAt: tick },
});
const at = (iso: string): Date => new Date(iso);

describe('monitor decider', () => {
  test('nothing is due before the first scheduled time', () => {
    spec.given([created()]).when({ type: 'tick', now: at('2026-01-01T00:00:59.999Z') }).then([]);
  });

  test('a due time ticks once, with a run id derived from the monitor and the time', () => {
    const tick = '2026-01-01T00:01:00.000Z';
    spec.given([created()]).when({ type: 'tick', now: at('2026-01-01T00:01:00.500Z') }).then([
      { event: 'monitor_ticked', data: { tick, runId: runIdOf(ID, tick), jobKind: 'scrape', tickedAt: '2026-01-01T00:01:00.500Z' } },
    ]);
    assert.match(runIdOf(ID, tick), /^[A-Za-z0-9_-]{22}$/);
    assert.notEqual(runIdOf(ID, tick), runIdOf('mon2', tick));
  });

  test('no tick while a run is in progress; after it, only the newest missed time runs', () => {
    const first = '2026-01-01T00:01:00.000Z';
    spec.given([created(), ticked(first)]).when({ type: 'tick', now: at('2026-01-01T00:05:00.000Z') }).then([]);
    spec.given([created(), ticked(first), finished(first)]).when({ type: 'tick', now: at('2026-01-01T00:05:30.000Z') })
      .thenMatches(([e]) => assert.equal((e as any).data.tick, '2026-01-01T00:05:00.000Z'));
  });

  test('a deleted monitor never ticks; a crawl monitor ticks crawls', () => {
    spec.given([created(), { event: 'monitor_deleted', data: { deletedAt: CREATED_AT } }]).when({ type: 'tick', now: at('2026-02-01T00:00:00.000Z') }).then([]);
    const crawl = { maxDepth: 2, limit: 5, includePaths: [], excludePaths: [], allowExternalLinks: false, ignoreRobots: false };
    spec.given([created({ crawl })]).when({ type: 'tick', now: at('2026-01-01T00:01:00.000Z') })
      .thenMatches(([e]) => assert.equal((e as any).data.jobKind, 'crawl'));
  });

  test('finish ends the run in progress, once; another run id is ignored', () => {
    const tick = '2026-01-01T00:01:00.000Z';
    const result = { status: 'COMPLETED', changed: [{ url: 'u', changeStatus: 'changed' }], unchanged: 0, notified: true, finishedAt: tick };
    spec.given([created(), ticked(tick)]).when({ type: 'finish', runId: runIdOf(ID, tick), result })
      .then([{ event: 'monitor_run_finished', data: { runId: runIdOf(ID, tick), tick, ...result } }]);
    spec.given([created(), ticked(tick)]).when({ type: 'finish', runId: 'other', result }).then([]);
    spec.given([created(), ticked(tick), finished(tick)]).when({ type: 'finish', runId: runIdOf(ID, tick), result }).then([]);
  });

  test('new pages are changes only after the baseline run', () => {
    assert.equal(isChange('new', { runsFinished: 0 }), false);
    assert.equal(isChange('new', { runsFinished: 1 }), true);
    assert.equal(isChange('changed', { runsFinished: 0 }), true);
    assert.equal(isChange('same', { runsFinished: 5 }), false);
  });

  test('a run the quota skipped ends the run but is no baseline', () => {
    const tick = '2026-01-01T00:01:00.000Z';
    const skipped: MonitorEvent = {
      event: 'monitor_run_finished',
      data: { runId: runIdOf(ID, tick), tick, status: 'SKIPPED', reason: 'QUOTA_EXCEEDED: used up', changed: [], unchanged: 0, notified: false, finishedAt: tick },
    };
    const state = [created(), ticked(tick), skipped].reduce(evolve, initialState(ID));
    assert.equal(state.lastRunFinished, true);
    assert.equal(state.runsFinished, 0);
    assert.equal(isChange('new', state), false, 'the next run is still the baseline');
    const done = [created(), ticked(tick), finished(tick)].reduce(evolve, initialState(ID));
    assert.equal(done.runsFinished, 1);
  });
});

describe('monitor schedule', () => {
  test('intervals count from creation; cron in its time zone', () => {
    const c = at(CREATED_AT);
    assert.equal(nextTickAfter({ intervalSeconds: 90 }, c, at('2026-01-01T00:02:00.000Z'))?.toISOString(), '2026-01-01T00:03:00.000Z');
    assert.equal(nextTickAfter({ cron: '0 9 * * *', timezone: 'Europe/Berlin' }, c, c)?.toISOString(), '2026-01-01T08:00:00.000Z');
    assert.equal(dueTick({ cron: '0 * * * *' }, c, c, at('2026-01-01T05:30:00.000Z'))?.toISOString(), '2026-01-01T05:00:00.000Z');
    assert.equal(dueTick({ cron: '0 * * * *' }, c, at('2026-01-01T05:00:00.000Z'), at('2026-01-01T05:30:00.000Z')), null);
  });

  test('bad schedules are validation errors naming the field', () => {
    const now = at(CREATED_AT);
    const fails = (s: Parameters<typeof checkSchedule>[0], field: string): void =>
      assert.throws(() => checkSchedule(s, 60_000, now), (e: unknown) => e instanceof ValidationError && e.field === field);
    fails({ cron: 'every tuesday' }, 'schedule.cron');
    fails({ cron: '0 * * * *', timezone: 'Mars/Olympus' }, 'schedule.timezone');
    fails({ cron: '*/30 * * * * *' }, 'schedule.cron');
    fails({ intervalSeconds: 59 }, 'schedule.intervalSeconds');
    assert.doesNotThrow(() => checkSchedule({ cron: '*/5 * * * *' }, 60_000, now));
  });
});
