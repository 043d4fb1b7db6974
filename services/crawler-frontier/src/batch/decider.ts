// The batch scrape aggregate as a pure decider, like the crawl's (../crawl/decider.ts):
// `evolve` folds the batch's log events into a state, `decide` turns a command and the
// state into new events. No IO, no clock: the worker passes `now`.
//
// The gateway records batch_requested (its pages already deduplicated) and
// batch_cancel_requested; the page pipeline records page_completed / page_failed. The
// frontier reacts to each of those with one command, `Advance`, which emits what is due:
//   1. a cancelled batch finishes at once (CANCELLED), nothing else is requested;
//   2. a requested batch starts: batch_started queues its pages in request order;
//   3. queued pages are requested while fewer than `maxInFlight` are in flight (so one
//      100-URL batch does not fill the fetchers' queue ahead of everyone else's pages);
//   4. with nothing queued or in flight, the batch finishes: COMPLETED when at least one
//      page completed, FAILED when every page failed.
// Deciding again after a crash or a redelivery yields the same events, which the log
// refuses as duplicates (every event here is appended with `once`).
import type { BatchFinalStatus, BatchRequested } from '../../../../shared/src/events/batch.js';
import { JOB_PART, WEBHOOK_PART, type WebhookEventType } from '../../../../shared/src/events/crawl.js';
import type { EventData, EventName } from '../../../../shared/src/events/index.js';
import { isHttpErrorPage } from '../../../../shared/src/events/page.js';

/** Pages of one batch in flight at once (BATCH_MAX_IN_FLIGHT overrides). */
export const DEFAULT_MAX_IN_FLIGHT = 4;

export type LogEvent = { [N in EventName]: { part: string; event: N; data: EventData<N> } }[EventName];
export type Emitted<N extends EventName = EventName> = { part: string; event: N; data: EventData<N> };

export type BatchStatus = 'NONE' | 'PENDING' | 'PROCESSING' | BatchFinalStatus;

export interface BatchState {
  status: BatchStatus;
  batch: BatchRequested | null;
  /** Pages not requested yet, in request order. */
  queue: readonly { url: string; pageKey: string }[];
  /** Requested, no result yet. */
  inFlight: ReadonlySet<string>;
  completed: number;
  failed: number;
  cancelRequested: boolean;
}

export const initialState = (): BatchState => ({
  status: 'NONE', batch: null, queue: [], inFlight: new Set(), completed: 0, failed: 0, cancelRequested: false,
});

export const isFinished = (s: BatchState): boolean => s.status === 'COMPLETED' || s.status === 'FAILED' || s.status === 'CANCELLED';

/** Page results after a cancel or the end no longer change the batch (counters freeze). */
const frozen = (s: BatchState): boolean => isFinished(s) || s.cancelRequested;

function without(set: ReadonlySet<string>, key: string): Set<string> {
  const copy = new Set(set);
  copy.delete(key);
  return copy;
}

export function evolve(state: BatchState, event: LogEvent): BatchState {
  switch (event.event) {
    case 'batch_requested':
      return state.status === 'NONE' ? { ...state, status: 'PENDING', batch: event.data } : state;
    case 'batch_started':
      if (state.status !== 'PENDING' || !state.batch) return state;
      return { ...state, status: 'PROCESSING', queue: state.batch.pages };
    case 'page_requested': {
      if (!state.queue.some((q) => q.pageKey === event.part)) return state;
      return { ...state, queue: state.queue.filter((q) => q.pageKey !== event.part), inFlight: new Set(state.inFlight).add(event.part) };
    }
    case 'page_completed':
      if (!state.inFlight.has(event.part) || frozen(state)) return state;
      if (isHttpErrorPage(event.data)) return { ...state, inFlight: without(state.inFlight, event.part), failed: state.failed + 1 };
      return { ...state, inFlight: without(state.inFlight, event.part), completed: state.completed + 1 };
    case 'page_failed':
      if (!state.inFlight.has(event.part) || frozen(state)) return state;
      return { ...state, inFlight: without(state.inFlight, event.part), failed: state.failed + 1 };
    case 'batch_cancel_requested':
      return isFinished(state) || state.status === 'NONE' ? state : { ...state, cancelRequested: true };
    case 'batch_finished':
      return { ...state, status: event.data.status };
    default:
      return state;
  }
}

