// The jobs pages: the account's jobs with kind and status filters (pages done and how long
// each took), and one job with its status, timings, result or error, its pages (crawl,
// batch: ./job-results.ts) and its event history (./job-events.ts).
import type { ChangeTrackingReport } from '../../../../../shared/src/domain/change-tracking.js';
import type { StoredEvent } from '../../../../../shared/src/domain/events/index.js';
import type { ApiKeyDoc } from '../../../../../shared/src/infra/store/index.js';
import { html, statusBadge, when, type SafeHtml } from '../html.js';
import type { ResultPage } from '../job-pages.js';
import { JOB_KINDS, JOB_STATUSES, type JobRow, type LoadedJob } from '../jobs.js';
import { renderMarkdown } from '../markdown-view.js';
import { codeTabs, requestBodyOf } from './code-tabs.js';
import { timeline } from './job-events.js';
import { pagesTable } from './job-results.js';

/** How long a job took, from its request to its end, as people read it (1.2 s, 3 min 4 s). */
export function duration(fromIso: string, toIso: string | undefined): string {
  if (!toIso) return '';
  const ms = Date.parse(toIso) - Date.parse(fromIso);
  if (!Number.isFinite(ms) || ms < 0) return '';
  if (ms < 10_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms < 60_000) return `${Math.round(ms / 1000)} s`;
  const s = Math.round(ms / 1000);
  return s < 3600 ? `${Math.floor(s / 60)} min ${s % 60} s` : `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

export function jobsPage(opts: { rows: JobRow[]; keys: Map<string, ApiKeyDoc>; kind?: string | undefined; status?: string | undefined }): SafeHtml {
  return html`<h1>Jobs</h1>
<form method="get" action="/console/jobs" class="row panel" aria-label="Filter jobs">
<div><label for="kind">Kind</label><select id="kind" name="kind"><option value="">all kinds</option>
${JOB_KINDS.map((k) => html`<option value="${k}"${opts.kind === k ? html` selected` : ''}>${k}</option>`)}</select></div>
<div><label for="status">Status</label><select id="status" name="status"><option value="">any status</option>
${JOB_STATUSES.map((s) => html`<option value="${s}"${opts.status === s ? html` selected` : ''}>${s.toLowerCase()}</option>`)}</select></div>
<div><button type="submit">Filter</button></div></form>
${opts.rows.length === 0 ? html`<p class="muted">No jobs${opts.kind || opts.status ? ' match these filters' : ' yet: create a key and call the API'}.</p>` : html`<div class="table-wrap"><table class="stack">
<caption class="skip">Your jobs, newest first</caption>
<thead><tr><th scope="col">Kind</th><th scope="col">Target</th><th scope="col">Status</th><th scope="col">Pages</th><th scope="col">Took</th><th scope="col">Created</th><th scope="col">Key</th></tr></thead><tbody>
${opts.rows.map((r) => html`<tr><td data-label="Kind">${r.kind}</td><td data-label="Target"><a href="/console/jobs/${r.kind}/${r.id}">${r.target}</a></td><td data-label="Status">${statusBadge(r.status)}</td>
<td data-label="Pages">${r.kind === 'map' ? (r.urls !== undefined ? `${r.urls} URLs found` : '') : html`${r.pages.completed}${r.pages.total > 1 || r.kind !== 'scrape' ? ` of ${r.pages.total}` : ''}${r.pages.failed ? html` <span class="muted small">(${r.pages.failed} failed)</span>` : ''}`}</td>
<td data-label="Took">${duration(r.createdAt, r.completedAt) || html`<span class="muted">—</span>`}</td><td data-label="Created">${when(r.createdAt)}</td><td data-label="Key">${opts.keys.get(r.keyId)?.label ?? r.keyId}</td></tr>`)}
</tbody></table></div>`}
<p class="muted small">Maps answer at once; each is listed with the URLs it found (run one in the <a href="/console/playground?tab=map">playground</a>).</p>`;
}

function facts(rows: [string, SafeHtml | string | number | undefined | null][]): SafeHtml {
  return html`<dl class="facts">${rows.filter(([, v]) => v !== undefined && v !== null && v !== '').map(([k, v]) => html`<dt>${k}</dt><dd>${v as SafeHtml | string | number}</dd>`)}</dl>`;
}

function progress(job: LoadedJob, counts: { totalUrls: number; completedUrls: number; failedUrls: number }, running: boolean): SafeHtml {
  // One page: its status says all (never "0 completed · 1 pages" while it runs).
  if (job.kind === 'scrape') {
    return html`<div class="panel" role="status" data-progress-url="/console/jobs/scrape/${job.doc.id}/progress.json"><p>Scraping ${job.doc.url}: <span data-field="status">${job.doc.status.toLowerCase()}</span> <span class="muted small">(the result shows here when it is ready)</span></p></div>`;
  }
  return html`<div class="panel"${running ? html` data-progress-url="/console/jobs/${job.kind}/${job.doc.id}/progress.json"` : ''}>
<p><span data-field="completedUrls">${counts.completedUrls}</span> completed · <span data-field="failedUrls">${counts.failedUrls}</span> failed · <span data-field="totalUrls">${counts.totalUrls}</span> pages${running ? html` · <span data-field="status">${job.doc.status}</span> <span class="muted small">(updates live)</span>` : ''}</p>
<progress max="${Math.max(1, counts.totalUrls)}" value="${counts.completedUrls + counts.failedUrls}" aria-label="pages done">${counts.completedUrls + counts.failedUrls} of ${counts.totalUrls}</progress></div>`;
}

export function jobPage(opts: { baseUrl: string; job: LoadedJob; events: StoredEvent[]; timelineMax: number; counts: { totalUrls: number; completedUrls: number; failedUrls: number }; pages: ResultPage[]; pagesMax: number }): SafeHtml {
  const { job } = opts;
  const running = job.doc.status === 'PENDING' || job.doc.status === 'PROCESSING';
  const head = html`<p><a href="/console/jobs">← Jobs</a></p><h1>${job.kind} job ${statusBadge(job.doc.status)}</h1>`;
  const common: [string, SafeHtml | string | number | undefined][] = [
    ['Id', html`<span class="mono">${job.doc.id}</span>`], ['Key', `${job.key.label} (${job.key.id})`],
    ['Created', when(job.doc.createdAt)], ['Started', 'startedAt' in job.doc && job.doc.startedAt ? when(job.doc.startedAt) : undefined], ['Finished', job.doc.completedAt ? when(job.doc.completedAt) : undefined], ['Took', duration(job.doc.createdAt, job.doc.completedAt) || undefined],
  ];
  let body: SafeHtml;
  if (job.kind === 'scrape') {
    const doc = job.doc;
    const content = doc.content ?? job.source?.content;
    const t = doc.timings ?? job.source?.timings;
    body = html`${facts([['URL', doc.url], ...common, ['From cache', doc.fromCache ? 'yes' : 'no'], ['Attempts', doc.attempts],
      ['Timings', t ? `total ${t.totalMs} ms · queue ${t.queueWaitMs} · fetch ${t.fetchMs} · render ${t.renderMs} · transform ${t.transformMs} · screenshot ${t.screenshotMs}` : undefined],
      ['Title', (doc.metadata ?? job.source?.metadata)?.title]])}
${doc.error ? html`<div class="panel notice bad" role="alert"><p class="err">${doc.error.code}</p><p>${doc.error.message}</p></div>` : ''}
${running ? progress(job, opts.counts, true) : ''}
${content?.screenshot && Date.parse(content.screenshot.expiresAt) > Date.now() ? html`<h2>Screenshot</h2><p><img src="/console/jobs/scrape/${doc.id}/screenshot" alt="Screenshot of ${doc.url}" width="${content.screenshot.width}" height="${content.screenshot.height}" class="shot"></p>` : ''}
${content?.document ? html`<h2>Document</h2><p><a href="/console/jobs/scrape/${doc.id}/document" download>Download the ${content.document.contentType} as served</a> (${content.document.fileSize} bytes, until ${when(content.document.expiresAt)})${docFacts(doc.metadata ?? job.source?.metadata)}</p>` : ''}
<div class="results">
${content?.changeTracking ? changeSection(content.changeTracking) : ''}
${content?.markdown !== undefined ? html`<section><h2>Markdown</h2><div class="rendered">${renderMarkdown(content.markdown)}</div><details><summary>Show the raw markdown (${content.markdown.length} characters)</summary><pre>${content.markdown}</pre></details></section>` : ''}
${content?.html !== undefined ? html`<section><h2>HTML</h2><pre>${content.html}</pre></section>` : ''}
${content?.rawHtml !== undefined ? html`<section><h2>Raw HTML</h2><details><summary>Show the page's HTML (${content.rawHtml.length} characters)</summary><pre>${content.rawHtml}</pre></details></section>` : ''}
${content?.json !== undefined ? html`<section><h2>Extracted JSON</h2><pre>${JSON.stringify(content.json, null, 2)}</pre></section>` : ''}
${content?.links?.length ? html`<section><h2>Links (${content.links.length})</h2><ul class="small">${content.links.slice(0, 200).map((l) => html`<li>${l}</li>`)}</ul></section>` : ''}
</div>
${codeTabs(opts.baseUrl, doc.options.extract ? 'extract' : 'scrape', requestBodyOf(doc.url, doc.options))}`;
  } else if (job.kind === 'map') {
    const doc = job.doc;
    body = html`${facts([['URL', doc.url], ['Search', doc.search], ...common, ['URLs found', doc.count !== undefined ? `${doc.count}${doc.partial ? ' (stopped early: the list may be incomplete)' : ''}` : undefined]])}
${doc.error ? html`<div class="panel notice bad" role="alert"><p class="err">${doc.error.code}</p><p>${doc.error.message}</p></div>` : ''}
${doc.links ? html`<section aria-labelledby="links"><h2 id="links">Links (${doc.links.length})</h2><ol class="small links">${doc.links.map((l) => html`<li>${l}</li>`)}</ol></section>`
    : doc.count ? html`<p class="muted">Too many links to keep here (over 32 KiB): run the map again to get them.</p>` : ''}
${codeTabs(opts.baseUrl, 'map', { url: doc.url, ...(doc.search ? { search: doc.search } : {}) })}`;
  } else if (job.kind === 'crawl') {
    const doc = job.doc;
    body = html`${facts([['Start URL', doc.startUrl], ...common, ['Max depth', doc.maxDepth], ['Limit', doc.limit]])}
${doc.error ? html`<div class="panel notice bad" role="alert"><p>${doc.error.message}</p></div>` : ''}
${progress(job, opts.counts, running)}
${pagesTable('crawl', doc.id, opts.pages, { max: opts.pagesMax, running })}`;
  } else {
    const doc = job.doc;
    body = html`${facts([...common])}
${doc.error ? html`<div class="panel notice bad" role="alert"><p>${doc.error.message}</p></div>` : ''}
${progress(job, opts.counts, running)}
${pagesTable('batch', doc.id, opts.pages, { max: opts.pagesMax, running })}`;
  }
  return html`${head}${body}${timeline(opts.events, opts.timelineMax)}`;
}

/** What a document's metadata says beyond its title (docs/api.md "Documents"). */
function docFacts(m: Record<string, unknown> | undefined): string {
  if (!m) return '';
  const parts = [
    typeof m.author === 'string' ? `by ${m.author}` : '',
    typeof m.pageCount === 'number' ? `${m.pageCount} page${m.pageCount === 1 ? '' : 's'}` : '',
    m.needsOcr === true ? 'no text layer: needs OCR' : '',
  ].filter(Boolean);
  return parts.length ? ` · ${parts.join(' · ')}` : '';
}

/** The changeTracking report of a scrape (docs/api.md "Change tracking"): status, since when, the diff. */
export function changeSection(report: ChangeTrackingReport): SafeHtml {
  const status = report.observed ? report.changeStatus : `not an observation (HTTP ${report.statusCode})`;
  const since = report.previousScrapeAt ? html` since ${when(report.previousScrapeAt)}` : '';
  return html`<section><h2>Change tracking</h2><p><strong>${status}</strong>${since}${report.optionsChanged ? ' (made with other content options)' : ''}</p>
${report.diff !== undefined ? html`<pre>${report.diff}</pre>` : report.diffUnavailable ? html`<p>No diff: ${report.diffUnavailable === 'previous_expired' ? 'the previous version has expired' : 'too large to compute'}.</p>` : ''}</section>`;
}
