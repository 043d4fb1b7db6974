// Conditional fetches, the fetcher's part (docs/architecture.md "Conditional fetches"): before
// a page of a scrape, crawl or batch is fetched, the key's last observation of its URL (one
// direct get of its observation subject) says whether the GET can be conditional; the
// engine router sends the validators with the HTTP engine's GET only.
import type { ConditionalBasis } from '../../../shared/src/conditional-fetch.js';
import { conditionalBasis, type BasisLimits } from '../../../shared/src/conditional-fetch.js';
import { historyPart } from '../../../shared/src/change-tracking.js';
import type { PageRequested } from '../../../shared/src/events/index.js';
import type { EventLog } from '../../../shared/src/nats/event-log.js';
import type { AggregateKind } from '../../../shared/src/subjects.js';

/** The job kinds whose pages are observations (and so may be conditional). */
const OBSERVED_KINDS: ReadonlySet<AggregateKind> = new Set(['scrape', 'crawl', 'batch']);

export async function lastObservationBasis(
  log: Pick<EventLog, 'last'>,
  kind: AggregateKind,
  request: Pick<PageRequested, 'url' | 'apiKeyId' | 'options'>,
  now: Date,
  limits: BasisLimits,
): Promise<ConditionalBasis | undefined> {
  const { options } = request;
  // A browser-only request never sends one: no read for it.
  if (!OBSERVED_KINDS.has(kind) || options.conditional === false || options.engine === 'browser') return undefined;
  const part = historyPart(request.url, options.changeTrackingTag);
  const last = await log.last({ kind: 'observation', id: request.apiKeyId, part, event: 'url_observed' });
  if (last?.event !== 'url_observed') return undefined;
  return conditionalBasis({ seq: last.seq, data: last.data }, options, now, limits);
}
