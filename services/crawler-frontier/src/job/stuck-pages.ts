// Which of a job's pages in flight wait for a message that no consumer will hand out again
// (pure: the sweep, redrive-sweep.ts, reads the inputs). nats-server 2.9 can let a message
// go for good around a consumer leader change: a message delivered to a client that did not
// take it (a pull that had ended), whose delivery the next leader never learnt of, is
// skipped once an ack of a later message reaches that leader (nats-io/nats-server#6469,
// #6566; fixed in 2.10/2.11). The page's step then never comes, and a crawl with every
// in-flight page so lost stands still, silent (the chaos drill after a thaw: 91 of 200).
//
// A message is let go of when its consumer's ack floor has passed it: everything at or
// below the floor is acked, terminated, or skipped. Every consumer here appends its step
// before it acks (a fetcher's page_fetched or page_failed, the transformer's page_completed
// or page_failed), so a page whose message is below the floor read before its steps, with
// no step after that message, lost it. A message still pending (delivered, not acked;
// redelivered after its ack wait) is above the floor and never judged lost.

/** One page in flight as the log has it. */
export interface PageInFlight {
  part: string;
  /** The page's latest event: its name, stream sequence and when it happened (ms). */
  latest: { event: string; seq: number; at: number };
  /** The stream sequence of the page's page_requested. */
  requestedSeq: number;
}

/** The ack floors (stream sequences) of the consumers a page goes through, read before the pages. */
export interface AckFloors {
  /** The fetcher's lane of the job's kind (page_requested). */
  fetch: number;
  /** The transformer (page_fetched). */
  transform: number;
}

export interface Redrive {
  part: string;
  consumer: keyof AckFloors;
  /** The stream sequence of the message to handle again. */
  seq: number;
}

/**
 * The pages whose message their consumer let go of without their step in the log, idle at
 * least `minIdleMs` (a margin: a lost message is never found sooner than that).
 */
export function stuckPages(pages: readonly PageInFlight[], floors: AckFloors, now: number, minIdleMs: number): Redrive[] {
  const out: Redrive[] = [];
  for (const { part, latest, requestedSeq } of pages) {
    if (now - latest.at < minIdleMs) continue;
    // Requested, or claimed by a fetcher (page_started) whose delivery then went back: the fetcher's message.
    if ((latest.event === 'page_requested' || latest.event === 'page_started') && floors.fetch >= requestedSeq) {
      out.push({ part, consumer: 'fetch', seq: requestedSeq });
    } else if (latest.event === 'page_fetched' && floors.transform >= latest.seq) {
      out.push({ part, consumer: 'transform', seq: latest.seq });
    }
  }
  return out;
}

/** A job's event as the sweep reads it (a StoredEvent's fields it uses). */
export interface JobLogEvent { part: string; event: string; seq: number; occurredAt: string }

/**
 * The job's pages in flight (`parts`, as its runner holds them) as one read of its events
 * from `readFrom` shows them, and where the next sweep's read may start: the page_requested
 * of the oldest page in flight, since every page in flight then was either in flight now or
 * requested after this read's end. A part whose page_requested the read did not hold (a
 * read answered by a replica still catching up ends short) is left to the next sweep, which
 * then reads the whole history, to be sure whatever the reason.
 */
export function inFlightFromEvents(events: readonly JobLogEvent[], parts: readonly string[], readFrom: number): { pages: PageInFlight[]; readFrom: number } {
  const wanted = new Set(parts);
  const latest = new Map<string, JobLogEvent>();
  const requested = new Map<string, number>();
  for (const e of events) {
    if (!wanted.has(e.part)) continue;
    latest.set(e.part, e);
    if (e.event === 'page_requested') requested.set(e.part, e.seq);
  }
  const pages: PageInFlight[] = [];
  for (const part of parts) {
    const last = latest.get(part);
    const requestedSeq = requested.get(part);
    if (!last || requestedSeq === undefined) continue;
    pages.push({ part, latest: { event: last.event, seq: last.seq, at: Date.parse(last.occurredAt) }, requestedSeq });
  }
  if (pages.length < parts.length) return { pages, readFrom: 1 };
  if (pages.length) return { pages, readFrom: Math.min(...pages.map((p) => p.requestedSeq)) };
  return { pages, readFrom: Math.max(readFrom, (events.at(-1)?.seq ?? 0) + 1) };
}
