// A page whose conditional GET was answered 304 Not Modified (page_fetched.notModified): its
// content is the one of the observation the fetcher named, so nothing is transformed. The
// stored result of the page that made that observation gives the formats asked (markdown
// also comes from its baseline), and the result is marked `notModified` (metadata and
// the change-tracking report). docs/api.md "Conditional fetches".
import { NonRetryableError } from '../../../../shared/src/domain/errors.js';
import type { PageCompleted, PageFetched, PageResultPayload } from '../../../../shared/src/domain/events/index.js';
import type { EventLog } from '../../../../shared/src/infra/nats/event-log.js';
import { PayloadNotFoundError, type PayloadStore } from '../../../../shared/src/infra/nats/payloads.js';
import type { ResolvedScrapeOptions } from '../../../../shared/src/domain/scrape-options.js';

/**
 * The stored page is gone. The fetcher only sends validators while the stored result and
 * markdown are at most half their lifetime old, so this needs an operator to have shortened
 * PAYLOAD_TTL_MS or BASELINE_TTL_MS meanwhile; the same page would be gone again: final.
 */
export class StoredPageGoneError extends NonRetryableError {
  readonly code = 'NETWORK_ERROR' as const;
}

export interface StoredPage {
  /** The content fields asked for, from the stored result (markdown always, for the observation). */
  payload: PageResultPayload & { markdown: string };
  metadata: PageCompleted['metadata'];
  links: string[];
  /** The status the page answered when it was loaded (a 304 has none of its own). */
  statusCode: number;
}

export interface NotModifiedDeps {
  log: Pick<EventLog, 'last'>;
  payloads: Pick<PayloadStore, 'getJson'>;
  baselines: Pick<PayloadStore, 'getText'>;
}

/** The page named by a 304's basis, with the formats `options` asks for. */
export async function storedPage(deps: NotModifiedDeps, basis: NonNullable<PageFetched['notModified']>, options: ResolvedScrapeOptions): Promise<StoredPage> {
  const { source } = basis;
  const completed = await deps.log.last({ kind: source.kind, id: source.jobId, part: source.part, event: 'page_completed' });
  if (completed?.event !== 'page_completed') throw gone(`its page ${source.kind}/${source.jobId} has no completed result`);
  const stored = await readOrNull(() => deps.payloads.getJson<PageResultPayload>(completed.data.result));
  if (!stored) throw gone('its stored result has expired');
  const markdown = stored.markdown ?? (basis.baseline ? await readOrNull(() => deps.baselines.getText(basis.baseline!)) : null);
  if (markdown === null) throw gone('its stored markdown has expired');
  const asked = new Set(options.formats);
  const payload: StoredPage['payload'] = {
    markdown,
    ...(asked.has('html') && stored.html !== undefined ? { html: stored.html } : {}),
    ...(asked.has('rawHtml') && stored.rawHtml !== undefined ? { rawHtml: stored.rawHtml } : {}),
    ...(asked.has('links') ? { links: stored.links ?? completed.data.links } : {}),
    ...(asked.has('extract') && 'json' in stored ? { json: stored.json } : {}),
  };
  return {
    payload,
    metadata: { ...completed.data.metadata, notModified: true },
    links: completed.data.links,
    statusCode: completed.data.metadata.statusCode ?? 200,
  };
}

function gone(why: string): StoredPageGoneError {
  return new StoredPageGoneError(`the page answered 304 Not Modified but ${why}; load it again with "conditional": false`);
}

async function readOrNull<T>(read: () => Promise<T>): Promise<T | null> {
  try {
    return await read();
  } catch (err) {
    if (err instanceof PayloadNotFoundError) return null;
    throw err;
  }
}
