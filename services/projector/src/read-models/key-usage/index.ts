// Key usage: what each API key is using, for the plan limits the gateway enforces: pages
// fetched this calendar month (the monthly quota), jobs running now (the concurrency limit)
// and pages still committed to running crawls and batches. What counts: see `evolve`.
import type { StoredEvent } from '../../../../../shared/src/domain/events/index.js';
import type { KeyUsageDoc, ReadModelStore } from '../../../../../shared/src/infra/store/index.js';
import type { ReadModel } from '../types.js';
import { FAILING_OUTCOMES } from '../../../../../shared/src/domain/page-outcome/outcome.js';

const OUTCOME_CODES: ReadonlySet<string> = new Set(Object.values(FAILING_OUTCOMES));
const isOutcomeFailure = (code: string): boolean => OUTCOME_CODES.has(code);

export const monthOf = (iso: string): string => iso.slice(0, 7);

function blank(id: string, month: string): KeyUsageDoc {
  return { id, month, pages: 0, activeJobs: {}, lastSeq: 0 };
}

function addPages(doc: KeyUsageDoc, at: string, pages: number): KeyUsageDoc {
  const month = monthOf(at);
  if (month > doc.month) return { ...doc, month, pages };
  if (month < doc.month) return doc; // a late event of an earlier month
  return { ...doc, pages: doc.pages + pages };
}

/**
 * A page given back, in the month the scrape failed (page_failed does not carry when it was
 * requested; a scrape lasts seconds, so only one failing across a month's turn is given back
 * to the new month), never below zero.
 */
function giveBack(doc: KeyUsageDoc, at: string): KeyUsageDoc {
  return monthOf(at) === doc.month ? { ...doc, pages: Math.max(0, doc.pages - 1) } : doc;
}

function start(doc: KeyUsageDoc, jobId: string, at: string): KeyUsageDoc {
  return { ...doc, activeJobs: { ...doc.activeJobs, [jobId]: at } };
}

function without<T>(record: Record<string, T>, key: string): Record<string, T> {
  const { [key]: _, ...rest } = record;
  void _;
  return rest;
}

function finish(doc: KeyUsageDoc, jobId: string): KeyUsageDoc {
  const committed = doc.committedPages ?? {};
  if (!(jobId in doc.activeJobs) && !(jobId in committed)) return doc;
  return { ...doc, activeJobs: without(doc.activeJobs, jobId), committedPages: without(committed, jobId) };
}

function commit(doc: KeyUsageDoc, jobId: string, pages: number): KeyUsageDoc {
  return { ...doc, committedPages: { ...doc.committedPages, [jobId]: pages } };
}

/** One page of a crawl or batch was requested: it moves from committed to used. */
function drawDown(doc: KeyUsageDoc, jobId: string): KeyUsageDoc {
  const left = doc.committedPages?.[jobId];
  return left === undefined ? doc : { ...doc, committedPages: { ...doc.committedPages, [jobId]: Math.max(0, left - 1) } };
}

/**
 * `current` is the key's usage (a blank one for a key never seen), or null when the event is
 * not about usage. Monthly pages (UTC month): every page a browser loads for the key counts 1
 * (a scrape, each crawl or batch page), a map counts 1; cache hits and joined scrapes count 0
 * (spec); a scrape failed as PAGE_CHALLENGE, PAGE_BLOCKED or PAGE_EMPTY is given back.
 * Committed pages are granted when a crawl or batch is accepted, counted down as each page is
 * requested and released when it ends, so two crawls a minute apart cannot both plan the
 * same remaining quota. Page events other than page_requested lack the key: `load` finds it
 * through the job's read model (applied before this one).
 */
export function evolve(current: KeyUsageDoc | null, event: StoredEvent): KeyUsageDoc | null {
  if (!current) return null;
  const doc = { ...current, lastSeq: event.seq };
  switch (event.event) {
    case 'page_requested': {
      const counted = addPages(doc, event.data.requestedAt, event.kind === 'map' ? 0 : 1);
      if (event.kind === 'scrape') return start(counted, event.id, event.data.requestedAt);
      return event.kind === 'crawl' || event.kind === 'batch' ? drawDown(counted, event.id) : counted;
    }
    case 'page_shared':
      return start(doc, event.id, event.data.requestedAt);
    case 'map_requested':
      return addPages(doc, event.data.requestedAt, 1);
    case 'crawl_requested': // its limit was lowered to the quota left when it was accepted
      return commit(start(doc, event.id, event.data.requestedAt), event.id, event.data.limit);
    case 'batch_requested': // a batch scrape is one job, however many pages
      return commit(start(doc, event.id, event.data.requestedAt), event.id, event.data.pages.length);
    case 'page_completed':
      return event.kind === 'scrape' ? finish(doc, event.id) : null;
    case 'page_failed':
      if (event.kind !== 'scrape') return null;
      // A scrape that met a challenge, a block or an empty page is not charged (docs/api.md "Page outcome").
      return isOutcomeFailure(event.data.error?.code ?? '') ? giveBack(finish(doc, event.id), event.data.failedAt) : finish(doc, event.id);
    case 'crawl_finished':
    case 'batch_finished':
      return finish(doc, event.id);
    default:
      return null;
  }
}

async function keyOf(store: ReadModelStore, event: StoredEvent): Promise<string | null> {
  switch (event.event) {
    case 'page_requested':
    case 'page_shared':
    case 'map_requested':
    case 'crawl_requested':
    case 'batch_requested':
      return event.data.apiKeyId;
    case 'page_completed':
    case 'page_failed':
      return event.kind === 'scrape' ? ((await store.scrapeJobs.get(event.id))?.apiKeyId ?? null) : null;
    case 'crawl_finished':
      return (await store.crawlJobs.get(event.id))?.apiKeyId ?? null;
    case 'batch_finished':
      return (await store.batchJobs.get(event.id))?.apiKeyId ?? null;
    default:
      return null;
  }
}

export const keyUsageReadModel: ReadModel<KeyUsageDoc> = {
  name: 'key-usage',
  handles: ['page_requested', 'page_shared', 'map_requested', 'crawl_requested', 'page_completed', 'page_failed', 'crawl_finished', 'batch_requested', 'batch_finished'],
  load: async (store, event) => {
    const keyId = await keyOf(store, event);
    return keyId ? ((await store.keyUsage.get(keyId)) ?? blank(keyId, '')) : null;
  },
  save: (store, doc) => store.keyUsage.put(doc),
  evolve: (doc, event) => evolve(doc, event),
};
