// A multi-page job (crawl, batch scrape) as one pure decider: `evolve` folds the job's log
// events into a state, `decide` turns a command and the state into new events. No IO, no
// clock: the runner (runner.ts) passes `now`. What differs between crawl and batch is a
// policy (crawl/decider.ts, batch/decider.ts): where pages come from, what a result adds to
// the state, when the job is done and what its webhook says.
import { JOB_PART, WEBHOOK_PART, type JobFinalStatus, type MultiPageKind } from '../../../../shared/src/domain/events/job.js';
import type { EventData, EventName } from '../../../../shared/src/domain/events/index.js';
import { isHttpErrorPage } from '../../../../shared/src/domain/events/page.js';
import type { ResolvedScrapeOptions } from '../../../../shared/src/domain/scrape-options.js';

/** Pages of one job loading at once (CRAWL_MAX_IN_FLIGHT / BATCH_MAX_IN_FLIGHT override). */
export const DEFAULT_MAX_IN_FLIGHT = 4;

/**
 * Pages of one job requested and not yet finished (loading or being transformed): twice the
 * pages loading. The transformer is the longer stage of an HTTP-engine page, so letting the
 * next pages load while the last ones are transformed keeps both busy, without letting a job
 * pile up fetched pages in front of a slower transformer.
 */
export const maxUnfinished = (maxInFlight: number): number => 2 * maxInFlight;

/** An event as the decider sees it: the subject part, the name and the data. */
export type LogEvent = { [N in EventName]: { part: string; event: N; data: EventData<N> } }[EventName];
export type Emitted<N extends EventName = EventName> = { part: string; event: N; data: EventData<N> };

export type JobStatus = 'NONE' | 'PENDING' | 'PROCESSING' | JobFinalStatus;

export interface QueuedPage {
  pageKey: string;
  url: string;
  depth: number;
}

/** What every multi-page job holds; a policy's state adds its own fields beside these. */
export interface JobState<Request> {
  status: JobStatus;
  request: Request | null;
  /** Accepted, not yet requested, in order. */
  queue: readonly QueuedPage[];
  /** Requested, no result yet: key -> depth. */
  inFlight: ReadonlyMap<string, number>;
  /** Pages of inFlight already fetched (page_fetched): no longer loading, being transformed. */
  fetched: ReadonlySet<string>;
  completed: number;
  failed: number;
  cancelRequested: boolean;
}

export const jobState = <R>(): JobState<R> => ({
  status: 'NONE', request: null, queue: [], inFlight: new Map(), fetched: new Set(), completed: 0, failed: 0, cancelRequested: false,
});

/** A page's result as the policy sees it (after the job has counted it). */
export type PageResult =
  | { pageKey: string; depth: number; ok: true; event: EventData<'page_completed'> }
  | { pageKey: string; depth: number; ok: false; errorPage: boolean; event: EventData<'page_completed'> | EventData<'page_failed'> };

export type JobCommand =
  | { type: 'Advance'; jobId: string }
  /** The frontier could not process the job (a message it gave up on): end it FAILED. */
  | { type: 'Fail'; jobId: string; reason: string };

export interface DecideContext {
  now: Date;
  /** Pages of this job loading at once (twice as many may be unfinished, see maxUnfinished). */
  maxInFlight?: number;
}

type Emit = (e: Emitted) => void;

export interface JobPolicy<R extends JobRequest, S extends JobState<R>, C extends DecideContext = DecideContext> {
  kind: MultiPageKind;
  initialState(): S;
  /** The state once <kind>_started is folded in: its first pages queued. */
  start(s: S): S;
  /** A page was requested (taken off the queue). */
  onRequested?(s: S, page: QueuedPage): S;
  /** A page's first result, already counted (before a cancel or the end only). */
  onResult?(s: S, result: PageResult): S;
  /** The policy's own events (and any the job does not fold). */
  evolve?(s: S, e: LogEvent): S;
  /** The policy's decisions before pages are requested (a crawl's link verdicts and host blocks). */
  decide?(jobId: string, s: S, ctx: C, emit: Emit, at: string): void;
  /** The next queued page that may be asked for now (default: the first). */
  nextRequestable?(s: S): QueuedPage | undefined;
  /** True while the policy still has work of its own (a crawl's pages awaiting link verdicts). */
  busy?(s: S): boolean;
  /** How a job that ran out of pages ends. */
  outcome(s: S): { status: 'COMPLETED' | 'FAILED'; reason?: string };
  /** The scrape options of every page (a crawl's scrapeOptions, a batch's options). */
  pageOptions(r: R): ResolvedScrapeOptions;
  /** The job's totalUrls. */
  totalUrls(s: S): number;
  /** Fields of the webhook body between `status` and the counters (a crawl's startUrl). */
  webhookFields?(r: R): Record<string, unknown>;
}

