// Batch jobs: one document per batch scrape, for GET /batch/scrape/:id and the caller's
// batch list: status, counters, times and every page's state in request order (no
// content: that is in batch-pages). Status: PENDING -> PROCESSING -> COMPLETED | FAILED |
// CANCELLED. A page counts with its first result; a cancel shows at once, freezes the
// counters, and the pages still without a result become CANCELLED (results that arrive
// later do not count, as in the frontier's decider). batch_finished is authoritative for
// the final status and counters.
import type { StoredEvent } from '../../../../../shared/src/events/index.js';
import { isHttpErrorPage } from '../../../../../shared/src/events/page.js';
import type { BatchJobDoc, BatchPageState, BatchPageStatus } from '../../../../../shared/src/store/index.js';
import { finishedFields } from '../job-outcome.js';
import type { ReadModel } from '../types.js';

const TERMINAL = new Set(['COMPLETED', 'FAILED', 'CANCELLED']);
const PAGE_FINAL = new Set<BatchPageStatus>(['COMPLETED', 'FAILED', 'CANCELLED']);

/** Pages without a result when the batch ends are CANCELLED. */
function closePages(pages: BatchPageState[]): BatchPageState[] {
  return pages.map((p) => (PAGE_FINAL.has(p.status) ? p : { ...p, status: 'CANCELLED' }));
}

function updatePage(doc: BatchJobDoc, pageKey: string, change: (p: BatchPageState) => BatchPageState | null): BatchJobDoc | null {
  const index = doc.pages.findIndex((p) => p.pageKey === pageKey);
  if (index < 0) return null;
  const changed = change(doc.pages[index]!);
  if (!changed) return null;
  const pages = doc.pages.slice();
  pages[index] = changed;
  return { ...doc, pages };
}

export function evolve(doc: BatchJobDoc | null, event: StoredEvent): BatchJobDoc | null {
  if (event.event === 'batch_requested') {
    if (doc) return doc;
    const d = event.data;
    return {
      id: event.id,
      apiKeyId: d.apiKeyId,
      status: 'PENDING',
      createdAt: d.requestedAt,
      options: d.options,
      ...(d.webhookUrl ? { webhookUrl: d.webhookUrl } : {}),
      pages: d.pages.map((p) => ({ url: p.url, pageKey: p.pageKey, status: 'PENDING' as const })),
      totalUrls: d.pages.length,
      completedUrls: 0,
      failedUrls: 0,
      lastSeq: event.seq,
    };
  }
  if (!doc) return null;
  const next: BatchJobDoc = { ...doc, lastSeq: event.seq };
  const running = !TERMINAL.has(doc.status);
  switch (event.event) {
    case 'batch_started':
      return doc.status === 'PENDING' ? { ...next, status: 'PROCESSING', startedAt: event.data.startedAt } : next;
    case 'page_started':
      if (!running) return next;
      return updatePage(next, event.part, (p) => (p.status === 'PENDING' ? { ...p, status: 'PROCESSING' } : null)) ?? next;
    case 'page_completed': {
      if (!running) return next;
      const updated = updatePage(next, event.part, (p) => (PAGE_FINAL.has(p.status) ? null : { ...p, status: 'COMPLETED' }));
      if (!updated) return next;
      return isHttpErrorPage(event.data) ? { ...updated, failedUrls: doc.failedUrls + 1 } : { ...updated, completedUrls: doc.completedUrls + 1 };
    }
    case 'page_failed': {
      if (!running) return next;
      const updated = updatePage(next, event.part, (p) => (PAGE_FINAL.has(p.status) ? null : { ...p, status: 'FAILED', error: event.data.error }));
      return updated ? { ...updated, failedUrls: doc.failedUrls + 1 } : next;
    }
    case 'batch_cancel_requested':
      if (!running) return next;
      return { ...next, status: 'CANCELLED', completedAt: event.data.requestedAt, pages: closePages(doc.pages) };
    case 'batch_finished': {
      const d = event.data;
      if (doc.status !== 'CANCELLED' && !running) return next;
      return { ...next, ...finishedFields(doc, d), pages: closePages(doc.pages) };
    }
    default:
      return next;
  }
}

export const batchJobsReadModel: ReadModel<BatchJobDoc> = {
  name: 'batch-jobs',
  handles: ['batch_requested', 'batch_started', 'batch_cancel_requested', 'batch_finished', 'page_started', 'page_completed', 'page_failed'],
  accepts: (event) => event.kind === 'batch',
  announcesStatus: true,
  load: (store, event) => store.batchJobs.get(event.id),
  save: (store, doc) => store.batchJobs.put(doc),
  evolve: (doc, event) => evolve(doc, event),
};
