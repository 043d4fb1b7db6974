// Turns a scrape job read model into the API's JSON. Content appears only once COMPLETED
// and only for the formats that were asked for; the error only on FAILED.
import type { ScrapeJobDoc, ScreenshotInfo } from '../../../../shared/src/store/index.js';
import type { ScrapeJobView } from './schemas.js';

export interface PresentDeps {
  /** URL under which a stored screenshot is served. */
  screenshotUrl(jobId: string, shot: ScreenshotInfo, index?: number): string;
}

function screenshotView(doc: ScrapeJobDoc, shot: ScreenshotInfo, deps: PresentDeps, index?: number) {
  return {
    url: deps.screenshotUrl(doc.id, shot, index),
    width: shot.width,
    height: shot.height,
    format: shot.format,
    fileSize: shot.fileSize,
    expiresAt: shot.expiresAt,
  };
}

export function presentScrapeJob(doc: ScrapeJobDoc, deps: PresentDeps): ScrapeJobView {
  const view: ScrapeJobView = {
    id: doc.id,
    url: doc.url,
    status: doc.status,
    fromCache: doc.fromCache,
    createdAt: doc.createdAt,
    ...(doc.startedAt ? { startedAt: doc.startedAt } : {}),
    ...(doc.completedAt ? { completedAt: doc.completedAt } : {}),
  };
  if (doc.status === 'COMPLETED') {
    const c = doc.content ?? {};
    if (c.markdown !== undefined) view.markdown = c.markdown;
    if (c.html !== undefined) view.html = c.html;
    if (c.rawHtml !== undefined) view.rawHtml = c.rawHtml;
    if (c.links !== undefined) view.links = c.links;
    if (c.screenshot) view.screenshot = screenshotView(doc, c.screenshot, deps);
    if (c.actionScreenshots?.length) {
      view.actions = { screenshots: c.actionScreenshots.map((s, i) => screenshotView(doc, s, deps, i)) };
    }
    if (doc.metadata) view.metadata = doc.metadata;
  }
  if (doc.timings) view.timings = doc.timings;
  if (doc.status === 'FAILED' && doc.error) view.error = doc.error;
  return view;
}