// ---- commands ---------------------------------------------------------------------

export type BatchCommand =
  | { type: 'Advance'; batchId: string }
  /** The frontier could not process the batch (a message it gave up on): end it FAILED. */
  | { type: 'FailBatch'; batchId: string; reason: string };

export interface DecideContext {
  now: Date;
  /** Pages of this batch in flight at once. */
  maxInFlight?: number;
}

export function decide(command: BatchCommand, state: BatchState, ctx: DecideContext): Emitted[] {
  if (state.status === 'NONE' || isFinished(state)) return [];
  const at = ctx.now.toISOString();
  const out: Emitted[] = [];
  let s = state;
  const emit = (e: Emitted): void => {
    out.push(e);
    s = evolve(s, e as LogEvent);
  };
  if (command.type === 'FailBatch') {
    finish(command.batchId, s, 'FAILED', at, emit, command.reason);
    return out;
  }

  if (s.cancelRequested) {
    finish(command.batchId, s, 'CANCELLED', at, emit);
    return out;
  }
  if (s.status === 'PENDING') emit({ part: JOB_PART, event: 'batch_started', data: { startedAt: at } });

  const maxInFlight = ctx.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT;
  const batch = s.batch!;
  while (s.inFlight.size < maxInFlight && s.queue.length > 0) {
    const next = s.queue[0]!;
    emit({
      part: next.pageKey,
      event: 'page_requested',
      data: { url: next.url, options: batch.options, apiKeyId: batch.apiKeyId, depth: 0, requestedAt: at },
    });
  }

  if (s.inFlight.size === 0 && s.queue.length === 0) {
    const allFailed = s.completed === 0;
    finish(command.batchId, s, allFailed ? 'FAILED' : 'COMPLETED', at, emit, allFailed ? `all ${s.failed} pages failed` : undefined);
  }
  return out;
}

function finish(batchId: string, s: BatchState, status: BatchFinalStatus, at: string, emit: (e: Emitted) => void, reason?: string): void {
  const batch = s.batch!;
  const counters = { totalUrls: batch.pages.length, completedUrls: s.completed, failedUrls: s.failed };
  emit({
    part: JOB_PART,
    event: 'batch_finished',
    data: { status, ...counters, ...(reason !== undefined ? { reason } : {}), finishedAt: at },
  });
  if (!batch.webhookUrl) return;
  const type: WebhookEventType = status === 'COMPLETED' ? 'batch.completed' : status === 'FAILED' ? 'batch.failed' : 'batch.cancelled';
  emit({
    part: WEBHOOK_PART,
    event: 'webhook_requested',
    data: {
      url: batch.webhookUrl,
      type,
      body: batchWebhookBody(type, { id: batchId, status, ...counters }, at),
      webhookId: `msg_${batchId}`,
      apiKeyId: batch.apiKeyId,
      requestedAt: at,
    },
  });
}

/** The batch.completed payload: crawl.completed's shape without startUrl (same for failed / cancelled). */
export function batchWebhookBody(
  type: WebhookEventType,
  data: { id: string; status: BatchFinalStatus; totalUrls: number; completedUrls: number; failedUrls: number },
  timestamp: string,
): string {
  return JSON.stringify({
    event: type,
    data: { id: data.id, status: data.status, totalUrls: data.totalUrls, completedUrls: data.completedUrls, failedUrls: data.failedUrls },
    timestamp,
  });
}

/** Folds a history into a state. */
export function rehydrate(events: Iterable<LogEvent>, from: BatchState = initialState()): BatchState {
  let s = from;
  for (const e of events) s = evolve(s, e);
  return s;
}
