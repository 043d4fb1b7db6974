// Crawl jobs: one document per crawl (status, counters, times) for GET /crawl/:id and the
// caller's crawl list; the lifecycle is the job fold's (../job-fold.ts). A cancel marks
// `frozenAtSeq`, the point after which page results no longer count. While running,
// totalUrls is the number of pages accepted so far and the completed / failed counts come
// from the page documents (crawl-pages); crawl_finished makes them final.
import type { StoredEvent } from '../../../../../shared/src/domain/events/index.js';
import type { CrawlJobDoc } from '../../../../../shared/src/infra/store/index.js';
import { jobFold } from '../job-fold.js';
import { inCollection, type ReadModel } from '../types.js';

const fold = jobFold<CrawlJobDoc>({
  kind: 'crawl',
  create(event) {
    const d = event.data as Extract<StoredEvent, { event: 'crawl_requested' }>['data'];
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
  },
  started: (next) => ({ ...next, totalUrls: 1 }),
  cancelled: (next, event) => ({ ...next, frozenAtSeq: event.seq }),
  finishes: (doc) => !doc.countersFinal,
  finished: (next) => ({ ...next, countersFinal: true }),
  handles: ['crawl_links_discovered', 'crawl_host_blocked'],
  evolve(doc, next, event) {
    switch (event.event) {
      case 'crawl_links_discovered':
        if (doc.countersFinal) return next;
        return { ...next, totalUrls: Math.min(doc.limit, doc.totalUrls + event.data.urls.length) };
      case 'crawl_host_blocked': {
        const { host, refusals, blockedAt } = event.data;
        if (doc.blockedHosts?.some((b) => b.host === host)) return next;
        return { ...next, blockedHosts: [...(doc.blockedHosts ?? []), { host, refusals, blockedAt }] };
      }
      default:
        return next;
    }
  },
});

export const evolve = fold.evolve;

export const crawlJobsReadModel: ReadModel<CrawlJobDoc> = {
  name: 'crawl-jobs',
  handles: fold.handles,
  accepts: (event) => event.kind === 'crawl',
  announcesStatus: true,
  ...inCollection((store) => store.crawlJobs),
  evolve: (doc, event) => evolve(doc, event),
};
