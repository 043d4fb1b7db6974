// Records a completed page as an observation of its URL by its key, and answers the
// changeTracking format from it (docs/architecture.md "Observations"). Crash-safe: a
// content-addressed baseline, then url_observed appended on the subject's last sequence
// (see `observe`), so a redelivered transform finds its own observation and never appends two.
import { PayloadNotFoundError, type PayloadStore } from '../../infra/nats/payloads.js';
import { AppendConflictError, type EventLog } from '../../infra/nats/event-log.js';
import { makeEvent, type PayloadRef, type UrlObserved } from '../events/index.js';
import { decideChangeStatus, historyPart, observedState, type ChangeTrackingReport } from '../change-tracking.js';
export { pageKeyOf } from '../change-tracking.js';
import { sha256Hex, type IdGenerator } from '../../infra/ids.js';
import { subjectOf } from '../../infra/subjects.js';
import { isObservation, isOwn, nextStep, type PageSource, type StoredObservation } from './chain.js';
import { buildDiff, DIFF_TIMEOUT_MS } from './diff.js';
import type { Validators } from '../conditional-fetch.js';

/** Concurrent observers of one (key, URL) that keep winning before this one gives up (retried by redelivery). */
const MAX_APPEND_ATTEMPTS = 5;

export interface ObserveInput {
  apiKeyId: string;
  /** The URL as requested (normalized; its key names the subject). */
  url: string;
  /** changeTrackingOptions.tag: a history of its own. */
  tag?: string | undefined;
  source: PageSource;
  /** Stream sequence of the page's page_fetched: its own observation can only come after. */
  fetchedSeq: number;
  statusCode: number;
  /** The page's markdown, or (a 304's page) its known hash and a way to read it only if needed. */
  markdown: string | KnownMarkdown;
  /** contentOptionsHash of the request's options. */
  optionsHash: string;
  now: Date;
  /** The subject's last observation, when the caller has just read it (null: none): not read again. */
  last?: StoredObservation | null;
  /** Whether the request asked for the changeTracking format (the report is built only then). */
  wantReport: boolean;
  /** What a later conditional fetch needs (shared/src/domain/conditional-fetch.ts). */
  conditional?: {
    validators?: Validators | undefined;
    resultOptionsHash: string;
    /** The content formats the page's result holds. */
    formats: string[];
    /** The page answered 304: this observation repeats the one its fetch named. */
    notModified?: boolean;
    /** When the result the page completed with was stored, if before now (a reused result). */
    resultStoredAt?: string | undefined;
  };
}

/** Markdown already stored: its hash and size, read only when a baseline or a diff needs it. */
export interface KnownMarkdown {
  hash: string;
  bytes?: number | undefined;
  load: () => Promise<string>;
}

const markdownText = (m: string | KnownMarkdown): Promise<string> => (typeof m === 'string' ? Promise.resolve(m) : m.load());

export interface ObserveOutcome {
  /** Sequence and time of the page's url_observed; absent when the answer was not an observation. */
  seq?: number;
  observedAt?: string;
  report?: ChangeTrackingReport;
}

export interface PageObserverDeps {
  log: EventLog;
  baselines: PayloadStore;
  newId: IdGenerator;
  diffTimeoutMs?: number;
  /** The baselines bucket's TTL (0: none): an unchanged baseline is written again well before it. */
  baselineTtlMs?: number;
}

/** Where a key's observations of a URL (and tag) are appended. */
function observationAt(of: Pick<ObserveInput, 'apiKeyId' | 'url' | 'tag'>) {
  return { kind: 'observation' as const, id: of.apiKeyId, part: historyPart(of.url, of.tag) };
}

/** An unchanged page's baseline is rewritten (renewing its age) at most this often. */
const BASELINE_REFRESH_MAX_MS = 86_400_000;

export class PageObserver {
  constructor(private readonly deps: PageObserverDeps) {}

  // Crash safety, in order: (1) the markdown goes to the baselines bucket under a
  // content-addressed name (<keyId>/<pageKey>/<sha256>.md), so a repeat overwrites the same
  // object and refreshes its age; (2) url_observed is appended with the subject's last
  // sequence as the expected one (one chain per key and URL, no two writers on a link) and a
  // Nats-Msg-Id naming the page; (3) a redelivered transform finds its own observation after
  // its page_fetched and answers from it (chain.ts) instead of appending a second.
  /**
   * The last observation of a key's URL (and tag), for `observe`'s `last`: read while the
   * page is still being transformed, it is not read after. One appended meanwhile by another
   * page makes observe's conditional append fail, and observe then reads it again.
   */
  async lastObservation(of: Pick<ObserveInput, 'apiKeyId' | 'url' | 'tag'>): Promise<StoredObservation | null> {
    return asObservation(await this.deps.log.last({ ...observationAt(of), event: 'url_observed' }));
  }

