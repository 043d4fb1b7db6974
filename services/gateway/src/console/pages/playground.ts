// The playground: one tab per request kind (scrape, crawl, map, batch, extract), each a
// form run as one of the account's keys. A scrape or extract waits for its result before
// it opens the job's page; a crawl or batch opens its job's page, which updates live; a
// map's links are shown here. The same request is shown as code (./code-tabs.ts).
import type { ApiKeyDoc } from '../../../../../shared/src/infra/store/index.js';
import { html, type SafeHtml } from '../html.js';
import { PLAYGROUND_FORMATS, requestOf, type PlaygroundValues } from '../playground-request.js';
import { REQUEST_KINDS, type RequestKind } from '../snippets.js';
import { codeTabs } from './code-tabs.js';

const TAB_LABEL: Record<RequestKind, string> = { scrape: 'Scrape', crawl: 'Crawl', map: 'Map', batch: 'Batch', extract: 'Extract' };
const INTRO: Record<RequestKind, string> = {
  scrape: 'One page, in the formats you pick. The job\'s page opens with the result once it is scraped.',
  crawl: 'A site, following links from the start URL. The crawl\'s page opens and shows its pages as they complete.',
  map: 'A site\'s URLs, from its sitemaps (or by following links). The links are listed here.',
  batch: 'Up to 100 pages at once, one URL a line. The batch\'s page opens and shows its pages as they complete.',
  extract: 'Fields picked out of a page by CSS selectors (docs/api.md "The extract format"). The job\'s page opens with the JSON.',
};
const SUBMIT: Record<RequestKind, string> = { scrape: 'Scrape', crawl: 'Start the crawl', map: 'Map', batch: 'Start the batch', extract: 'Extract' };

const text = (id: string, label: string, value: string, extra: { placeholder?: string; numeric?: boolean; max?: number } = {}): SafeHtml =>
  html`<div><label for="${id}">${label}</label><input id="${id}" name="${id}" type="text"${extra.numeric ? html` inputmode="numeric"` : ''} maxlength="${extra.max ?? 12}"${extra.placeholder ? html` placeholder="${extra.placeholder}"` : ''} value="${value}"></div>`;

function pageOptionFields(v: PlaygroundValues): SafeHtml {
  return html`<fieldset><legend>Formats</legend><div class="actions">${PLAYGROUND_FORMATS.map((f) => html`<label class="check"><input type="checkbox" name="format_${f}"${v.formats.includes(f) ? html` checked` : ''}> ${f}</label>`)}</div></fieldset>
<div class="actions"><label class="check"><input type="checkbox" name="onlyMainContent"${v.onlyMainContent ? html` checked` : ''}> only the main content</label>
<label class="check"><input type="checkbox" name="mobile"${v.mobile ? html` checked` : ''}> mobile</label></div>
<div class="row">${text('waitFor', 'Wait for (ms or CSS selector)', v.waitFor, { max: 500 })}${text('timeout', 'Timeout (ms, 1000–300000)', v.timeout, { numeric: true, placeholder: '30000', max: 6 })}</div>`;
}

function fieldsOf(v: PlaygroundValues): SafeHtml {
  const url = html`<div><label for="url">${v.kind === 'crawl' ? 'Start URL' : 'URL'}</label><input id="url" name="url" type="url" required maxlength="8192" placeholder="https://example.com" value="${v.url}"></div>`;
  switch (v.kind) {
    case 'scrape':
      return html`${url}${pageOptionFields(v)}`;
    case 'extract':
      return html`${url}<div><label for="schema">Extraction schema (JSON)</label><textarea id="schema" name="schema" rows="12" spellcheck="false" aria-describedby="schema-help">${v.schema}</textarea>
<p id="schema-help" class="muted small">Fields by CSS selector: <code>selector</code>, <code>type</code> (text, html, attribute, url, number, boolean, object), <code>list</code>, <code>required</code>; with <code>baseSelector</code> the result is a list, one item per match.</p></div>`;
    case 'crawl':
      return html`${url}<div class="row">${text('limit', 'Most pages (1–1000)', v.limit, { numeric: true, placeholder: '100', max: 4 })}${text('maxDepth', 'Most link hops (1–10)', v.maxDepth, { numeric: true, placeholder: '3', max: 2 })}</div>${pageOptionFields(v)}`;
    case 'map':
      return html`${url}<div class="row">${text('search', 'Search (words every URL must contain)', v.search, { max: 1000 })}${text('limit', 'Most URLs (1–10000)', v.limit, { numeric: true, placeholder: '5000', max: 5 })}</div>`;
    case 'batch':
      return html`<div><label for="urls">URLs, one a line (1–100)</label><textarea id="urls" name="urls" rows="6" required spellcheck="false" placeholder="https://example.com&#10;https://example.org">${v.urls}</textarea></div>${pageOptionFields(v)}`;
  }
}

export interface MapAnswer {
  url: string;
  links: string[];
  count: number;
}

function mapResult(answer: MapAnswer): SafeHtml {
  return html`<section class="panel" aria-labelledby="map-result" data-testid="map-result"><h2 id="map-result">${answer.count} URL${answer.count === 1 ? '' : 's'} on ${answer.url}</h2>
<ol class="small links">${answer.links.slice(0, 1000).map((l) => html`<li>${l}</li>`)}</ol>
${answer.links.length > 1000 ? html`<p class="muted small">The first 1,000 shown.</p>` : ''}</section>`;
}

export function playgroundPage(opts: { csrf: string; keys: ApiKeyDoc[]; values: PlaygroundValues; error?: string | undefined; baseUrl: string; mapped?: MapAnswer | undefined }): SafeHtml {
  const v = opts.values;
  if (opts.keys.length === 0) return html`<h1>Playground</h1><p>Make an API key first: the playground runs requests as one of your keys. <a href="/console/keys">API keys</a></p>`;
  let shown: Record<string, unknown>;
  try { shown = requestOf(v, true); } catch { shown = requestOf({ ...v, limit: '', maxDepth: '', timeout: '' }, true); }
  return html`<h1>Playground</h1>
<nav class="tabs-nav" aria-label="Request kind">${REQUEST_KINDS.map((k) => html`<a href="/console/playground?tab=${k}"${k === v.kind ? html` aria-current="page"` : ''}>${TAB_LABEL[k]}</a>`)}</nav>
<p>${INTRO[v.kind]} It runs as one of your keys and counts like an API request towards the key's quota.</p>
${opts.error ? html`<div class="panel notice bad" role="alert"><p class="err">${opts.error}</p></div>` : ''}
<form method="post" action="/console/playground" class="panel stack wide" data-busy="${v.kind === 'map' ? 'Mapping…' : v.kind === 'scrape' || v.kind === 'extract' ? 'Scraping… the result opens when it is ready' : 'Starting…'}"><input type="hidden" name="_csrf" value="${opts.csrf}"><input type="hidden" name="kind" value="${v.kind}">
${fieldsOf(v)}
<div><label for="key">Run as key</label><select id="key" name="keyId">${opts.keys.map((k) => html`<option value="${k.id}"${k.id === v.keyId ? html` selected` : ''}>${k.label} (${k.id})</option>`)}</select></div>
<div class="actions"><button type="submit">${SUBMIT[v.kind]}</button> <button type="submit" name="preview" value="1" class="secondary" formnovalidate>Show as code</button> <span class="muted small" data-busy-text role="status"></span></div></form>
${opts.mapped ? mapResult(opts.mapped) : ''}
${codeTabs(opts.baseUrl, v.kind, shown)}`;
}
