// The states of one kind of job (crawls, batches) folded from the log by their pure
// `evolve`, each cached with the stream sequence of the last event folded in (bounded, LRU).
//
// load() brings a state up to the event being handled, or to this runner's own last append
// to the aggregate if that is later: a cached one behind it is caught up with the events
// after its sequence up to there by point reads (EventLog.historyAfter, no consumer); one
// already past both is used as it is (a read past it would only learn the log's end, a
// read that misses, with an error built on both sides); one loaded with no event to reach,
// up to the log's end. Own appends count
// because a trigger is often older than the decision just appended (another page finished
// while it was made): a state stopped at the trigger decided that decision again, and the
// log refused each event as a duplicate, a publish and an error answer each. A
// missing one (a restart, another replica, eviction) is rebuilt from the whole history, and so
// is one whose catch-up ends before the event being handled (a gap); a rebuild that still ends
// before it was read from a replica catching up, and is an outage (read again in place). Stopping at the event is
// enough: each later event the decider reacts to is delivered and handled in turn, and a state
// behind the log decides what was due then, which the log refuses as duplicates or a later
// event's decision completes (never more pages in flight: the queue's order is the decider's).
// Finished aggregates are remembered by id only, so their late messages need no read at all.
import type { StoredEvent } from '../../../../shared/src/domain/events/index.js';
import type { EventLog } from '../../../../shared/src/infra/nats/event-log.js';
import { LogBehindError } from '../../../../shared/src/infra/nats/outage.js';
import type { AggregateKind } from '../../../../shared/src/infra/subjects.js';
import { LRUCache } from 'lru-cache';

export interface Folding<S, E> {
  kind: AggregateKind;
  initialState: () => S;
  evolve: (state: S, event: E) => S;
  isFinished: (state: S) => boolean;
}

/** Finished ids remembered (oldest forgotten first). */
const MAX_FINISHED = 10_000;
/** Known sequences kept per aggregate (the oldest dropped first: a read finds what they would confirm). */
const MAX_KNOWN_SEQS = 64;

/** The distinct sequences after `afterSeq` up to `untilSeq`, ascending. */
function knownUpTo(seqs: number[], afterSeq: number, untilSeq: number): number[] {
  return [...new Set(seqs.filter((k) => k > afterSeq && k <= untilSeq))].sort((a, b) => a - b);
}

export class DeciderStates<S, E> {
  /**
   * Per aggregate: its state, the sequence of the last event folded in, of the last one this
   * runner appended, and of the events past it known to be in the log (appended or delivered
   * here), which the catch-up reads at once (EventLog.historyAfter's `knownSeqs`).
   */
  private readonly cache: LRUCache<string, { state: S; lastSeq: number; appendedSeq?: number; knownSeqs?: number[] }>;
  private readonly finished = new LRUCache<string, true>({ max: MAX_FINISHED });

  constructor(private readonly log: EventLog, private readonly folding: Folding<S, E>, maxEntries: number) {
    this.cache = new LRUCache({ max: maxEntries });
  }

  /** True when the aggregate is known to be over (no log read needed). */
  isKnownFinished(id: string): boolean {
    return this.finished.has(id);
  }

  /**
   * The state with every event up to `atLeastSeq` and up to this runner's last append to it
   * folded in (0: every event, up to the log's end).
   */
  async load(id: string, atLeastSeq = 0): Promise<S> {
    const { kind, initialState, evolve, isFinished } = this.folding;
    let cached = this.cache.get(id);
    const target = Math.max(atLeastSeq, atLeastSeq > 0 ? cached?.appendedSeq ?? 0 : 0);
    if (cached && atLeastSeq > 0 && cached.lastSeq >= target) return cached.state;
    const until = cached && target > cached.lastSeq ? target : undefined;
    const known = cached && until !== undefined ? knownUpTo([...(cached.knownSeqs ?? []), atLeastSeq], cached.lastSeq, until) : [];
    let events: StoredEvent[] = cached ? await this.log.historyAfter(kind, id, cached.lastSeq, undefined, until, known) : [];
    // The catch-up ended before the event being handled: rebuild from the whole history.
    if (cached && (events.at(-1)?.seq ?? cached.lastSeq) < target) cached = undefined;
    if (!cached) events = await this.log.history(kind, id);
    let state = cached?.state ?? initialState();
    let lastSeq = cached?.lastSeq ?? 0;
    for (const e of events) {
      if (e.seq <= lastSeq) continue;
      state = evolve(state, e as unknown as E);
      lastSeq = e.seq;
    }
    // Even the whole history stopped short of the event being handled: it was read from a
    // replica still catching up (one restarted or thawed; its ordered consumer or direct gets
    // end at what it has). A decision on that state stood for good when it was the crawl's
    // last trigger: the chaos drill's crawl stood at 183 of 200, its last page_completed
    // decided on a state that still had 6 pages in flight. An outage: read again in place.
    if (lastSeq < target) throw new LogBehindError(`${kind} ${id}: the log read up to ${lastSeq}, short of ${target} (a replica catching up)`);
    if (isFinished(state)) {
      this.cache.delete(id);
      this.finished.set(id, true);
    } else {
      const knownSeqs = cached?.knownSeqs?.filter((k) => k > lastSeq);
      this.cache.set(id, { state, lastSeq, ...(knownSeqs?.length ? { knownSeqs } : {}) });
    }
    return state;
  }

  /** Notes an event this runner appended to the aggregate (its stream sequence): the next load folds it in. */
  appended(id: string, seq: number): void {
    const cached = this.cache.get(id);
    if (!cached) return;
    if (seq > (cached.appendedSeq ?? 0)) cached.appendedSeq = seq;
    this.delivered(id, seq);
  }

  /** Notes an event of the aggregate known to be in the log (delivered here): a catch-up confirms it instead of finding it. */
  delivered(id: string, seq: number): void {
    const cached = this.cache.get(id);
    if (!cached || seq <= cached.lastSeq) return;
    const known = cached.knownSeqs ?? [];
    if (known.length >= MAX_KNOWN_SEQS) known.shift();
    known.push(seq);
    cached.knownSeqs = known;
  }

  /** Drops a cached state (it may lag behind half-appended decisions): the next load rebuilds it. */
  forget(id: string): void {
    this.cache.delete(id);
  }
}
