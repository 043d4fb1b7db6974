// The monitors pages: every monitor of the account's keys with its schedule, next run and
// last run; and one monitor with its runs, newest first, each with the pages that changed
// and their diffs (from the run's monitor.changed webhook). Read-only: monitors are made
// with the API, the SDK or `trawl monitor create`.
import type { MonitorView } from '../../../../../shared/src/api/index.js';
import type { MonitorRun } from '../../monitors/service.js';
import { html, statusBadge, when, type SafeHtml } from '../html.js';

export interface MonitorRow {
  keyLabel: string;
  keyId: string;
  monitor: MonitorView;
}

/** Changed pages named in the list, at most; the monitor's page has them all. */
const LISTED_CHANGES = 5;

function schedule(m: Pick<MonitorView, 'schedule'>): string {
  return 'intervalSeconds' in m.schedule ? `every ${m.schedule.intervalSeconds} s` : `cron ${m.schedule.cron}${m.schedule.timezone ? ` (${m.schedule.timezone})` : ''}`;
}

const runsHref = (keyId: string, id: string): string => `/console/monitors/${keyId}/${id}`;

type LastRun = NonNullable<MonitorView['lastRun']>;

/** What a run found, in words: the changes, or why it did not run. */
function outcome(run: LastRun, baseline: boolean): SafeHtml {
  if (run.status === 'SKIPPED') return html`${statusBadge('skipped')} <span>${run.reason ?? ''}</span>`;
  const counts = `${run.changed.length} changed, ${run.unchanged} unchanged`;
  const hook = run.notified ? 'webhook sent' : baseline ? 'the baseline: later runs compare with it' : 'no webhook (nothing changed)';
  return html`${statusBadge(run.status)} ${counts} <span class="muted small">· ${hook}</span>`;
}

export function monitorsPage(opts: { rows: MonitorRow[]; limit: number; plan: string }): SafeHtml {
  return html`<h1>Monitors</h1>
<p>A monitor scrapes a page, or crawls a site, on a schedule, and sends a <code>monitor.changed</code> webhook with the pages that changed and their diffs.
Each run counts toward the key's monthly pages like any job. Your plan (${opts.plan}) allows ${opts.limit} per key.
Create them with <code>POST /api/v1/monitors</code>, the SDK's <code>trawl.monitors.create</code> or <code>trawl monitor create</code>.</p>
${opts.rows.length === 0 ? html`<p class="muted" data-testid="no-monitors">No monitors yet.</p>` : html`<div class="table-wrap"><table class="stack"><thead><tr>
<th scope="col">Watches</th><th scope="col">Schedule</th><th scope="col">Next run</th><th scope="col">Last run</th></tr></thead><tbody>
${opts.rows.map(({ keyLabel, keyId, monitor: m }) => {
    const run = m.lastRun;
    const more = run && run.changed.length > LISTED_CHANGES ? html`<li class="muted">and ${run.changed.length - LISTED_CHANGES} more</li>` : '';
    return html`<tr data-testid="monitor-${m.id}"><td data-label="Watches"><div><a href="${m.url}" rel="noreferrer">${m.url}</a> <span class="badge">${m.jobKind}</span><br>
<span class="small muted">key ${keyLabel} · webhook ${m.webhookUrl}</span><br><a class="small" href="${runsHref(keyId, m.id)}">Runs and diffs</a></div></td>
<td data-label="Schedule">${schedule(m)}</td><td data-label="Next run">${when(m.nextRunAt)}</td>
<td data-label="Last run"><div>${run
      ? html`${when(run.finishedAt)}<br>${outcome(run, false)}
${run.changed.length ? html`<ul class="small">${run.changed.slice(0, LISTED_CHANGES).map((c) => html`<li>${c.changeStatus}: ${c.url}</li>`)}${more}</ul>` : ''}`
      : m.lastTick ? html`running: <a href="/console/jobs/${m.lastTick.jobKind}/${m.lastTick.runId}">${m.lastTick.jobKind} job</a>` : html`<span class="muted">not yet</span>`}</div></td></tr>`;
  })}</tbody></table></div>`}`;
}

