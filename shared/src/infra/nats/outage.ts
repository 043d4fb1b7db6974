// Which failures are NATS being briefly unreachable rather than the work failing: a request
// that timed out or found no responder (a stream or consumer electing a new leader, a
// server cut off from its peers), a dropped connection. The same work succeeds once the
// cluster has a leader again, so a worker runs it again in place (worker.ts) instead of
// counting the attempt towards giving the message up. Only the NATS client's own errors
// count: a site's "503 Service Temporarily Unavailable" is an answer about the page.
import { ErrorCode, NatsError } from 'nats';

const OUTAGE_CODES = new Set(['503', 'TIMEOUT', 'DISCONNECT', 'CONNECTION_REFUSED', 'CONNECTION_TIMEOUT', '408']);
const OUTAGE_MESSAGE = /no responders|temporarily unavailable|no suitable peers|leader not found/i;

/** Whether `err` (or an error it wraps) is the NATS client saying NATS is unavailable for now. */
export function isNatsOutage(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e instanceof NatsError && (OUTAGE_CODES.has(e.code) || OUTAGE_MESSAGE.test(e.message))) return true;
  }
  return false;
}

/**
 * A read of the log that ended before an event known to be there (a replica still catching
 * up answered it): a NATS timeout to its caller, so an outage, read again in place.
 */
export class LogBehindError extends NatsError {
  constructor(message: string) {
    super(message, ErrorCode.Timeout);
    this.name = 'LogBehindError';
  }
}
