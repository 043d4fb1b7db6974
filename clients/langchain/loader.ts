// TrawlLoader: a LangChain.js document loader over the Trawl SDK. One Document per page:
// `pageContent` is the page's markdown, `metadata` its metadata plus `source` (the URL).
// `@langchain/core` is a peer: the application brings its own LangChain.
import { BaseDocumentLoader } from '@langchain/core/document_loaders/base';
import { Document } from '@langchain/core/documents';
import { Trawl, type TrawlOptions } from '../sdk/client.js';
import type { BatchScrapeRequest, CrawlRequest, ScrapeRequest } from '../sdk/types.js';

export type TrawlLoaderParams = TrawlOptions & { client?: Trawl } & (
  | { mode?: 'scrape'; url: string; params?: Omit<ScrapeRequest, 'url' | 'formats'> }
  | { mode: 'crawl'; url: string; params?: Omit<CrawlRequest, 'url'> }
  | { mode: 'batch'; urls: string[]; params?: Omit<BatchScrapeRequest, 'urls' | 'formats'> }
);

interface PageLike {
  url: string;
  status?: string;
  depth?: number;
  markdown?: string;
  metadata?: Record<string, unknown>;
  error?: { code: string; message: string };
}

export class TrawlLoader extends BaseDocumentLoader {
  private readonly trawl: Trawl;

  constructor(private readonly opts: TrawlLoaderParams) {
    super();
    this.trawl = opts.client ?? new Trawl(opts);
  }

  async load(): Promise<Document[]> {
    const docs: Document[] = [];
    for await (const doc of this.lazyLoad()) docs.push(doc);
    return docs;
  }

  /** Documents as pages arrive (a batch's as each finishes); failed and HTTP error pages are left out. */
  async *lazyLoad(): AsyncGenerator<Document> {
    const o = this.opts;
    if (o.mode === 'crawl') {
      const crawl = await this.trawl.crawl(o.url, { ...o.params });
      for await (const page of crawl) yield* toDocument(page);
    } else if (o.mode === 'batch') {
      const batch = await this.trawl.batchScrape(o.urls, { ...o.params, formats: ['markdown'] });
      for await (const page of batch) yield* toDocument(page);
    } else {
      yield* toDocument(await this.trawl.scrape(o.url, { ...o.params, formats: ['markdown'] }));
    }
  }
}

function* toDocument(page: PageLike): Generator<Document> {
  if (page.error || page.status === 'FAILED' || page.status === 'CANCELLED' || page.markdown === undefined) return;
  // A page the server answered with an error status is its error template, not content.
  if (typeof page.metadata?.statusCode === 'number' && page.metadata.statusCode >= 400) return;
  yield new Document({
    pageContent: page.markdown,
    metadata: { ...page.metadata, source: page.url, ...(page.depth !== undefined ? { depth: page.depth } : {}) },
  });
}
