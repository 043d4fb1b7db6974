// The recrawl report, without IO: each page of the recrawl with its change status against
// the key's last observation of it (the page's own change-tracking report), the pages of the
// crawl it repeats that it no longer reached (removed: no longer linked, nor in the
// sitemap), and the pages it skipped on their sitemap lastmod (unchangedUrls).
import type { CrawlPageDoc } from '../../../../shared/src/infra/store/index.js';
import type { RecrawlReport } from '../../../../shared/src/api/index.js';
import { SITEMAP_LASTMOD } from '../../../../shared/src/domain/conditional-fetch.js';

/** The page fields the report reads. */
export type ReportPage = Pick<CrawlPageDoc, 'pageKey' | 'url' | 'status' | 'changeTracking' | 'metadata'>;

export { SITEMAP_LASTMOD };

export function recrawlReport(
  job: { id: string; recrawlOf: string; status: RecrawlReport['status'] },
  previous: readonly ReportPage[],
  current: readonly ReportPage[],
  /** Page keys the site's sitemap listed when the recrawl was asked for (none read: undefined). */
  inSitemap?: ReadonlySet<string>,
): RecrawlReport {
  const complete = job.status === 'COMPLETED' || job.status === 'FAILED' || job.status === 'CANCELLED';
  const pages: RecrawlReport['pages'] = [];
  const unchangedUrls: string[] = [];
  const failedUrls: string[] = [];
  const unlinkedUrls: string[] = [];
  for (const page of current) {
    if (page.status === 'FAILED') failedUrls.push(page.url);
    if (page.status !== 'COMPLETED') continue;
    const meta = page.metadata as { notModified?: boolean; notModifiedBy?: string } | undefined;
    if (meta?.notModifiedBy === SITEMAP_LASTMOD) {
      unchangedUrls.push(page.url);
      continue;
    }
    const status = page.changeTracking?.changeStatus;
    // Not an observation (an HTTP error other than 404/410): the page is neither same nor changed.
    if (!status) {
      failedUrls.push(page.url);
      continue;
    }
    pages.push({
      url: page.url,
      status,
      ...(meta?.notModified ? { notModified: true } : {}),
      ...(status === 'removed' ? { reason: 'gone' as const } : {}),
    });
  }
  // Only a finished recrawl knows which pages it did not reach. A cancelled one stopped early: it cannot say.
  if (complete && job.status !== 'CANCELLED') {
    const reached = new Set(current.map((p) => p.pageKey));
    for (const page of previous) {
      // A page that was already gone then (404/410) is not removed again.
      const wasThere = (page.metadata?.statusCode ?? 200) < 400 && page.changeTracking?.changeStatus !== 'removed';
      if (page.status !== 'COMPLETED' || !wasThere || reached.has(page.pageKey)) continue;
      // Still in the sitemap: the page is there, only no longer linked.
      if (inSitemap?.has(page.pageKey)) unlinkedUrls.push(page.url);
      else pages.push({ url: page.url, status: 'removed', reason: 'not-linked' });
    }
  }
  const count = (s: string): number => pages.filter((p) => p.status === s).length;
  return {
    id: job.id,
    recrawlOf: job.recrawlOf,
    status: job.status,
    complete,
    pages,
    unchangedUrls,
    unlinkedUrls,
    failedUrls,
    counts: { new: count('new'), same: count('same'), changed: count('changed'), removed: count('removed'), unchanged: unchangedUrls.length, failed: failedUrls.length },
  };
}
