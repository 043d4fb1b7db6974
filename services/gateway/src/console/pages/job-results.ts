// A crawl's or batch's pages on its job page (a table: URL, status, title, open), one page
// opened (rendered markdown, the raw markdown, extracted JSON, links), and the downloads
// of the whole job (JSON, ZIP of markdown files).
import { html, statusBadge, type SafeHtml } from '../html.js';
import type { ResultPage } from '../job-pages.js';
import { renderMarkdown } from '../markdown-view.js';

export function pagesTable(kind: 'crawl' | 'batch', id: string, pages: ResultPage[], opts: { max: number; running: boolean }): SafeHtml {
  const base = `/console/jobs/${kind}/${id}`;
  const done = pages.filter((p) => p.status === 'COMPLETED').length;
  return html`<section aria-labelledby="pages"><h2 id="pages">Pages (${pages.length}${pages.length >= opts.max ? '+' : ''})</h2>
${done ? html`<p class="actions"><a class="button" href="${base}/pages.zip" download>Download markdown (ZIP)</a> <a class="button secondary-link" href="${base}/pages.json" download>Download JSON</a>
${opts.running ? html`<span class="muted small">the pages done so far</span>` : ''}</p>` : ''}
${pages.length === 0 ? html`<p class="muted">No pages yet.</p>` : html`<div class="table-wrap"><table class="stack"><thead><tr><th scope="col">URL</th><th scope="col">Status</th>${kind === 'crawl' ? html`<th scope="col">Depth</th>` : ''}<th scope="col">Title</th></tr></thead><tbody>
${pages.map((p) => html`<tr><td data-label="URL">${p.status === 'COMPLETED' || p.error ? html`<a href="${base}/pages/${p.pageKey}">${p.url}</a>` : p.url}</td><td data-label="Status">${statusBadge(p.status)}</td>${kind === 'crawl' ? html`<td data-label="Depth">${p.depth ?? ''}</td>` : ''}<td data-label="Title">${p.metadata?.title ?? (p.error ? `${p.error.code}: ${p.error.message}` : '')}</td></tr>`)}
</tbody></table></div>`}</section>`;
}

export function resultPageView(kind: 'crawl' | 'batch', id: string, p: ResultPage): SafeHtml {
  return html`<p><a href="/console/jobs/${kind}/${id}">← the ${kind} job</a></p>
<h1>${p.metadata?.title ?? p.url} ${statusBadge(p.status)}</h1>
<dl class="facts"><dt>URL</dt><dd>${p.url}</dd>${p.metadata?.statusCode !== undefined ? html`<dt>HTTP status</dt><dd>${p.metadata.statusCode}</dd>` : ''}${p.depth !== undefined ? html`<dt>Depth</dt><dd>${p.depth}</dd>` : ''}</dl>
${p.error ? html`<div class="panel notice bad" role="alert"><p class="err">${p.error.code}</p><p>${p.error.message}</p></div>` : ''}
<div class="results">
${p.markdown !== undefined ? html`<section><h2>Markdown</h2><div class="rendered">${renderMarkdown(p.markdown)}</div><details><summary>Show the raw markdown (${p.markdown.length} characters)</summary><pre>${p.markdown}</pre></details></section>` : ''}
${p.json !== undefined ? html`<section><h2>Extracted JSON</h2><pre>${JSON.stringify(p.json, null, 2)}</pre></section>` : ''}
${p.html !== undefined ? html`<section><h2>HTML</h2><details><summary>Show the HTML (${p.html.length} characters)</summary><pre>${p.html}</pre></details></section>` : ''}
${p.links?.length ? html`<section><h2>Links (${p.links.length})</h2><ul class="small">${p.links.slice(0, 200).map((l) => html`<li>${l}</li>`)}</ul></section>` : ''}
</div>`;
}
