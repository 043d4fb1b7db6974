// Server-rendered HTML with escaping by default: `html` is a tagged template whose
// interpolated values are escaped unless they are themselves `html` (SafeHtml). Arrays
// are joined. Nothing user-supplied reaches the page unescaped.
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

type Value = SafeHtml | string | number | boolean | null | undefined | Value[];

function render(value: Value): string {
  if (value === null || value === undefined || value === false) return '';
  if (Array.isArray(value)) return value.map(render).join('');
  if (value instanceof SafeHtml) return value.value;
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: Value[]): SafeHtml {
  let out = strings[0] ?? '';
  values.forEach((v, i) => { out += render(v) + (strings[i + 1] ?? ''); });
  return new SafeHtml(out);
}

/** A UTC time as people read it: 2026-11-25 03:30:12 UTC. */
export function when(iso: string | undefined | null): SafeHtml {
  if (!iso) return html`<span class="muted">—</span>`;
  return html`<time datetime="${iso}">${iso.replace('T', ' ').replace(/\.\d+Z$|Z$/, '')} UTC</time>`;
}

export function statusBadge(status: string): SafeHtml {
  return html`<span class="badge badge-${status.toLowerCase()}">${status.toLowerCase()}</span>`;
}
