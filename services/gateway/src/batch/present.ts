// Turns a batch's documents into the API's page entries. Content appears only on
// COMPLETED pages and only for the formats that were asked for; the error only on FAILED
// ones. Screenshots are a URL served by the gateway (same API key) under the page's index
// in `data`, or with screenshotOptions.response=base64 the image itself as a data: URL.
import type { BatchJobDoc, BatchPageDoc, BatchPageState, ScreenshotInfo } from '../../../../shared/src/infra/store/index.js';
import { screenshotMediaType, type BatchPageEntry } from '../../../../shared/src/api/index.js';
import { jsonBytes } from '../json-bytes.js';

export interface BatchPresentDeps {
  /** URL under which a page's stored screenshot is served (`action` for action screenshots). */
  screenshotUrl(batchId: string, pageIndex: number, action?: number): string;
  /** The stored image bytes (for base64 responses). */
  screenshotBytes(shot: ScreenshotInfo): Promise<Uint8Array>;
  /** URL under which a document page's stored bytes are served. */
  documentUrl?(batchId: string, pageIndex: number): string;
}

async function screenshotView(doc: BatchJobDoc, shot: ScreenshotInfo, deps: BatchPresentDeps, pageIndex: number, action?: number) {
  const common = { width: shot.width, height: shot.height, format: shot.format, fileSize: shot.fileSize, expiresAt: shot.expiresAt };
  if (doc.options.screenshot?.response === 'base64') {
    const bytes = await deps.screenshotBytes(shot);
    return { data: `data:${screenshotMediaType(shot.format)};base64,${Buffer.from(bytes).toString('base64')}`, ...common };
  }
  return { url: deps.screenshotUrl(doc.id, pageIndex, action), ...common };
}

/** One entry of `data`: `page` is the batch document's state, `result` its content (COMPLETED only). */
export async function presentPage(
  doc: BatchJobDoc, page: BatchPageState, pageIndex: number, result: BatchPageDoc | undefined, deps: BatchPresentDeps,
): Promise<BatchPageEntry> {
  const entry: BatchPageEntry = { url: page.url, status: page.status };
  if (page.status === 'COMPLETED' && result) {
    const c = result.content;
    if (c.markdown !== undefined) entry.markdown = c.markdown;
    if (c.html !== undefined) entry.html = c.html;
    if (c.rawHtml !== undefined) entry.rawHtml = c.rawHtml;
    if (c.links !== undefined) entry.links = c.links;
    if (c.json !== undefined) entry.json = c.json;
    if (c.screenshot) entry.screenshot = await screenshotView(doc, c.screenshot, deps, pageIndex);
    if (c.actionScreenshots?.length) {
      entry.actions = { screenshots: await Promise.all(c.actionScreenshots.map((s, i) => screenshotView(doc, s, deps, pageIndex, i))) };
    }
    if (c.changeTracking) entry.changeTracking = c.changeTracking;
    if (c.document && deps.documentUrl) {
      entry.document = { url: deps.documentUrl(doc.id, pageIndex), contentType: c.document.contentType, fileSize: c.document.fileSize, expiresAt: c.document.expiresAt };
    }
    entry.metadata = result.metadata;
  }
  if (page.status === 'FAILED' && page.error) entry.error = page.error;
  return entry;
}

/** Bytes an entry adds to a response (for the per-response size bound). */
export function entryBytes(result: BatchPageDoc | undefined): number {
  if (!result) return 256;
  const c = result.content;
  return Buffer.byteLength(c.markdown ?? '') + Buffer.byteLength(c.html ?? '') + Buffer.byteLength(c.rawHtml ?? '') + jsonBytes(c.json) + Buffer.byteLength(c.changeTracking?.diff ?? '')
    + (c.links ?? []).reduce((n, l) => n + l.length + 3, 0) + 512;
}
