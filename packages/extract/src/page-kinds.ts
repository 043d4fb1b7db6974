// The seven page kinds of metadata.pageType (WCXB's page types), apart from page-type.ts so
// that the files page-type.ts reads (page-features.ts, front-page.ts) can name them.
export type PageType = 'article' | 'documentation' | 'service' | 'forum' | 'listing' | 'product' | 'collection';
export const PAGE_TYPES: readonly PageType[] = ['article', 'documentation', 'service', 'forum', 'listing', 'product', 'collection'];
