// A page answered 304 Not Modified is completed without copying the stored result it stands
// for: its page_completed names that result (`result`) and says, in `reusedResult`, which
// formats of it are this page's, its own change report, and when the result was stored
// (docs/architecture.md "Conditional fetches"). Every reader of a page's result goes
// through `pageResult`, so a reused result reads exactly as a copy would have.
import type { PageCompleted, PageResultPayload } from './events/index.js';

/** The page's result: the stored payload, or for a reused one the formats asked of it, with its own change report. */
export function pageResult(payload: PageResultPayload, completed: Pick<PageCompleted, 'reusedResult'>): PageResultPayload {
  const reused = completed.reusedResult;
  if (!reused) return payload;
  const asked = new Set(reused.formats);
  return {
    ...(asked.has('markdown') && payload.markdown !== undefined ? { markdown: payload.markdown } : {}),
    ...(asked.has('html') && payload.html !== undefined ? { html: payload.html } : {}),
    ...(asked.has('rawHtml') && payload.rawHtml !== undefined ? { rawHtml: payload.rawHtml } : {}),
    ...(asked.has('links') && payload.links !== undefined ? { links: payload.links } : {}),
    ...(asked.has('extract') && 'json' in payload ? { json: payload.json } : {}),
    ...(reused.changeTracking ? { changeTracking: reused.changeTracking } : {}),
  };
}

/** When the page's result payload was stored: its payloads expire PAYLOAD_TTL_MS after it. */
export function resultStoredAt(completed: Pick<PageCompleted, 'reusedResult' | 'completedAt'>): string {
  return completed.reusedResult?.storedAt ?? completed.completedAt;
}
