// Crawl jobs: one document per crawl (status, counters, times) for GET /crawl/:id and the
// caller's crawl list. Status: PENDING -> PROCESSING -> COMPLETED | FAILED | CANCELLED.
// A cancel shows at once (CANCELLED, and `frozenAtSeq` marks the point after which page
// results no longer count); crawl_finished, written by the frontier, is authoritative for
// the final status and counters. While running, totalUrls is the number of pages accepted
// so far and the completed / failed counts come from the page documents (crawl-pages).
import type { StoredEvent } from '../../../../../shared/src/events/index.js';
import type { CrawlJobDoc } from '../../../../../shared/src/store/index.js';
import { finishedFields } from '../job-outcome.js';
import type { ReadModel } from '../types.js';

const TERMINAL = new Set(['COMPLETED', 'FAILED', 'CANCELLED']);

export function evolve(doc: CrawlJobDoc | null, event: StoredEvent): CrawlJobDoc | null {
  if (event.event === 'crawl_requested') {
    if (doc) return doc;
    const d = event.data;
    return {
      id: event.id,
      apiKeyId: d.apiKeyId,
      startUrl: d.startUrl,
      status: 'PENDING',
      createdAt: d.requestedAt,
      maxDepth: d.maxDepth,
      limit: d.limit,
      ...(d.webhookUrl ? { webhookUrl: d.webhookUrl } : {}),
      totalUrls: 0,
      completedUrls: 0,
      failedUrls: 0,
      countersFinal: false,
      lastSeq: event.seq,
    };
  }
  if (!doc) return null;
  const next: CrawlJobDoc = { ...doc, lastSeq: event.seq };
  switch (event.event) {
    case 'crawl_started':
      return doc.status === 'PENDING' ? { ...next, status: 'PROCESSING', startedAt: event.data.startedAt, totalUrls: 1 } : next;
    case 'crawl_links_discovered':
      if (doc.countersFinal) return next;
      return { ...next, totalUrls: Math.min(doc.limit, doc.totalUrls + event.data.urls.length) };
    case 'crawl_cancel_requested':
      if (TERMINAL.has(doc.status)) return next;
      return { ...next, status: 'CANCELLED', frozenAtSeq: event.seq, completedAt: event.data.requestedAt };
    case 'crawl_host_blocked': {
      const { host, refusals, blockedAt } = event.data;
      if (doc.blockedHosts?.some((b) => b.host === host)) return next;
      return { ...next, blockedHosts: [...(doc.blockedHosts ?? []), { host, refusals, blockedAt }] };
    }
    case 'crawl_finished': {
      const d = event.data;
      if (doc.countersFinal) return next;
      return { ...next, ...finishedFields(doc, d), countersFinal: true };
    }
    default:
      return next;
  }
}

export const crawlJobsReadModel: ReadModel<CrawlJobDoc> = {
  name: 'crawl-jobs',
  handles: ['crawl_requested', 'crawl_started', 'crawl_links_discovered', 'crawl_cancel_requested', 'crawl_host_blocked', 'crawl_finished'],
  accepts: (event) => event.kind === 'crawl',
  announcesStatus: true,
  load: (store, event) => store.crawlJobs.get(event.id),
  save: (store, doc) => store.crawlJobs.put(doc),
  evolve: (doc, event) => evolve(doc, event),
};