/** What a job's request holds that the runner needs. */
export interface JobRequest {
  webhookUrl?: string;
  apiKeyId: string;
}

/** The webhook body of a job's end: `{ event, data: { id, status, ...fields, counters }, timestamp }`. */
export function jobWebhookBody(
  type: string,
  data: { id: string; status: JobFinalStatus; totalUrls: number; completedUrls: number; failedUrls: number; startUrl?: string },
  timestamp: string,
): string {
  const { id, status, totalUrls, completedUrls, failedUrls, ...fields } = data;
  return JSON.stringify({ event: type, data: { id, status, ...fields, totalUrls, completedUrls, failedUrls }, timestamp });
}

/** A copy of `map` without `key` (states are immutable). */
export const without = <K, V>(map: ReadonlyMap<K, V>, key: K): Map<K, V> => { const copy = new Map(map); copy.delete(key); return copy; };
const withoutKey = <K>(set: ReadonlySet<K>, key: K): ReadonlySet<K> => {
  if (!set.has(key)) return set;
  const copy = new Set(set);
  copy.delete(key);
  return copy;
};

export const isFinished = (s: JobState<unknown>): boolean => s.status === 'COMPLETED' || s.status === 'FAILED' || s.status === 'CANCELLED';
/** Page results after a cancel or the end no longer change the job (counters freeze). */
const frozen = (s: JobState<unknown>): boolean => isFinished(s) || s.cancelRequested;
/** Pages requested and not yet fetched: the load this job puts on its sites right now. */
export const loadingCount = (s: JobState<unknown>): number => s.inFlight.size - s.fetched.size;

export interface JobDecider<S, C> {
  initialState(): S;
  evolve(s: S, e: LogEvent): S;
  decide(command: JobCommand, s: S, ctx: C): Emitted[];
  isFinished(s: S): boolean;
  rehydrate(events: Iterable<LogEvent>, from?: S): S;
}

