// The jobs pages: the account's jobs with kind and status filters, and one job with its
// status, timings, result or error, and its event history from the log as a timeline.
import type { ChangeTrackingReport } from '../../../../../shared/src/change-tracking.js';
import type { StoredEvent } from '../../../../../shared/src/events/index.js';
import type { ApiKeyDoc, CrawlPageDoc } from '../../../../../shared/src/store/index.js';
import { html, statusBadge, when, type SafeHtml } from '../html.js';
import { JOB_KINDS, JOB_STATUSES, type JobRow, type LoadedJob } from '../jobs.js';
import { requestBodyOf, snippets } from './playground.js';
import { renderMarkdown } from '../markdown-view.js';

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
<thead><tr><th scope="col">Kind</th><th scope="col">Target</th><th scope="col">Status</th><th scope="col">Created</th><th scope="col">Key</th></tr></thead><tbody>
${opts.rows.map((r) => html`<tr><td data-label="Kind">${r.kind}</td><td data-label="Target"><a href="/console/jobs/${r.kind}/${r.id}">${r.target}</a></td><td data-label="Status">${statusBadge(r.status)}</td><td data-label="Created">${when(r.createdAt)}</td><td data-label="Key">${opts.keys.get(r.keyId)?.label ?? r.keyId}</td></tr>`)}
</tbody></table></div>`}
<p class="muted small">Map requests answer at once and keep no job document, so they are not listed; each still counts on the Usage page.</p>`;
}

function summary(e: StoredEvent): string {
  const d = e.data as Record<string, unknown>;
  const bits: string[] = [];
  for (const k of ['url', 'finalUrl', 'status', 'statusCode', 'attempt', 'startUrl', 'generation', 'type']) {
    if (typeof d[k] === 'string' || typeof d[k] === 'number') bits.push(`${k} ${d[k]}`);
  }
  const error = d.error as { code?: string; message?: string } | undefined;
  if (error?.code) bits.push(`${error.code}: ${error.message ?? ''}`);
  return bits.join(' · ');
}

export function timeline(events: StoredEvent[], max: number): SafeHtml {
  return html`<h2 id="events">Event history</h2>
<p class="muted small">From the event log, in order${events.length >= max ? html` (the first ${max}; the API's <code>/events</code> pages through all)` : ''}.</p>
<ol class="timeline">${events.map((e) => html`<li><strong>${e.event}</strong> <span class="muted small">#${e.seq} · ${when(e.occurredAt)}${e.part !== 'job' ? html` · part <span class="mono">${e.part}</span>` : ''}</span>
${summary(e) ? html`<div class="small">${summary(e)}</div>` : ''}
<details><summary class="small">data</summary><pre>${JSON.stringify(e.data, null, 2)}</pre></details></li>`)}</ol>`;
}

function facts(rows: [string, SafeHtml | string | number | undefined | null][]): SafeHtml {
  return html`<dl class="facts">${rows.filter(([, v]) => v !== undefined && v !== null && v !== '').map(([k, v]) => html`<dt>${k}</dt><dd>${v as SafeHtml | string | number}</dd>`)}</dl>`;
}

function progress(job: LoadedJob, counts: { totalUrls: number; completedUrls: number; failedUrls: number }, running: boolean): SafeHtml {
  return html`<div class="panel"${running ? html` data-progress-url="/console/jobs/${job.kind}/${job.doc.id}/progress.json"` : ''}>
<p><span data-field="completedUrls">${counts.completedUrls}</span> completed · <span data-field="failedUrls">${counts.failedUrls}</span> failed · <span data-field="totalUrls">${counts.totalUrls}</span> pages${running ? html` · <span data-field="status">${job.doc.status}</span> <span class="muted small">(updates live)</span>` : ''}</p>
<progress max="${Math.max(1, counts.totalUrls)}" value="${counts.completedUrls + counts.failedUrls}" aria-label="pages done">${counts.completedUrls + counts.failedUrls} of ${counts.totalUrls}</progress></div>`;
}

export function jobPage(opts: { baseUrl: string; job: LoadedJob; events: StoredEvent[]; timelineMax: number; counts: { totalUrls: number; completedUrls: number; failedUrls: number }; crawlPages: CrawlPageDoc[] }): SafeHtml {
  const { job } = opts;
  const running = job.doc.status === 'PENDING' || job.doc.status === 'PROCESSING';
  const head = html`<p><a href="/console/jobs">← Jobs</a></p><h1>${job.kind} job ${statusBadge(job.doc.status)}</h1>`;
  const common: [string, SafeHtml | string | number | undefined][] = [
    ['Id', html`<span class="mono">${job.doc.id}</span>`], ['Key', `${job.key.label} (${job.key.id})`],
    ['Created', when(job.doc.createdAt)], ['Started', job.doc.startedAt ? when(job.doc.startedAt) : undefined], ['Finished', job.doc.completedAt ? when(job.doc.completedAt) : undefined],
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
${snippets(opts.baseUrl, requestBodyOf(doc.url, doc.options))}`;
  } else if (job.kind === 'crawl') {
    const doc = job.doc;
    body = html`${facts([['Start URL', doc.startUrl], ...common, ['Max depth', doc.maxDepth], ['Limit', doc.limit]])}
${doc.error ? html`<div class="panel notice bad" role="alert"><p>${doc.error.message}</p></div>` : ''}
${progress(job, opts.counts, running)}
${opts.crawlPages.length ? html`<h2>Pages (first ${opts.crawlPages.length})</h2><div class="table-wrap"><table class="stack"><thead><tr><th scope="col">URL</th><th scope="col">Depth</th><th scope="col">Title</th></tr></thead><tbody>
${opts.crawlPages.map((p) => html`<tr><td data-label="URL">${p.url}</td><td data-label="Depth">${p.depth}</td><td data-label="Title">${p.metadata?.title ?? ''}</td></tr>`)}</tbody></table></div>` : ''}`;
  } else {
    const doc = job.doc;
    body = html`${facts([...common])}
${doc.error ? html`<div class="panel notice bad" role="alert"><p>${doc.error.message}</p></div>` : ''}
${progress(job, opts.counts, running)}
<h2>Pages</h2><div class="table-wrap"><table class="stack"><thead><tr><th scope="col">URL</th><th scope="col">Status</th><th scope="col">Error</th></tr></thead><tbody>
${doc.pages.map((p) => html`<tr><td data-label="URL">${p.url}</td><td data-label="Status">${statusBadge(p.status)}</td><td data-label="Error">${p.error ? `${p.error.code}: ${p.error.message}` : ''}</td></tr>`)}</tbody></table></div>`;
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