  async observe(input: ObserveInput): Promise<ObserveOutcome> {
    const { log, baselines } = this.deps;
    const at = observationAt(input);
    const subject = { ...at, event: 'url_observed' };
    let last = input.last !== undefined ? input.last : asObservation(await log.last(subject));
    const state = observedState(input.statusCode);
    if (!state) return input.wantReport ? { report: notObserved(last, input.statusCode) } : {};

    const markdownHash = typeof input.markdown === 'string' ? sha256Hex(input.markdown) : input.markdown.hash;
    const markdownBytes = typeof input.markdown === 'string' ? Buffer.byteLength(input.markdown) : input.markdown.bytes;
    const baseline = state === 'present'
      ? (this.freshBaseline(last, markdownHash, input.now) ?? {
        ref: await baselines.putText(`${at.id}/${at.part}/${markdownHash}.md`, await markdownText(input.markdown), 'text/markdown; charset=utf-8'),
        writtenAt: input.now.toISOString(),
      })
      : undefined;
    for (let attempt = 1; ; attempt++) {
      const since = last && last.seq > input.fetchedSeq ? (await log.read(subjectOf(subject), input.fetchedSeq + 1)).filter(isObservation) : [];
      const step = nextStep(input.source, input.fetchedSeq, last, since);
      if (step.kind === 'own') return this.outcome(step.observation, input);
      const data: UrlObserved = {
        apiKeyId: input.apiKeyId,
        url: input.url,
        ...(input.tag !== undefined ? { tag: input.tag } : {}),
        source: input.source,
        observedAt: input.now.toISOString(),
        statusCode: input.statusCode,
        state,
        ...(state === 'present' ? { markdownHash, ...(markdownBytes !== undefined ? { markdownBytes } : {}) } : {}),
        ...(baseline ? { baseline: baseline.ref, baselineWrittenAt: baseline.writtenAt } : {}),
        optionsHash: input.optionsHash,
        changeStatus: decideChangeStatus(step.previous, { state, markdownHash }),
        ...(step.previous ? { previous: step.previous } : {}),
        ...conditionalFields(input.conditional),
      };
      const event = makeEvent('url_observed', at, data, { eventId: this.deps.newId(), now: input.now });
      try {
        const msgId = `${subjectOf(subject)}:${input.source.kind}.${input.source.jobId}.${input.source.part}`;
        const appended = await log.append(event, { expectedLastSubjectSequence: step.expectedLastSeq, msgId });
        if (!appended.duplicate) return this.outcome({ ...event, seq: appended.seq }, input);
        // A duplicate is this page's own earlier append (its Nats-Msg-Id), at the sequence the
        // server answers with: found even when it is older than `fetchedSeq` says.
        const own = asObservation(await log.atSeq(appended.seq));
        if (own && isOwn(own, input.source)) return this.outcome(own, input);
      } catch (err) {
        if (!(err instanceof AppendConflictError) || attempt >= MAX_APPEND_ATTEMPTS) throw err;
      }
      last = asObservation(await log.last(subject));
    }
  }

  /**
   * The last observation's baseline when it holds this very markdown and was written
   * recently: the object is there (content-addressed, the same name), so the write, the
   * larger part of an observation's cost, is skipped. It is still rewritten once in a
   * while, so a page that never changes keeps its baseline alive.
   */
  private freshBaseline(last: StoredObservation | null, markdownHash: string, now: Date): { ref: PayloadRef; writtenAt: string } | undefined {
    const ttl = this.deps.baselineTtlMs ?? 0;
    const refreshMs = ttl > 0 ? Math.min(BASELINE_REFRESH_MAX_MS, ttl / 2) : BASELINE_REFRESH_MAX_MS;
    const d = last?.data;
    if (!d?.baseline || d.markdownHash !== markdownHash) return undefined;
    const writtenAt = d.baselineWrittenAt ?? d.observedAt;
    return now.getTime() - Date.parse(writtenAt) < refreshMs ? { ref: d.baseline, writtenAt } : undefined;
  }

  private async outcome(observation: StoredObservation, input: ObserveInput): Promise<ObserveOutcome> {
    return { seq: observation.seq, observedAt: observation.data.observedAt, ...(input.wantReport ? { report: await this.report(observation, input.markdown) } : {}) };
  }

  /** The report of an observation; the diff needs the previous markdown from its baseline. */
  async report(observation: StoredObservation, markdown: string | KnownMarkdown): Promise<ChangeTrackingReport> {
    const { data } = observation;
    const previous = data.previous;
    const report: ChangeTrackingReport = {
      observed: true,
      changeStatus: data.changeStatus,
      previousScrapeAt: previous?.observedAt ?? null,
      ...(previous ? { previousJobId: previous.jobId, previousJobKind: previous.jobKind } : {}),
      statusCode: data.statusCode,
      ...(previous?.optionsHash && data.optionsHash ? { optionsChanged: previous.optionsHash !== data.optionsHash } : {}),
    };
    if (data.changeStatus !== 'changed' || !previous) return report;
    const before = previous.baseline ? await this.baselineText(previous.baseline) : null;
    if (before === null) return { ...report, diffUnavailable: 'previous_expired' };
    const diff = buildDiff({ markdown: before, label: previous.observedAt }, { markdown: await markdownText(markdown), label: data.observedAt }, this.deps.diffTimeoutMs ?? DIFF_TIMEOUT_MS);
    return { ...report, ...diff };
  }

  private async baselineText(ref: NonNullable<UrlObserved['baseline']>): Promise<string | null> {
    try {
      return await this.deps.baselines.getText(ref);
    } catch (err) {
      if (err instanceof PayloadNotFoundError) return null;
      throw err;
    }
  }
}

function conditionalFields(c: ObserveInput['conditional']): Partial<UrlObserved> {
  if (!c) return {};
  return {
    ...(c.validators ? { validators: c.validators } : {}),
    resultOptionsHash: c.resultOptionsHash,
    formats: c.formats,
    ...(c.notModified ? { notModified: true as const } : {}),
    ...(c.resultStoredAt ? { resultStoredAt: c.resultStoredAt } : {}),
  };
}

function asObservation(event: Awaited<ReturnType<EventLog['last']>>): StoredObservation | null {
  return isObservation(event) ? event : null;
}

/** An answer that is not an observation (HTTP 5xx, 403, 429...): the last observation stays the baseline. */
function notObserved(last: StoredObservation | null, statusCode: number): ChangeTrackingReport {
  return {
    observed: false,
    previousScrapeAt: last?.data.observedAt ?? null,
    ...(last ? { previousJobId: last.data.source.jobId, previousJobKind: last.data.source.kind } : {}),
    statusCode,
  };
}
