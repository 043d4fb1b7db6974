// Batch pages: the content of each completed page of a batch scrape (markdown, html,
// rawHtml, links, screenshots as asked by its formats, and metadata), copied from the
// result payload so GET /batch/scrape/:id needs no Object Store read. The first result
// wins. Whether a page counts (not after a cancel) is the batch-jobs document's call.
// Registered before batch-jobs, so a page shows COMPLETED only once its content is stored.
import type { PageResultPayload, StoredEvent } from '../../../../../shared/src/domain/events/index.js';
import { pageResult, resultStoredAt } from '../../../../../shared/src/domain/reused-result.js';
import type { BatchPageDoc, PageContent, ScreenshotInfo } from '../../../../../shared/src/infra/store/index.js';
import { pageContent } from '../job-fold.js';
import type { HydrateDeps, ReadModel } from '../types.js';

export interface BatchPageHydrated {
  content?: PageContent;
}

export function evolve(doc: BatchPageDoc | null, event: StoredEvent, hydrated: BatchPageHydrated = {}): BatchPageDoc | null {
  if (event.event !== 'page_completed') return doc;
  if (doc) return { ...doc, lastSeq: event.seq };
  return {
    batchId: event.id,
    pageKey: event.part,
    content: hydrated.content ?? {},
    metadata: event.data.metadata,
    resultSeq: event.seq,
    lastSeq: event.seq,
  };
}

async function hydrate(event: StoredEvent, deps: HydrateDeps): Promise<BatchPageHydrated> {
  if (event.event !== 'page_completed') return {};
  // A 304's page may name an older page's result (reused-result.ts): its formats and change report are the event's.
  const payload = pageResult(await deps.getJson<PageResultPayload>(event.data.result), event.data);
  // Screenshots live as long as the payloads written when the page was fetched.
  const expiresAt = new Date(Date.parse(resultStoredAt(event.data)) + deps.payloadTtlMs).toISOString();
  const shot = (s: NonNullable<PageResultPayload['screenshot']>): ScreenshotInfo => ({ ...s, expiresAt });
  return {
    content: {
      ...pageContent(payload, expiresAt),
      ...(payload.links !== undefined ? { links: payload.links } : {}),
      ...(payload.screenshot ? { screenshot: shot(payload.screenshot) } : {}),
      ...(payload.actionScreenshots?.length ? { actionScreenshots: payload.actionScreenshots.map(shot) } : {}),
    },
  };
}

export const batchPagesReadModel: ReadModel<BatchPageDoc, BatchPageHydrated> = {
  name: 'batch-pages',
  handles: ['page_completed'],
  accepts: (event) => event.kind === 'batch',
  load: (store, event) => store.getBatchPage(event.id, event.part),
  save: (store, doc) => store.saveBatchPage(doc),
  hydrate,
  evolve,
};
