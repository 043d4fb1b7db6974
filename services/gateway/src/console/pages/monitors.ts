// The monitors page: every monitor of the account's keys, its schedule, its next run, and
// its last run with the pages that changed (each run is a job: a link to its page, where
// every page's change-tracking diff is shown). Read-only: monitors are made with the API,
// the SDK or `trawl monitor create`.
import type { MonitorView } from '../../../../../shared/src/api/index.js';
import { html, type SafeHtml } from '../html.js';

export interface MonitorRow {
  keyLabel: string;
  keyId: string;
  monitor: MonitorView;
}

function schedule(m: MonitorView): string {
  return 'intervalSeconds' in m.schedule ? `every ${m.schedule.intervalSeconds} s` : `cron ${m.schedule.cron}${m.schedule.timezone ? ` (${m.schedule.timezone})` : ''}`;
}

export function monitorsPage(opts: { rows: MonitorRow[]; limit: number; plan: string }): SafeHtml {
  return html`<h1>Monitors</h1>
<p>A monitor scrapes a page, or crawls a site, on a schedule, and sends a <code>monitor.changed</code> webhook with the pages that changed and their diffs.
Your plan (${opts.plan}) allows ${opts.limit} per key. Create them with <code>POST /api/v1/monitors</code>, the SDK's <code>trawl.monitors.create</code> or <code>trawl monitor create</code>.</p>
${opts.rows.length === 0 ? html`<p class="muted" data-testid="no-monitors">No monitors yet.</p>` : html`<div class="table-wrap"><table class="stack"><thead><tr>
<th scope="col">Watches</th><th scope="col">Schedule</th><th scope="col">Next run</th><th scope="col">Last run</th></tr></thead><tbody>
${opts.rows.map(({ keyLabel, keyId, monitor: m }) => {
    const run = m.lastRun;
    const runLink = m.lastTick ? html`<a href="/console/jobs/${m.lastTick.jobKind}/${m.lastTick.runId}">${m.lastTick.jobKind} ${m.lastTick.runId}</a>` : '';
    return html`<tr data-testid="monitor-${m.id}"><td data-label="Watches"><div><a href="${m.url}" rel="noreferrer">${m.url}</a> <span class="badge">${m.jobKind}</span><br>
<span class="small muted">${keyLabel} <span class="mono">${keyId}</span> · monitor <span class="mono">${m.id}</span> · webhook ${m.webhookUrl}</span></div></td>
<td data-label="Schedule">${schedule(m)}</td><td data-label="Next run">${m.nextRunAt ?? '—'}</td>
<td data-label="Last run"><div>${run
      ? html`${run.finishedAt} · ${run.status} · ${run.changed.length} changed, ${run.unchanged} unchanged${run.notified ? ' · notified' : ''} · ${runLink}
${run.changed.length ? html`<ul class="small">${run.changed.slice(0, 20).map((c) => html`<li>${c.changeStatus}: ${c.url}</li>`)}</ul>` : ''}`
      : m.lastTick ? html`running: ${runLink}` : html`<span class="muted">not yet</span>`}</div></td></tr>`;
  })}</tbody></table></div>`}`;
}
