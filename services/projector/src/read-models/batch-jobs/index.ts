// Batch jobs: one document per batch scrape, for GET /batch/scrape/:id and the caller's
// batch list: status, counters, times and every page's state in request order (no content:
// that is in batch-pages); the lifecycle is the job fold's (../job-fold.ts). A page counts
// with its first result; on a cancel or the end the pages still without a result become
// CANCELLED (results that arrive later do not count, as in the frontier's decider).
import type { StoredEvent } from '../../../../../shared/src/domain/events/index.js';
import { isHttpErrorPage } from '../../../../../shared/src/domain/events/page.js';
import type { BatchJobDoc, BatchPageState, BatchPageStatus } from '../../../../../shared/src/infra/store/index.js';
import { isRunning, jobFold } from '../job-fold.js';
import { inCollection, type ReadModel } from '../types.js';

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

const fold = jobFold<BatchJobDoc>({
  kind: 'batch',
  create(event) {
    const d = event.data as Extract<StoredEvent, { event: 'batch_requested' }>['data'];
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
  },
  cancelled: (next) => ({ ...next, pages: closePages(next.pages) }),
  // Once: a running batch, or one a cancel closed (CANCELLED before its batch_finished).
  finishes: (doc) => doc.status === 'CANCELLED' || isRunning(doc),
  finished: (next) => ({ ...next, pages: closePages(next.pages) }),
  handles: ['page_started', 'page_completed', 'page_failed'],
  evolve(doc, next, event) {
    if (!isRunning(doc)) return next;
    switch (event.event) {
      case 'page_started':
        return updatePage(next, event.part, (p) => (p.status === 'PENDING' ? { ...p, status: 'PROCESSING' } : null)) ?? next;
      case 'page_completed': {
        const updated = updatePage(next, event.part, (p) => (PAGE_FINAL.has(p.status) ? null : { ...p, status: 'COMPLETED' }));
        if (!updated) return next;
        return isHttpErrorPage(event.data) ? { ...updated, failedUrls: doc.failedUrls + 1 } : { ...updated, completedUrls: doc.completedUrls + 1 };
      }
      case 'page_failed': {
        const updated = updatePage(next, event.part, (p) => (PAGE_FINAL.has(p.status) ? null : { ...p, status: 'FAILED', error: event.data.error }));
        return updated ? { ...updated, failedUrls: doc.failedUrls + 1 } : next;
      }
      default:
        return next;
    }
  },
});

export const evolve = fold.evolve;

export const batchJobsReadModel: ReadModel<BatchJobDoc> = {
  name: 'batch-jobs',
  handles: fold.handles,
  accepts: (event) => event.kind === 'batch',
  announcesStatus: true,
  ...inCollection((store) => store.batchJobs),
  evolve: (doc, event) => evolve(doc, event),
};
