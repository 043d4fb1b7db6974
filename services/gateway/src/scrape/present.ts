// Turns a scrape job read model into the API's JSON. Content appears only once COMPLETED
// and only for the formats that were asked for; the error only on FAILED. Screenshots are
// a URL served by the gateway (same API key) or, with screenshotOptions.response=base64,
// the image itself as a data: URL in `data`.
import type { DocumentInfo, ScrapeJobDoc, ScreenshotInfo } from '../../../../shared/src/infra/store/index.js';
import { screenshotMediaType, type ScrapeJobView } from '../../../../shared/src/api/index.js';

export interface PresentDeps {
  /** URL under which a stored screenshot is served (`index` for action screenshots). */
  screenshotUrl(jobId: string, index?: number): string;
  /** The stored image bytes (for base64 responses). */
  screenshotBytes(shot: ScreenshotInfo): Promise<Uint8Array>;
  /** URL under which a document page's stored bytes are served, and the bytes. */
  documentUrl?(jobId: string): string;
  documentBytes?(doc: DocumentInfo): Promise<Uint8Array>;
}

async function screenshotView(doc: ScrapeJobDoc, shot: ScreenshotInfo, deps: PresentDeps, index?: number) {
  const common = { width: shot.width, height: shot.height, format: shot.format, fileSize: shot.fileSize, expiresAt: shot.expiresAt };
  if (doc.options.screenshot?.response === 'base64') {
    const bytes = await deps.screenshotBytes(shot);
    return { data: `data:${screenshotMediaType(shot.format)};base64,${Buffer.from(bytes).toString('base64')}`, ...common };
  }
  return { url: deps.screenshotUrl(doc.id, index), ...common };
}

/** The content fields of a completed job (also the body of a cache-hit POST). */
export async function presentContent(doc: ScrapeJobDoc, deps: PresentDeps): Promise<Partial<ScrapeJobView>> {
  const view: Partial<ScrapeJobView> = {};
  const c = doc.content ?? {};
  if (c.markdown !== undefined) view.markdown = c.markdown;
  if (c.html !== undefined) view.html = c.html;
  if (c.rawHtml !== undefined) view.rawHtml = c.rawHtml;
  if (c.links !== undefined) view.links = c.links;
  if (c.json !== undefined) view.json = c.json;
  if (c.screenshot) view.screenshot = await screenshotView(doc, c.screenshot, deps);
  if (c.actionScreenshots?.length) {
    view.actions = { screenshots: await Promise.all(c.actionScreenshots.map((s, i) => screenshotView(doc, s, deps, i))) };
  }
  if (c.document && deps.documentUrl) {
    view.document = { url: deps.documentUrl(doc.id), contentType: c.document.contentType, fileSize: c.document.fileSize, expiresAt: c.document.expiresAt };
  }
  if (doc.metadata) view.metadata = doc.metadata;
  if (c.changeTracking) view.changeTracking = c.changeTracking;
  return view;
}

export async function presentScrapeJob(doc: ScrapeJobDoc, deps: PresentDeps): Promise<ScrapeJobView> {
  const view: ScrapeJobView = {
    id: doc.id,
    url: doc.url,
    status: doc.status,
    fromCache: doc.fromCache,
    createdAt: doc.createdAt,
    ...(doc.startedAt ? { startedAt: doc.startedAt } : {}),
    ...(doc.completedAt ? { completedAt: doc.completedAt } : {}),
  };
  if (doc.status === 'COMPLETED') Object.assign(view, await presentContent(doc, deps));
  if (doc.timings) view.timings = doc.timings;
  if (doc.status === 'FAILED' && doc.error) view.error = doc.error;
  return view;
}

/** The spec's cache-hit create response: id, url, fromCache, content, metadata; no status. */
export async function presentCacheHit(doc: ScrapeJobDoc, deps: PresentDeps): Promise<ScrapeJobView> {
  return { id: doc.id, url: doc.url, fromCache: true, ...(await presentContent(doc, deps)) };
}
