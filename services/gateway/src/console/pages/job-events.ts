// A job's event history, collapsed by default and grouped per page: the job's own events
// first, then one group a page (its URL, how many events, the last one), each event's data
// behind its own <details>. A 10-page crawl's page stays short; everything is one click away.
import type { StoredEvent } from '../../../../../shared/src/domain/events/index.js';
import { html, when, type SafeHtml } from '../html.js';

function summary(e: StoredEvent): string {
  const d = e.data as Record<string, unknown>;
  const bits: string[] = [];
  for (const k of ['status', 'statusCode', 'attempt', 'startUrl', 'generation', 'type']) {
    if (typeof d[k] === 'string' || typeof d[k] === 'number') bits.push(`${k} ${d[k]}`);
  }
  const error = d.error as { code?: string; message?: string } | undefined;
  if (error?.code) bits.push(`${error.code}: ${error.message ?? ''}`);
  return bits.join(' · ');
}

export interface EventGroup {
  part: string;
  /** The page's URL (from its events), or null for the job's own events. */
  url: string | null;
  events: StoredEvent[];
}

/** The events by part, in order of first appearance; the job's own group first. */
export function groupEvents(events: StoredEvent[]): EventGroup[] {
  const groups = new Map<string, EventGroup>();
  for (const e of events) {
    let g = groups.get(e.part);
    if (!g) groups.set(e.part, g = { part: e.part, url: null, events: [] });
    g.events.push(e);
    const d = e.data as Record<string, unknown>;
    if (e.part !== 'job' && g.url === null && typeof d.url === 'string') g.url = d.url;
  }
  return [...groups.values()].sort((a, b) => (a.part === 'job' ? -1 : b.part === 'job' ? 1 : 0));
}

function eventList(events: StoredEvent[]): SafeHtml {
  return html`<ol class="timeline">${events.map((e) => html`<li><strong>${e.event}</strong> <span class="muted small">#${e.seq} · ${when(e.occurredAt)}</span>
${summary(e) ? html`<div class="small">${summary(e)}</div>` : ''}
<details><summary class="small">data</summary><pre>${JSON.stringify(e.data, null, 2)}</pre></details></li>`)}</ol>`;
}

export function timeline(events: StoredEvent[], max: number): SafeHtml {
  const groups = groupEvents(events);
  const pages = groups.filter((g) => g.part !== 'job').length;
  return html`<details class="events" id="events"><summary><h2>Event history</h2> <span class="muted small">${events.length} event${events.length === 1 ? '' : 's'}${pages > 1 ? `, ${pages} pages` : ''}</span></summary>
<p class="muted small">From the event log, in order${events.length >= max ? html` (the first ${max}; the API's <code>/events</code> pages through all)` : ''}.</p>
${groups.map((g) => html`<details class="event-group"><summary>${g.part === 'job' ? html`<strong>The job</strong>` : html`<span class="mono small">${g.url ?? g.part}</span>`} <span class="muted small">${g.events.length} event${g.events.length === 1 ? '' : 's'} · last: ${g.events.at(-1)!.event}</span></summary>
${eventList(g.events)}</details>`)}</details>`;
}