export function jobDecider<R extends JobRequest, S extends JobState<R>, C extends DecideContext>(policy: JobPolicy<R, S, C>): JobDecider<S, C> {
  const k = policy.kind;
  const names = { requested: `${k}_requested`, started: `${k}_started`, cancel: `${k}_cancel_requested`, finished: `${k}_finished` };

  type Outcome = PageResult extends infer P ? (P extends PageResult ? Omit<P, 'pageKey' | 'depth'> : never) : never;
  const result = (s: S, pageKey: string, r: Outcome): S => {
    const depth = s.inFlight.get(pageKey);
    if (depth === undefined || frozen(s)) return s;
    const counted = r.ok ? { completed: s.completed + 1 } : { failed: s.failed + 1 };
    const next = { ...s, inFlight: without(s.inFlight, pageKey), fetched: withoutKey(s.fetched, pageKey), ...counted };
    return policy.onResult ? policy.onResult(next, { ...r, pageKey, depth } as PageResult) : next;
  };

  function evolve(s: S, e: LogEvent): S {
    switch (e.event) {
      case names.requested:
        return s.status === 'NONE' ? { ...s, status: 'PENDING', request: e.data as unknown as R } : s;
      case names.started:
        return s.status === 'PENDING' && s.request ? policy.start({ ...s, status: 'PROCESSING' }) : s;
      case 'page_requested': {
        const index = s.queue.findIndex((q) => q.pageKey === e.part);
        if (index < 0) return s;
        const page = s.queue[index]!;
        const next = { ...s, queue: s.queue.filter((_, i) => i !== index), inFlight: new Map(s.inFlight).set(e.part, page.depth) };
        return policy.onRequested ? policy.onRequested(next, page) : next;
      }
      case 'page_fetched':
        if (!s.inFlight.has(e.part) || s.fetched.has(e.part)) return s;
        return { ...s, fetched: new Set(s.fetched).add(e.part) };
      case 'page_completed':
        if (isHttpErrorPage(e.data)) return result(s, e.part, { ok: false, errorPage: true, event: e.data });
        return result(s, e.part, { ok: true, event: e.data });
      case 'page_failed':
        return result(s, e.part, { ok: false, errorPage: false, event: e.data });
      case names.cancel:
        return isFinished(s) || s.status === 'NONE' ? s : { ...s, cancelRequested: true };
      case names.finished:
        return { ...s, status: (e.data as { status: JobFinalStatus }).status };
      default:
        return policy.evolve ? policy.evolve(s, e) : s;
    }
  }

  function finish(jobId: string, s: S, status: JobFinalStatus, at: string, emit: Emit, reason?: string): void {
    const counters = { totalUrls: policy.totalUrls(s), completedUrls: s.completed, failedUrls: s.failed };
    emit({ part: JOB_PART, event: names.finished, data: { status, ...counters, ...(reason !== undefined ? { reason } : {}), finishedAt: at } } as Emitted);
    const request = s.request!;
    if (!request.webhookUrl) return;
    const type = `${k}.${status.toLowerCase()}`;
    emit({
      part: WEBHOOK_PART,
      event: 'webhook_requested',
      data: {
        url: request.webhookUrl,
        type: type as EventData<'webhook_requested'>['type'],
        body: jobWebhookBody(type, { id: jobId, status, ...policy.webhookFields?.(request), ...counters }, at),
        webhookId: `msg_${jobId}`,
        apiKeyId: request.apiKeyId,
        requestedAt: at,
      },
    });
  }

  // `Advance` emits what is due, in order: (1) a cancelled job finishes at once; (2) a
  // requested job starts (the policy gives its first pages); (3) the policy's own decisions
  // (a crawl judges links, blocks hosts); (4) queued pages are requested while fewer than
  // maxInFlight are loading and fewer than maxUnfinished are unfinished; (5) with nothing
  // left, the job finishes and asks for its webhook. "What is due" rather than "react to
  // this event": deciding again after a crash or redelivery yields the same events, which
  // the log refuses as duplicates (appended `once`).
  function decide(command: JobCommand, initial: S, ctx: C): Emitted[] {
    if (initial.status === 'NONE' || isFinished(initial)) return [];
    const at = ctx.now.toISOString();
    const out: Emitted[] = [];
    let s = initial;
    const emit = (e: Emitted): void => { out.push(e); s = evolve(s, e as LogEvent); };
    if (command.type === 'Fail') {
      finish(command.jobId, s, 'FAILED', at, emit, command.reason);
      return out;
    }
    if (s.cancelRequested) {
      finish(command.jobId, s, 'CANCELLED', at, emit);
      return out;
    }
    if (s.status === 'PENDING') emit({ part: JOB_PART, event: names.started, data: { startedAt: at } } as Emitted);
    policy.decide?.(command.jobId, s, ctx, emit, at);

    const maxInFlight = ctx.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT;
    while (loadingCount(s) < maxInFlight && s.inFlight.size < maxUnfinished(maxInFlight)) {
      const next = policy.nextRequestable ? policy.nextRequestable(s) : s.queue[0];
      if (!next) break;
      const request = s.request!;
      emit({ part: next.pageKey, event: 'page_requested', data: { url: next.url, options: policy.pageOptions(request), apiKeyId: request.apiKeyId, depth: next.depth, requestedAt: at } });
    }

    if (s.inFlight.size === 0 && s.queue.length === 0 && !policy.busy?.(s)) {
      const { status, reason } = policy.outcome(s);
      finish(command.jobId, s, status, at, emit, reason);
    }
    return out;
  }

  return {
    initialState: policy.initialState,
    evolve,
    decide,
    isFinished,
    rehydrate(events, from = policy.initialState()) {
      let s = from;
      for (const e of events) s = evolve(s, e);
      return s;
    },
  };
}
