// A direct get (the log's point reads, payloads, KV reads, host slots) is answered by one of
// the stream's replicas, picked by the server (a queue group). On nats-server 2.9 a frozen or
// cut-off server stays in that group for as long as its routes stay open, and they do: its
// peers keep writing to it (raft, requests), and a server pings only a connection it has
// not written to, so a silent peer is never found stale. Every direct get routed to it
// waited out its whole timeout until the thaw: in the chaos drill, with one server of three
// frozen, the crawl asked no page from the new leader's election to the thaw. Here a direct
// get unanswered after DIRECT_GET_ATTEMPT_MS is asked of the stream's leader instead
// (leader-message-get.ts: STREAM.MSG.GET, which follows elections, asked again each second
// so that a leader elected meanwhile answers), within the caller's timeout, and its answer is
// handed back in the direct get's shape; for DIRECT_DOUBT_MS after, that stream's direct gets
// go to its leader at once, so a crawl does not pay the wait on each read. A read asked
// twice changes nothing.
// Applied to each connection connectNats makes; checked against the shape it relies on.
import { createRequire } from 'node:module';
import { headers, type Msg, type MsgHdrs, type NatsConnection } from 'nats';
import { leaderMessageGet, type LeaderAnswer } from './leader-message-get.js';

const API_PREFIX = '$JS.API';
const DIRECT_GET_PREFIX = `${API_PREFIX}.DIRECT.GET.`;
/**
 * How long a direct get waits for its replica before the stream's leader is asked. A live
 * replica answers in milliseconds (hundreds on a loaded machine); a frozen one never does.
 */
export const DIRECT_GET_ATTEMPT_MS = 1_000;
/** How long a stream's direct gets go to its leader after one went unanswered. */
export const DIRECT_DOUBT_MS = 10_000;
/** nats.js's request timeout when its caller gives none. */
const DEFAULT_TIMEOUT_MS = 1_000;

const require = createRequire(import.meta.url);
type DecodeHeaders = (raw: Uint8Array) => MsgHdrs;
const decodeHeaders = ((): DecodeHeaders | undefined => {
  try {
    const impl = (require('nats/lib/nats-base-client/headers.js') as { MsgHdrsImpl?: { decode?: DecodeHeaders } }).MsgHdrsImpl;
    return typeof impl?.decode === 'function' ? impl.decode.bind(impl) : undefined;
  } catch {
    return undefined;
  }
})();

/** Whether a direct get that goes unanswered is asked of the stream's leader. */
export const directGetFallbackReady = decodeHeaders !== undefined;

const isTimeout = (err: unknown): boolean => (err as { code?: string })?.code === 'TIMEOUT';

/** The stream a direct get asks (its subject's token after the prefix). */
const streamOf = (subject: string): string => subject.slice(DIRECT_GET_PREFIX.length).split('.', 1)[0]!;

/**
 * The leader's question for a direct get: the stream, and the query (a last-by-subject
 * direct get carries its subject in the request's subject, not in its payload).
 */
export function leaderQuery(subject: string, payload: Uint8Array | undefined): { stream: string; query: Record<string, unknown> } {
  const stream = streamOf(subject);
  const lastBySubject = subject.slice(DIRECT_GET_PREFIX.length + stream.length + 1);
  if (lastBySubject) return { stream, query: { last_by_subj: lastBySubject } };
  return { stream, query: payload && payload.length ? JSON.parse(new TextDecoder().decode(payload)) as Record<string, unknown> : {} };
}

/** The leader's JSON answer as the message a direct get answers with (its headers name the stored message). */
export function asDirectAnswer(stream: string, answer: LeaderAnswer, decode: DecodeHeaders): Pick<Msg, 'data' | 'headers'> {
  if (!answer.message) {
    const code = answer.error?.code ?? 500;
    return { data: new Uint8Array(0), headers: headers(code, code === 404 ? 'Message Not Found' : answer.error?.description ?? 'error') };
  }
  const m = answer.message;
  const h = m.hdrs ? decode(Buffer.from(m.hdrs, 'base64')) : headers();
  h.set('Nats-Stream', stream);
  h.set('Nats-Subject', m.subject);
  h.set('Nats-Sequence', String(m.seq));
  h.set('Nats-Time-Stamp', m.time);
  return { data: m.data ? new Uint8Array(Buffer.from(m.data, 'base64')) : new Uint8Array(0), headers: h };
}

/** Makes `nc`'s direct gets ask the stream's leader, within their timeout, when their replica does not answer. */
export function failOverDirectGets(nc: NatsConnection): void {
  const decode = decodeHeaders;
  if (!decode) return;
  const request = nc.request.bind(nc);
  /** Streams whose direct gets go to the leader, until when (ms). */
  const doubted = new Map<string, number>();
  nc.request = async (subject, payload, opts) => {
    if (!subject.startsWith(DIRECT_GET_PREFIX)) return request(subject, payload, opts);
    const timeoutMs = opts?.timeout ?? DEFAULT_TIMEOUT_MS;
    const startedAt = Date.now();
    const stream = streamOf(subject);
    if ((doubted.get(stream) ?? 0) <= startedAt) {
      doubted.delete(stream);
      try {
        return await request(subject, payload, { ...opts, timeout: Math.min(timeoutMs, DIRECT_GET_ATTEMPT_MS) });
      } catch (err) {
        if (!isTimeout(err) || timeoutMs - (Date.now() - startedAt) <= 0) throw err;
        doubted.set(stream, Date.now() + DIRECT_DOUBT_MS);
      }
    }
    const { query } = leaderQuery(subject, typeof payload === 'string' ? new TextEncoder().encode(payload) : payload);
    // Through the unpatched request: the leader's subject is not a direct get anyway.
    const answer = await leaderMessageGet({ request }, stream, query, Math.max(1, timeoutMs - (Date.now() - startedAt)), API_PREFIX);
    return asDirectAnswer(stream, answer, decode) as Msg;
  };
}
