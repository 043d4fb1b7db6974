// The observation chain of one (key, URL), without IO. A transform may run twice for one
// page (redelivery after a crash between appending url_observed and page_completed), so
// before appending it looks for its own observation among those appended after its
// page_fetched: found, it answers from that one (which embeds its real predecessor) and
// appends nothing; otherwise the subject's last observation is the predecessor.
import type { ObservationSummary, StoredEvent, TrawlEvent } from '../events/index.js';

export type StoredObservation = TrawlEvent<'url_observed'> & { seq: number };

export interface PageSource {
  kind: 'scrape' | 'crawl' | 'batch';
  jobId: string;
  part: string;
}

export type ChainStep =
  | { kind: 'own'; observation: StoredObservation }
  | { kind: 'append'; previous: ObservationSummary | undefined; expectedLastSeq: number };

export function isObservation(event: StoredEvent | null | undefined): event is StoredObservation {
  return event?.event === 'url_observed';
}

export function isOwn(observation: StoredObservation, source: PageSource): boolean {
  const s = observation.data.source;
  return s.kind === source.kind && s.jobId === source.jobId && s.part === source.part;
}

/**
 * What to do given the subject's last observation and, when that one is newer than this
 * page's page_fetched (`fetchedSeq`), every observation after it (`since`).
 */
export function nextStep(source: PageSource, fetchedSeq: number, last: StoredObservation | null, since: StoredObservation[]): ChainStep {
  if (last && last.seq > fetchedSeq) {
    const own = since.find((o) => o.seq > fetchedSeq && isOwn(o, source));
    if (own) return { kind: 'own', observation: own };
  }
  return { kind: 'append', previous: last ? summarize(last) : undefined, expectedLastSeq: last?.seq ?? 0 };
}

/** An observation as the next one embeds it. */
export function summarize(o: StoredObservation): ObservationSummary {
  const d = o.data;
  return {
    seq: o.seq,
    observedAt: d.observedAt,
    jobKind: d.source.kind,
    jobId: d.source.jobId,
    statusCode: d.statusCode,
    state: d.state,
    ...(d.markdownHash !== undefined ? { markdownHash: d.markdownHash } : {}),
    ...(d.baseline ? { baseline: d.baseline } : {}),
    ...(d.optionsHash ? { optionsHash: d.optionsHash } : {}),
  };
}
