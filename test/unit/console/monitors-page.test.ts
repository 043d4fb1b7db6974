// The monitor pages' rendering: a run the quota skipped shows its reason and no job; a
// diff is shown as text with its lines marked (markup in a page never runs); a diff that
// did not fit the webhook says where it is; the baseline run is named.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { MonitorView } from '../../../shared/src/api/index.js';
import { monitorRunsPage, monitorsPage } from '../../../services/gateway/src/console/pages/monitors.js';
import type { MonitorRun } from '../../../services/gateway/src/monitors/service.js';

const monitor: MonitorView = {
  id: 'mon1', url: 'https://example.com/pricing', jobKind: 'scrape', schedule: { intervalSeconds: 3600 }, status: 'ACTIVE',
  createdAt: '2026-11-01T00:00:00.000Z', formats: ['markdown', 'changeTracking'], webhookUrl: 'https://hooks.example.com/', notifyUnchanged: false,
  nextRunAt: '2026-11-01T04:00:00.000Z',
};
const run = (runId: string, over: Partial<MonitorRun['run']> = {}): MonitorRun['run'] => ({
  runId, tick: '2026-11-01T01:00:00.000Z', status: 'COMPLETED', changed: [], unchanged: 1, notified: false, finishedAt: '2026-11-01T01:00:02.000Z', ...over,
});

describe('console monitor pages', () => {
  test('runs: the skipped one with its reason and no job, the diff as marked text, an omitted diff, the baseline', () => {
    const runs: MonitorRun[] = [
      { run: run('r4', { status: 'SKIPPED', reason: 'QUOTA_EXCEEDED: the monthly quota of 500 pages of the free plan is used up' }), pages: [] },
      {
        run: run('r3', { changed: [{ url: 'https://example.com/pricing', changeStatus: 'changed' }], unchanged: 0, notified: true }),
        pages: [{ url: 'https://example.com/pricing', changeStatus: 'changed', diff: '--- previous\n+++ current\n@@ -1 +1 @@\n-<b>9</b>\n+<script>alert(1)</script>\n' }],
      },
      { run: run('r2', { changed: [{ url: 'https://example.com/big', changeStatus: 'changed' }], notified: true }), pages: [{ url: 'https://example.com/big', changeStatus: 'changed', diffOmitted: true }] },
      { run: run('r1'), pages: [] },
    ];
    const page = monitorRunsPage({ keyLabel: 'ci', keyId: 'key1', monitor, runs, max: 50 }).value;
    const row = (id: string): string => page.slice(page.indexOf(`data-testid="run-${id}"`), page.indexOf('</tr>', page.indexOf(`data-testid="run-${id}"`)));
    assert.match(row('r4'), /badge-skipped/);
    assert.match(row('r4'), /QUOTA_EXCEEDED: the monthly quota of 500 pages/);
    assert.doesNotMatch(row('r4'), /\/console\/jobs\//, 'a skipped run made no job');
    assert.match(row('r3'), /<span class="del">-&lt;b&gt;9&lt;\/b&gt;<\/span>/);
    assert.match(row('r3'), /<span class="add">\+&lt;script&gt;alert\(1\)&lt;\/script&gt;<\/span>/);
    assert.doesNotMatch(page, /<script>/);
    assert.match(row('r3'), /<details open>/, 'the newest diff is open');
    assert.match(row('r2'), /did not fit in the webhook/);
    assert.match(row('r1'), /the baseline/);
    assert.doesNotMatch(row('r3'), /the baseline/);
  });

  test('the list: the last run skipped shows why; a monitor links to its runs', () => {
    const skipped = { ...monitor, lastRun: run('r9', { status: 'SKIPPED', reason: 'QUOTA_EXCEEDED: used up' }) };
    const page = monitorsPage({ rows: [{ keyLabel: 'ci', keyId: 'key1', monitor: skipped }], limit: 5, plan: 'basic' }).value;
    assert.match(page, /badge-skipped">skipped<\/span> <span>QUOTA_EXCEEDED: used up/);
    assert.match(page, /href="\/console\/monitors\/key1\/mon1">Runs and diffs/);
    assert.match(page, /counts toward the key's monthly pages/);
  });
});
