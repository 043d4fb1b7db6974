// The extraction library's public API: rendered HTML to markdown, html, links, metadata and
// the extract format's json. Services import this module only, never the files behind it.
export type { ExtractInput, ExtractMetadata, ExtractOptions, ExtractOutput, MetadataExtras } from './types.js';
export { extractPage, firstWorking, type Candidate, type ExtractHooks, type ExtractResult } from './extract-page.js';
export type { PageType } from './page-type.js';
export type { StructuredData } from './structured-data.js';
export type { BlockModel } from './block-model.js';
// DOM readers the transformer's page outcome shares with the extraction.
export { collapsedLength } from './text.js';
export { classOf } from './dom.js';
