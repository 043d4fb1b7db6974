// The API reference, rendered from the gateway's own OpenAPI document (/openapi.json), so
// it is always the API this server runs: each operation with its parameters, body fields
// and responses.
import { html, type SafeHtml } from '../html.js';

type Schema = { type?: string | string[]; description?: string; properties?: Record<string, Schema>; required?: string[]; enum?: unknown[]; items?: Schema; default?: unknown; minimum?: number; maximum?: number; anyOf?: Schema[]; const?: unknown; $ref?: string };
interface Operation { summary?: string; parameters?: { name: string; in: string; required?: boolean; schema?: Schema; description?: string }[]; requestBody?: { content?: Record<string, { schema?: Schema }> }; responses?: Record<string, { description?: string }> }
export interface OpenApiDoc { info?: { title?: string; version?: string }; paths?: Record<string, Record<string, Operation>> }

function typeOf(s: Schema | undefined): string {
  if (!s) return '';
  if (s.enum) return s.enum.map((v) => JSON.stringify(v)).join(' | ');
  if (s.const !== undefined) return JSON.stringify(s.const);
  if (s.anyOf) return s.anyOf.map(typeOf).join(' | ');
  if (s.type === 'array') return `${typeOf(s.items)}[]`;
  return Array.isArray(s.type) ? s.type.join(' | ') : s.type ?? 'object';
}

function fields(schema: Schema | undefined): SafeHtml {
  const props = Object.entries(schema?.properties ?? {});
  if (props.length === 0) return html``;
  return html`<div class="table-wrap"><table class="small"><thead><tr><th scope="col">Field</th><th scope="col">Type</th><th scope="col">Notes</th></tr></thead><tbody>
${props.map(([name, s]) => html`<tr><td class="mono">${name}${schema?.required?.includes(name) ? html` <strong title="required">*</strong>` : ''}</td><td class="mono">${typeOf(s)}</td>
<td>${s.description ?? ''}${s.default !== undefined ? html` <span class="muted">default ${JSON.stringify(s.default)}</span>` : ''}${s.minimum !== undefined || s.maximum !== undefined ? html` <span class="muted">range ${s.minimum ?? '…'}–${s.maximum ?? '…'}</span>` : ''}</td></tr>`)}</tbody></table></div>`;
}

export function apiPage(doc: OpenApiDoc, baseUrl: string): SafeHtml {
  const ops = Object.entries(doc.paths ?? {}).flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ path, method, op })));
  return html`<h1>API reference</h1>
<p>${doc.info?.title ?? 'Trawl API'} ${doc.info?.version ?? ''}. Every request needs <code>Authorization: Bearer &lt;API_KEY&gt;</code>; errors are RFC 7807 problem documents.
The machine-readable document: <a href="/openapi.json">/openapi.json</a>. Base URL: <code>${baseUrl}</code>.</p>
<nav aria-label="Operations" class="panel small"><ul>${ops.map((o, i) => html`<li><a href="#op-${i}"><span class="method">${o.method.toUpperCase()}</span> ${o.path}</a></li>`)}</ul></nav>
${ops.map((o, i) => html`<details class="api-op" id="op-${i}"><summary><span class="method">${o.method.toUpperCase()}</span> <code>${o.path}</code> — ${o.op.summary ?? ''}</summary>
${o.op.parameters?.length ? html`<h3>Parameters</h3><div class="table-wrap"><table class="small"><thead><tr><th scope="col">Name</th><th scope="col">In</th><th scope="col">Type</th><th scope="col">Notes</th></tr></thead><tbody>
${o.op.parameters.map((p) => html`<tr><td class="mono">${p.name}${p.required ? html` <strong title="required">*</strong>` : ''}</td><td>${p.in}</td><td class="mono">${typeOf(p.schema)}</td><td>${p.description ?? p.schema?.description ?? ''}${p.schema?.default !== undefined ? html` <span class="muted">default ${JSON.stringify(p.schema.default)}</span>` : ''}</td></tr>`)}</tbody></table></div>` : ''}
${o.op.requestBody ? html`<h3>Request body</h3>${fields(o.op.requestBody.content?.['application/json']?.schema)}` : ''}
<h3>Responses</h3><ul class="small">${Object.entries(o.op.responses ?? {}).map(([code, r]) => html`<li><strong>${code}</strong> ${r.description ?? ''}</li>`)}</ul></details>`)}`;
}
