// The API keys page: the account's keys (id, label, created, last job, active or revoked),
// a form to make one (the key is shown once, with a copy button), revoke buttons, and the
// webhook signing secret of a key (shown, and rotated through the existing service).
import type { ApiKeyDoc } from '../../../../../shared/src/infra/store/index.js';
import { html, statusBadge, when, type SafeHtml } from '../html.js';
import { shellQuote } from '../snippets.js';
import { welcomePanel, type WelcomeOptions } from './welcome.js';

export interface KeyRow {
  key: ApiKeyDoc;
  lastJobAt: string | null;
}

/** The "Try it" of a new key: it answers with the page's content (waitMs), not a job id. */
export function tryItCurl(baseUrl: string, key: string): string {
  return `curl -s -X POST ${baseUrl}/api/v1/scrape -H ${shellQuote(`Authorization: Bearer ${key}`)} -H 'content-type: application/json' -d ${shellQuote(JSON.stringify({ url: 'https://example.com', waitMs: 60_000 }))}`;
}

export function keysPage(opts: { csrf: string; rows: KeyRow[]; created?: { key: string; label: string } | undefined; error?: string | undefined; baseUrl: string; welcome?: WelcomeOptions | undefined }): SafeHtml {
  return html`<h1>API keys</h1>
${opts.welcome ? welcomePanel(opts.welcome) : ''}
${opts.created ? html`<section class="panel notice good" aria-labelledby="new-key"><h2 id="new-key">Your new key “${opts.created.label}”</h2>
<p>Copy it now: it is shown <strong>only once</strong>. Trawl keeps only its hash.</p>
<div class="secret"><code id="new-key-value">${opts.created.key}</code><button type="button" class="secondary" data-copy="new-key-value" hidden>Copy</button></div>
<p class="small">Try it (answers with the page's markdown once it is scraped, within a minute):</p>
<div class="code"><pre id="try-it">${tryItCurl(opts.baseUrl, opts.created.key)}</pre><button type="button" class="secondary" data-copy="try-it" hidden>Copy the command</button></div></section>` : ''}
${opts.error ? html`<div class="panel notice bad" role="alert"><p class="err">${opts.error}</p></div>` : ''}
<section class="panel" aria-labelledby="create"><h2 id="create">Create a key</h2>
<form method="post" action="/console/keys" class="row"><input type="hidden" name="_csrf" value="${opts.csrf}">
<div><label for="label">Label</label><input id="label" name="label" type="text" maxlength="200" required placeholder="production, laptop…"></div>
<div><button type="submit">Create key</button></div></form></section>
<h2>Your keys</h2>
${opts.rows.length === 0 ? html`<p class="muted">No keys yet.</p>` : html`<div class="table-wrap"><table class="stack"><caption class="skip">Your API keys</caption>
<thead><tr><th scope="col">Label</th><th scope="col">Id</th><th scope="col">Plan</th><th scope="col">Created</th><th scope="col">Last job</th><th scope="col">Status</th><th scope="col"><span class="skip">Actions</span></th></tr></thead><tbody>
${opts.rows.map(({ key, lastJobAt }) => html`<tr><td data-label="Label">${key.label}${key.adoptedAt ? html` <span class="muted small">(from npm start)</span>` : ''}</td><td data-label="Id" class="mono">${key.id}</td><td data-label="Plan">${key.plan}</td><td data-label="Created">${when(key.createdAt)}</td><td data-label="Last job">${when(lastJobAt)}</td>
<td data-label="Status">${key.revokedAt ? html`${statusBadge('revoked')} <span class="small muted">${when(key.revokedAt)}</span>` : statusBadge('active')}</td>
<td data-label="">${key.revokedAt ? '' : html`<div class="actions"><a href="/console/keys/${key.id}/webhook-secret">Webhook secret</a>
<form class="inline" method="post" action="/console/keys/${key.id}/revoke" data-confirm="Revoke the key “${key.label}”? Requests with it will be refused from now on. This cannot be undone.">
<input type="hidden" name="_csrf" value="${opts.csrf}"><button class="danger" type="submit" aria-label="Revoke key ${key.label}">Revoke</button></form></div>`}</td></tr>`)}
</tbody></table></div>`}`;
}

export function webhookSecretPage(opts: { csrf: string; key: ApiKeyDoc; secret: string; generation: number; rotated?: { previousValidUntil: string } | undefined }): SafeHtml {
  return html`<p><a href="/console/keys">← API keys</a></p><h1>Webhook signing secret</h1>
<p>Key <strong>${opts.key.label}</strong> (<span class="mono">${opts.key.id}</span>). Trawl signs the webhooks of this key's crawls and batches with this secret
(Standard Webhooks: <code>webhook-id</code>, <code>webhook-timestamp</code>, <code>webhook-signature</code>).</p>
${opts.rotated ? html`<div class="panel notice good" role="status"><p>Rotated. The previous secret keeps signing too until ${when(opts.rotated.previousValidUntil)}.</p></div>` : ''}
<div class="panel"><p class="small muted">Generation ${opts.generation}</p>
<div class="secret"><code id="webhook-secret">${opts.secret}</code><button type="button" class="secondary" data-copy="webhook-secret" hidden>Copy</button></div></div>
<form method="post" action="/console/keys/${opts.key.id}/webhook-secret/rotate" class="row" data-confirm="Rotate the webhook secret? The current one keeps working for the grace period only.">
<input type="hidden" name="_csrf" value="${opts.csrf}">
<div><label for="grace">Previous secret keeps signing for</label><select id="grace" name="graceSeconds">
<option value="0">no grace period</option><option value="3600">1 hour</option><option value="86400" selected>24 hours</option><option value="604800">7 days</option></select></div>
<div><button type="submit">Rotate secret</button></div></form>`;
}
