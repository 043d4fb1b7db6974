// A request shown as code in tabs (curl, the SDK, JavaScript, Python). Without the script
// every snippet is shown under its heading; the script (assets.ts) turns the headings
// into a tab list and shows one snippet at a time.
import { SCRAPE_DEFAULTS, type ResolvedScrapeOptions } from '../../../../../shared/src/domain/scrape-options.js';
import { html, type SafeHtml } from '../html.js';
import { snippetsOf, type RequestKind } from '../snippets.js';

export function codeTabs(baseUrl: string, kind: RequestKind, body: Record<string, unknown>): SafeHtml {
  const snippets = snippetsOf(baseUrl, kind, body);
  return html`<section aria-labelledby="equivalent"><h2 id="equivalent">The same request from code</h2>
<p class="muted small">With your key in <code>TRAWL_API_KEY</code> (the console never shows a key again after it is made). Each returns the result, not just a job id.</p>
<div class="tabs" data-tabs><div role="tablist" aria-label="Language" hidden>${snippets.map((s, i) => html`<button type="button" role="tab" id="tab-${s.id}" aria-controls="panel-${s.id}" aria-selected="${i === 0 ? 'true' : 'false'}"${i === 0 ? '' : html` tabindex="-1"`}>${s.name}</button>`)}</div>
${snippets.map((s) => html`<div role="tabpanel" id="panel-${s.id}" aria-labelledby="tab-${s.id}" class="code"><h3 class="tab-heading">${s.name}</h3><pre id="snippet-${s.id}">${s.code}</pre><button type="button" class="secondary" data-copy="snippet-${s.id}" hidden>Copy ${s.name}</button></div>`)}
</div></section>`;
}

/** The request body a scrape job's options mean, without the defaults (headers and actions left out: they may hold secrets). */
export function requestBodyOf(url: string, o: ResolvedScrapeOptions): Record<string, unknown> {
  const body: Record<string, unknown> = { url };
  if (o.formats.join() !== SCRAPE_DEFAULTS.formats.join()) body.formats = o.formats;
  if (o.onlyMainContent !== SCRAPE_DEFAULTS.onlyMainContent) body.onlyMainContent = o.onlyMainContent;
  if (o.includeTags.length) body.includeTags = o.includeTags;
  if (o.excludeTags.length) body.excludeTags = o.excludeTags;
  if (o.mobile) body.mobile = true;
  if (o.device) body.device = o.device;
  if (o.darkMode) body.darkMode = true;
  if (o.viewport.width !== SCRAPE_DEFAULTS.viewport.width || o.viewport.height !== SCRAPE_DEFAULTS.viewport.height) body.viewport = o.viewport;
  if (o.waitFor !== undefined) body.waitFor = o.waitFor;
  if (o.timeoutMs !== SCRAPE_DEFAULTS.timeoutMs) body.timeout = o.timeoutMs;
  if (o.extract) body.extract = o.extract;
  if (o.changeTrackingTag !== undefined) body.changeTrackingOptions = { tag: o.changeTrackingTag };
  return body;
}
