// A page whose conditional GET was answered 304 Not Modified (page_fetched.notModified): its
// content is the one of the observation the fetcher named, so nothing is transformed. When
// that page's stored result holds every format asked, it is named, not copied
// (page_completed.reusedResult, shared/src/domain/reused-result.ts): no payload is read or
// written. Otherwise (markdown asked of a result without it: it is in the baseline) the
// formats asked are copied into a result of its own. Either way the page is marked
// `notModified` (metadata and the change-tracking report). docs/api.md "Conditional fetches".
import { NonRetryableError } from '../errors.js';
import type { PageCompleted, PageFetched, PageResultPayload, StoredEvent } from '../events/index.js';
import { contentFormats } from '../conditional-fetch.js';
import { resultStoredAt } from '../reused-result.js';
import type { KnownMarkdown } from './observer.js';
import type { EventLog } from '../../infra/nats/event-log.js';
import { PayloadNotFoundError, type PayloadStore } from '../../infra/nats/payloads.js';
import type { ResolvedScrapeOptions } from '../scrape-options.js';

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
  log: Pick<EventLog, 'last' | 'next'>;
  payloads: Pick<PayloadStore, 'getJson'>;
  baselines: Pick<PayloadStore, 'getText'>;
}

type Basis = NonNullable<PageFetched['notModified']>;
export type Completed = StoredEvent & { event: 'page_completed' };

/** The page_completed of the page a 304's basis names. */
export async function sourcePage(deps: Pick<NotModifiedDeps, 'log'>, basis: Basis): Promise<Completed> {
  const { source } = basis;
  const subject = { kind: source.kind, id: source.jobId, part: source.part, event: 'page_completed' } as const;
  // page_completed is written once, after its page's observation as a rule: looked for after
  // it first (cheap), else (an observation that named an earlier page) the subject's last.
  const completed = await deps.log.next(subject, basis.observationSeq + 1) ?? await deps.log.last(subject);
  if (completed?.event !== 'page_completed') throw gone(`its page ${source.kind}/${source.jobId} has no completed result`);
  return completed;
}

/**
 * Whether the stored result can be named as it is: the basis says which formats it holds
 * (older events do not) and every content format asked is among them (markdown may be only
 * in the baseline, which a result cannot name).
 */
export function reusable(basis: Basis, options: ResolvedScrapeOptions): boolean {
  const held = new Set(basis.formats ?? []);
  return basis.formats !== undefined && basis.markdownHash !== undefined && contentFormats(options).every((f) => held.has(f));
}

/** What a named result's page_completed carries instead of a copy. */
export function reusedResultOf(source: Completed, basis: Basis, options: ResolvedScrapeOptions): { formats: string[]; storedAt: string; source: Basis['source'] } {
  return { formats: contentFormats(options), storedAt: resultStoredAt(source.data), source: basis.source };
}

/** The page's markdown by its hash, read (from its baseline, else its stored result) only when needed. */
export function knownMarkdown(deps: NotModifiedDeps, basis: Basis, source: Completed): KnownMarkdown {
  return {
    hash: basis.markdownHash!,
    ...(basis.baseline ? { bytes: basis.baseline.size } : {}),
    load: async () => {
      const text = basis.baseline ? await readOrNull(() => deps.baselines.getText(basis.baseline!)) : null;
      const markdown = text ?? (await readOrNull(() => deps.payloads.getJson<PageResultPayload>(source.data.result)))?.markdown;
      if (markdown === undefined || markdown === null) throw gone('its stored markdown has expired');
      return markdown;
    },
  };
}

/** The page named by a 304's basis, with the formats `options` asks for (a copy). */
export async function storedPage(deps: NotModifiedDeps, basis: Basis, options: ResolvedScrapeOptions): Promise<StoredPage> {
  const completed = await sourcePage(deps, basis);
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
