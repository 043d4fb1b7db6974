// A point read answered by a stream's leader: JetStream's JSON API message get
// (`<prefix>.STREAM.MSG.GET.<stream>`), which follows elections, where a direct get is
// answered by any replica (one catching up, or a frozen one still in the queue group:
// direct-get-failover.ts). Asked by hand rather than through nats.js's `streams.getMessage`,
// which answers a miss by building an error that is thrown and caught (the log's reads miss
// on every page: event-log.ts), and used by both the log's point reads and the direct gets'
// fall-over.
//
// The ask is repeated every LEADER_REASK_MS until the caller's deadline, each ask kept
// waiting to the deadline: a stream whose leader froze elects another within seconds, and
// one ask sent before that election is answered by nobody (it went to the frozen leader),
// so an ask made once with all the time left missed the new leader; a slow leader still
// answers the first ask. A read asked twice changes nothing.
import { createRequire } from 'node:module';
import type { NatsConnection } from 'nats';

/** How often an unanswered leader get is asked again (within the caller's deadline). */
export const LEADER_REASK_MS = 1_000;

/** A message as the API's message get hands it back (base64 data and headers). */
export interface StoredApiMessage { subject: string; seq: number; hdrs?: string; data?: string; time: string }

/** The JSON answer of `STREAM.MSG.GET`. */
export interface LeaderAnswer {
  message?: StoredApiMessage;
  error?: { code: number; err_code?: number; description?: string };
}

/** What nats.js's JetStream manager holds to ask its API (its BaseApiClient's fields, not declared on the interface). */
export interface JsApiClient { nc: NatsConnection; prefix: string; timeout: number }

const require = createRequire(import.meta.url);

/** Whether nats.js's API client sets the fields read by jsApiOf in its constructor (checked once, on load). */
export const jsApiFieldsReady = ((): boolean => {
  try {
    const ctor = (require('nats/lib/jetstream/jsbaseclient_api.js') as { BaseApiClient?: { toString(): string } }).BaseApiClient;
    const source = ctor?.toString() ?? '';
    return ['this.nc = nc', 'this.prefix =', 'this.timeout ='].every((field) => source.includes(field));
  } catch {
    return false;
  }
})();

/** The connection, API prefix and request timeout of a nats.js JetStream manager; throws when it is not that shape. */
export function jsApiOf(jsm: object): JsApiClient {
  const api = jsm as Partial<JsApiClient>;
  if (typeof api.nc?.request !== 'function' || typeof api.prefix !== 'string' || typeof api.timeout !== 'number') {
    throw new Error('this nats.js JetStream manager does not hold nc, prefix and timeout: leaderMessageGet cannot ask its API');
  }
  return api as JsApiClient;
}

const textEncoder = new TextEncoder();
const textDecoder = new TextDecoder();

/** An ask nobody answered in time or nobody took (no responders): asked again while time is left. */
const unanswered = (err: unknown): boolean => {
  const code = (err as { code?: string })?.code;
  return code === 'TIMEOUT' || code === '503';
};

/**
 * Asks `stream`'s leader for one message (`query`: `seq`, `last_by_subj`, or `seq` with
 * `next_by_subj`), again every LEADER_REASK_MS while unanswered, until `timeoutMs` has
 * passed; resolves with the first answer (an `error` in it is the server's: no message,
 * no leader yet). Rejects with the NATS client's error (TIMEOUT, no responders) when no ask
 * was answered in time, or at once with any other.
 */
export function leaderMessageGet(nc: Pick<NatsConnection, 'request'>, stream: string, query: Record<string, unknown>, timeoutMs: number, prefix = '$JS.API'): Promise<LeaderAnswer> {
  const subject = `${prefix}.STREAM.MSG.GET.${stream}`;
  const body = textEncoder.encode(JSON.stringify(query));
  const deadline = Date.now() + timeoutMs;
  return new Promise<LeaderAnswer>((resolve, reject) => {
    let settled = false;
    let asking = 0;
    let next: NodeJS.Timeout | undefined;
    const settle = (end: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(next);
      end();
    };
    const ask = (): void => {
      next = undefined;
      const leftMs = deadline - Date.now();
      asking++;
      nc.request(subject, body, { timeout: Math.max(1, leftMs) }).then(
        (answer) => settle(() => {
          try {
            resolve(JSON.parse(textDecoder.decode(answer.data)) as LeaderAnswer);
          } catch (err) {
            reject(err);
          }
        }),
        (err: unknown) => {
          asking--;
          // Another ask is out or due: it may yet be answered (a leader elected meanwhile).
          if (unanswered(err) && (asking > 0 || next)) return;
          settle(() => reject(err));
        },
      );
      if (leftMs > LEADER_REASK_MS) next = setTimeout(ask, LEADER_REASK_MS);
    };
    ask();
  });
}
