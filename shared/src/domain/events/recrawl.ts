// Recrawls (issue 27, docs/api.md "Recrawl"): a crawl run again with the same request, its
// pages reported as new, same, changed or removed against the crawl it repeats.
//
//   trawl.recrawl.<newCrawlId>.job.recrawl_requested   (gateway, before the new crawl's crawl_requested)
//
// The new crawl itself is an ordinary crawl (crawl_requested and its page events); this
// event only links it to the crawl it repeats, so the report can be made from both.
import { Type, type Static } from '@sinclair/typebox';
import { PayloadRef, Timestamp } from './common.js';

export const RecrawlRequested = Type.Object({
  /** The key whose recrawl it is (the new crawl's key too). */
  apiKeyId: Type.String(),
  /** The crawl it repeats. */
  recrawlOf: Type.String(),
  /** Load every page, even those whose sitemap lastmod says they did not change. */
  revalidate: Type.Boolean(),
  /**
   * The site's sitemap entries read when the recrawl was asked for (not with revalidate):
   * {pages: {<pageKey>: lastmod | null}} in the Object Store; the fetcher skips a page
   * whose lastmod is not newer than its last observation.
   */
  sitemap: Type.Optional(Type.Object({ ref: PayloadRef, urls: Type.Integer({ minimum: 0 }), partial: Type.Boolean() })),
  requestedAt: Timestamp,
});

/** The sitemap document a recrawl_requested names. */
export interface RecrawlSitemap {
  /** Page key (of the normalized URL) -> its <lastmod> as written, or null when it has none. */
  pages: Record<string, string | null>;
}
export type RecrawlRequested = Static<typeof RecrawlRequested>;

export const recrawlEvents = {
  recrawl_requested: RecrawlRequested,
} as const;
