// The playground: a URL and the common scrape options as a form, run as one of the
// account's keys; the result opens on the job's page. The equivalent request is shown for
// copying (curl, the SDK, JavaScript, Python), with the key as a variable, never the key itself.
import { SCRAPE_DEFAULTS, type ResolvedScrapeOptions } from '../../../../../shared/src/scrape-options.js';
import type { ApiKeyDoc } from '../../../../../shared/src/store/index.js';
import { html, type SafeHtml } from '../html.js';

export const PLAYGROUND_FORMATS = ['markdown', 'html', 'rawHtml', 'links', 'screenshot', 'changeTracking'] as const;

export interface PlaygroundValues {
  keyId: string;
  url: string;
  formats: string[];
  onlyMainContent: boolean;
  mobile: boolean;
  waitFor: string;
  timeout: string;
}

export const DEFAULT_VALUES: PlaygroundValues = { keyId: '', url: '', formats: ['markdown'], onlyMainContent: true, mobile: false, waitFor: '', timeout: '' };

/** The request body a job's options mean, without the defaults (headers and actions left out: they may hold secrets). */
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
  if (o.changeTrackingTag !== undefined) body.changeTrackingOptions = { tag: o.changeTrackingTag };
  return body;
}

export function snippets(baseUrl: string, body: Record<string, unknown>): SafeHtml {
  const json = JSON.stringify(body);
  const pretty = JSON.stringify(body, null, 2);
  const curl = `curl -s -X POST ${baseUrl}/api/v1/scrape \\\n  -H "Authorization: Bearer $TRAWL_API_KEY" \\\n  -H 'content-type: application/json' \\\n  -d '${json.replace(/'/g, "'\\''")}'`;
  const js = `const res = await fetch('${baseUrl}/api/v1/scrape', {\n  method: 'POST',\n  headers: { authorization: \`Bearer \${process.env.TRAWL_API_KEY}\`, 'content-type': 'application/json' },\n  body: JSON.stringify(${pretty.replace(/\n/g, '\n  ')}),\n});\nconst job = await res.json(); // then GET /api/v1/scrape/\${job.id}?waitMs=60000 until COMPLETED`;
  const { url, ...options } = body;
  const sdkOptions = Object.keys(options).length ? `, ${JSON.stringify(options, null, 2)}` : '';
  const sdk = `import { Trawl } from './dist/clients/sdk/index.js'; // the typed SDK: docs/clients.md\nconst trawl = new Trawl({ apiUrl: '${baseUrl}', apiKey: process.env.TRAWL_API_KEY });\nconst page = await trawl.scrape(${JSON.stringify(url)}${sdkOptions}); // waits for the result`;
  const py = `import os, requests\nres = requests.post('${baseUrl}/api/v1/scrape',\n    headers={'Authorization': f"Bearer {os.environ['TRAWL_API_KEY']}"},\n    json=${pretty.replace(/true/g, 'True').replace(/false/g, 'False').replace(/\n/g, '\n    ')})\njob = res.json()`;
  return html`<h2 id="equivalent">The same request from code</h2>
<p class="muted small">With your key in <code>TRAWL_API_KEY</code> (the console never shows a key again after it is made).</p>
${[['curl', 'snippet-curl', curl], ['Trawl SDK', 'snippet-sdk', sdk], ['JavaScript', 'snippet-js', js], ['Python', 'snippet-py', py]].map(([name, id, code]) => html`<h3>${name}</h3>
<div class="code"><pre id="${id}">${code}</pre><button type="button" class="secondary" data-copy="${id}" hidden>Copy ${name}</button></div>`)}`;
}

export function playgroundPage(opts: { csrf: string; keys: ApiKeyDoc[]; values: PlaygroundValues; error?: string | undefined; baseUrl: string }): SafeHtml {
  const v = opts.values;
  if (opts.keys.length === 0) return html`<h1>Playground</h1><p>Make an API key first: the playground runs scrapes as one of your keys. <a href="/console/keys">API keys</a></p>`;
  const body = { url: v.url || 'https://example.com', ...(v.formats.join() !== 'markdown' ? { formats: v.formats } : {}), ...(v.onlyMainContent ? {} : { onlyMainContent: false }),
    ...(v.mobile ? { mobile: true } : {}), ...(v.waitFor ? { waitFor: /^\d+$/.test(v.waitFor) ? Number(v.waitFor) : v.waitFor } : {}), ...(v.timeout ? { timeout: Number(v.timeout) } : {}) };
  return html`<h1>Playground</h1>
<p>Scrape a page with the options below, as one of your keys (it counts like an API request towards the key's quota). The result opens on the job's page.</p>
${opts.error ? html`<div class="panel notice bad" role="alert"><p class="err">${opts.error}</p></div>` : ''}
<form method="post" action="/console/playground" class="panel stack wide"><input type="hidden" name="_csrf" value="${opts.csrf}">
<div><label for="url">URL</label><input id="url" name="url" type="url" required maxlength="8192" placeholder="https://example.com" value="${v.url}"></div>
<div><label for="key">Run as key</label><select id="key" name="keyId">${opts.keys.map((k) => html`<option value="${k.id}"${k.id === v.keyId ? html` selected` : ''}>${k.label} (${k.id})</option>`)}</select></div>
<fieldset><legend>Formats</legend><div class="actions">${PLAYGROUND_FORMATS.map((f) => html`<label class="check"><input type="checkbox" name="format_${f}"${v.formats.includes(f) ? html` checked` : ''}> ${f}</label>`)}</div></fieldset>
<div class="actions"><label class="check"><input type="checkbox" name="onlyMainContent"${v.onlyMainContent ? html` checked` : ''}> only the main content</label>
<label class="check"><input type="checkbox" name="mobile"${v.mobile ? html` checked` : ''}> mobile</label></div>
<div class="row"><div><label for="waitFor">Wait for (ms or CSS selector)</label><input id="waitFor" name="waitFor" type="text" maxlength="500" value="${v.waitFor}"></div>
<div><label for="timeout">Timeout (ms, 1000–300000)</label><input id="timeout" name="timeout" type="text" inputmode="numeric" maxlength="6" placeholder="30000" value="${v.timeout}"></div></div>
<div><button type="submit">Scrape</button></div></form>
${snippets(opts.baseUrl, body)}`;
}
