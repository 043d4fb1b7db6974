// The read-model fold of a multi-page job (crawl, batch scrape), written once: the job's
// document goes PENDING -> PROCESSING -> COMPLETED | FAILED | CANCELLED. A cancel shows at
// once (CANCELLED; later page results no longer count) and <kind>_finished, written by the
// frontier, is authoritative for the final status and counters; a job cancelled earlier keeps
// the time of its cancel as its completedAt. A kind (crawl-jobs, batch-jobs) says how its
// document is made and what else it folds; crawl-pages and batch-pages share pageContent.
import type { PageResultPayload, StoredEvent } from '../../../../shared/src/domain/events/index.js';
import type { JobFinished, MultiPageKind } from '../../../../shared/src/domain/events/job.js';
import type { PageContent } from '../../../../shared/src/infra/store/index.js';
import type { ReadModel } from './types.js';
import { isFinalStatus } from '../../../../shared/src/api/lifecycle.js';

export const isRunning = (doc: { status: string }): boolean => !isFinalStatus(doc.status);

interface JobDocBase {
  status: string;
  lastSeq: number;
  startedAt?: string;
  completedAt?: string;
  totalUrls: number;
  completedUrls: number;
  failedUrls: number;
  error?: { message: string };
}

export interface JobFold<Doc extends JobDocBase> {
  kind: MultiPageKind;
  /** The document <kind>_requested makes. */
  create(event: StoredEvent): Doc;
  /** Whether <kind>_finished still changes the document (it is applied once). */
  finishes(doc: Doc): boolean;
  /** What the kind adds on a start, a cancel (`next` is CANCELLED already) and the end. */
  started?(next: Doc): Doc;
  cancelled?(next: Doc, event: StoredEvent): Doc;
  finished?(next: Doc): Doc;
  /** The kind's other events (`next` carries the event's sequence). */
  evolve?(doc: Doc, next: Doc, event: StoredEvent): Doc;
  /** The other events it handles. */
  handles: ReadModel<Doc>['handles'];
}

/** The final status and counters of <kind>_finished, the end time and why it failed. */
export function finishedFields(doc: { status: string; completedAt?: string }, d: JobFinished) {
  return {
    status: d.status,
    totalUrls: d.totalUrls,
    completedUrls: d.completedUrls,
    failedUrls: d.failedUrls,
    completedAt: doc.status === 'CANCELLED' && doc.completedAt ? doc.completedAt : d.finishedAt,
    ...(d.status === 'FAILED' && d.reason ? { error: { message: d.reason } } : {}),
  };
}

/** The evolve of a job's document and the events it handles. */
export function jobFold<Doc extends JobDocBase>(fold: JobFold<Doc>) {
  const k = fold.kind;
  const names = { requested: `${k}_requested`, started: `${k}_started`, cancel: `${k}_cancel_requested`, finished: `${k}_finished` };
  const evolve = (doc: Doc | null, event: StoredEvent): Doc | null => {
    if (event.event === names.requested) return doc ?? fold.create(event);
    if (!doc) return null;
    const next: Doc = { ...doc, lastSeq: event.seq };
    switch (event.event) {
      case names.started: {
        if (doc.status !== 'PENDING') return next;
        const started: Doc = { ...next, status: 'PROCESSING', startedAt: (event.data as { startedAt: string }).startedAt };
        return fold.started ? fold.started(started) : started;
      }
      case names.cancel: {
        if (!isRunning(doc)) return next;
        const cancelled: Doc = { ...next, status: 'CANCELLED', completedAt: (event.data as { requestedAt: string }).requestedAt };
        return fold.cancelled ? fold.cancelled(cancelled, event) : cancelled;
      }
      case names.finished: {
        if (!fold.finishes(doc)) return next;
        const finished: Doc = { ...next, ...finishedFields(doc, event.data as JobFinished) };
        return fold.finished ? fold.finished(finished) : finished;
      }
      default:
        return fold.evolve ? fold.evolve(doc, next, event) : next;
    }
  };
  return { evolve, handles: [names.requested, names.started, names.cancel, names.finished, ...fold.handles] as ReadModel<Doc>['handles'] };
}

/** The content every kind's page shows (a batch's adds links and screenshots). */
export type PageContentFields = Pick<PageContent, 'markdown' | 'html' | 'rawHtml' | 'json' | 'changeTracking' | 'document'>;

/** A page's content from its result payload; stored bytes live as long as the page's payloads (`expiresAt`). */
export function pageContent(payload: PageResultPayload, expiresAt: string): PageContentFields {
  return {
    ...(payload.markdown !== undefined ? { markdown: payload.markdown } : {}),
    ...(payload.html !== undefined ? { html: payload.html } : {}),
    ...(payload.rawHtml !== undefined ? { rawHtml: payload.rawHtml } : {}),
    ...(payload.json !== undefined ? { json: payload.json } : {}),
    ...(payload.changeTracking ? { changeTracking: payload.changeTracking } : {}),
    ...(payload.document ? { document: { ...payload.document, expiresAt } } : {}),
  };
}