/** A unified diff with its added and removed lines marked (colour and a sign both). */
function diffView(diff: string): SafeHtml {
  const lines = diff.replace(/\n$/, '').split('\n').map((line) => {
    const kind = line.startsWith('+++') || line.startsWith('---') ? 'head' : line.startsWith('+') ? 'add' : line.startsWith('-') ? 'del' : line.startsWith('@@') ? 'hunk' : '';
    return kind ? html`<span class="${kind}">${line}</span>\n` : html`${line}\n`;
  });
  return html`<pre class="diff" data-testid="run-diff">${lines}</pre>`;
}

export function monitorRunsPage(opts: { keyLabel: string; keyId: string; monitor: MonitorView; runs: MonitorRun[]; max: number }): SafeHtml {
  const { monitor: m, runs } = opts;
  // The oldest run that ran is the baseline (runs are newest first; a skipped run looked at nothing).
  const baseline = [...runs].reverse().find((r) => r.run.status !== 'SKIPPED')?.run.runId;
  const openRun = runs.find((r) => r.pages.some((p) => p.diff !== undefined))?.run.runId;
  const facts: [string, SafeHtml | string][] = [
    ['Watches', html`<a href="${m.url}" rel="noreferrer">${m.url}</a> <span class="badge">${m.jobKind}</span>`],
    ['Status', statusBadge(m.status)],
    ['Schedule', schedule(m)],
    ['Next run', when(m.nextRunAt)],
    ['Webhook', html`<span class="mono">${m.webhookUrl}</span>${m.notifyUnchanged ? ' (after every run)' : ' (when something changed)'}`],
    ['Key', html`${opts.keyLabel} <span class="mono small">${opts.keyId}</span>`],
    ['Monitor id', html`<span class="mono">${m.id}</span>`],
    ['Created', when(m.createdAt)],
  ];
  return html`<p><a href="/console/monitors">← Monitors</a></p>
<h1>Monitor of ${m.url}</h1>
<dl class="facts">${facts.map(([k, v]) => html`<dt>${k}</dt><dd>${v}</dd>`)}</dl>
<section data-testid="monitor-runs"><h2>Runs</h2>
${runs.length === 0 ? html`<p class="muted">No run has finished yet.${m.lastTick ? html` One is running: <a href="/console/jobs/${m.lastTick.jobKind}/${m.lastTick.runId}">${m.lastTick.jobKind} job</a>.` : ''}</p>` : html`
<p class="muted small">Newest first${runs.length >= opts.max ? `, the last ${opts.max}` : ''}. Each run is a ${m.jobKind} job; its page has every page's result.</p>
<div class="table-wrap"><table class="stack"><thead><tr><th scope="col">Scheduled for</th><th scope="col">Outcome</th><th scope="col">Pages that changed</th><th scope="col">Job</th></tr></thead><tbody>
${runs.map(({ run, pages }) => html`<tr data-testid="run-${run.runId}"><td data-label="Scheduled for">${when(run.tick)}<br><span class="muted small">ended ${when(run.finishedAt)}</span></td>
<td data-label="Outcome">${outcome(run, run.runId === baseline)}</td>
<td data-label="Changed">${pages.length === 0 ? (run.changed.length ? html`${run.changed.map((c) => html`${c.changeStatus}: ${c.url}<br>`)}` : html`<span class="muted">—</span>`) : pages.map((p) => html`<details${run.runId === openRun ? html` open` : ''}><summary>${p.changeStatus}: ${p.url}</summary>
${p.diff !== undefined ? diffView(p.diff) : html`<p class="muted small">${p.diffOmitted ? 'The diff did not fit in the webhook: the job\'s page has it.' : 'No diff (a new or removed page).'}</p>`}</details>`)}</td>
<td data-label="Job">${run.status === 'SKIPPED' ? html`<span class="muted">none</span>` : html`<a href="/console/jobs/${m.jobKind}/${run.runId}">${m.jobKind} job</a>`}</td></tr>`)}
</tbody></table></div>`}</section>`;
}
