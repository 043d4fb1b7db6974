// An ordered consumer's first create, bounded in time. nats.js names an ordered consumer
// once and, when its create fails, asks again under the same name (up to 30 times, seconds
// apart). nats-server 2.9 places such a one-replica consumer on any of the stream's servers,
// a frozen one included (its routes stay open: test/integration/nats/
// event-log-frozen-server.test.ts saw reads placed there 40 s into a freeze), and a name
// placed there waits for the thaw: each create under it times out. A log read or the
// projector's reader then waited out the whole freeze. Here a consumer not made within
// ORDERED_START_MS is given up (deleted should it be made later) and the caller gets a NATS
// timeout, an outage (outage.ts): it asks for a new consumer, under a new name, placed anew.
import { ErrorCode, NatsError } from 'nats';

/**
 * How long an ordered consumer's create may take before it is given up. A live cluster makes
 * one in milliseconds (none of the chaos drill's took 1.5 s, at load averages of 20); while a
 * server is frozen, about one create in three is placed on it, for as long as it is frozen.
 */
export const ORDERED_START_MS = 2_000;

const LATE = Symbol('late');

/**
 * `starting` (`consumer`'s info() or consume(), whose first call makes it), or a NATS
 * TIMEOUT after `ms`. The consumer given up asks no more after its next failed create
 * (nats.js's limit on a new consumer's attempts, 30, is set to none); a start that ends
 * later is handed to `giveUp` (stop and delete it).
 */
export async function orderedStart<T>(starting: Promise<T>, consumer: object, giveUp: (late: T) => void, ms = ORDERED_START_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<typeof LATE>((resolve) => { timer = setTimeout(() => resolve(LATE), ms); });
  try {
    const first = await Promise.race([starting, late]);
    if (first !== LATE) return first;
  } finally {
    clearTimeout(timer);
  }
  const attempts = consumer as { maxInitialReset?: unknown };
  if (typeof attempts.maxInitialReset === 'number') attempts.maxInitialReset = 0;
  void starting.then(giveUp, () => undefined);
  throw new NatsError(`ordered consumer not made within ${ms} ms`, ErrorCode.Timeout);
}
