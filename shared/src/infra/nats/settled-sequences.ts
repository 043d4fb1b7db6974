// The stream sequences a worker has settled (acked or termed) lately. nats-server 2.9 can hand
// a pull consumer a message it already settled, as a first delivery: when a redelivery finds
// its pull request gone (expired as the redelivery fell due), the server steps its cursor back
// one message and delivers that one again with a delivery count of 1, while the message it
// meant to redeliver waits out its ack wait (fixed upstream in nats-server 2.10.14:
// nats-io/nats-server#5305 and #5338). The handlers are idempotent, so running such a copy
// does no harm to the log, but it repeats work: a fetcher would ask the site again. A copy of a
// sequence this worker settled is settled again unrun; one that reaches another replica is
// run there and finds its work done.

/** How many settled sequences a worker remembers: far more than a pull batch, a few hundred KB. */
export const SETTLED_SEQUENCES_KEPT = 8_192;

/** A bounded set of stream sequences, the oldest forgotten first. */
export class SettledSequences {
  private readonly seqs = new Set<number>();

  constructor(private readonly capacity = SETTLED_SEQUENCES_KEPT) {}

  add(seq: number): void {
    this.seqs.delete(seq);
    this.seqs.add(seq);
    if (this.seqs.size > this.capacity) this.seqs.delete(this.seqs.values().next().value as number);
  }

  has(seq: number): boolean {
    return this.seqs.has(seq);
  }
}
