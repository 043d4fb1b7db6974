// Every error leaves the gateway as RFC 7807 problem+json, from this one handler:
// { type: <ERROR_TYPE_BASE>/<CODE>, title, status, detail, code, requestId }.
// Trawl errors carry their code; Fastify's own errors (bad JSON, wrong content type, body
// too large) are mapped by status; anything else is a bug: logged, answered 500, and never
// with its internal message. A failure to reach NATS or the store (a nats-server restart,
// a lost connection, a database that does not answer) is not a bug: it is 503
// SERVICE_UNAVAILABLE with Retry-After, since the same request will work once it is back.
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { httpMetrics } from '../../../../shared/src/infra/metrics.js';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { ERROR_CODES, RateLimitedError, TrawlError, type ErrorCode } from '../../../../shared/src/domain/errors.js';

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ErrorCode;
  requestId: string;
}

function codeForStatus(status: number): ErrorCode {
  switch (status) {
    case 401: return 'UNAUTHORIZED';
    case 404: return 'NOT_FOUND';
    case 405: return 'METHOD_NOT_ALLOWED';
    case 413: return 'PAYLOAD_TOO_LARGE';
    case 414: return 'URI_TOO_LONG';
    case 415: return 'UNSUPPORTED_MEDIA_TYPE';
    case 431: return 'HEADERS_TOO_LARGE';
    case 429: return 'RATE_LIMITED';
    case 503: return 'SERVICE_UNAVAILABLE';
    default: return status >= 400 && status < 500 ? 'VALIDATION_ERROR' : 'INTERNAL_ERROR';
  }
}

function fastifyDetail(err: FastifyError): string {
  switch (err.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY': return 'the request body is not valid JSON';
    case 'FST_ERR_CTP_EMPTY_JSON_BODY': return 'the request body is empty; send a JSON object';
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE': return 'send the request body as application/json';
    case 'FST_ERR_CTP_BODY_TOO_LARGE': return 'the request body is too large';
    case 'FST_ERR_BAD_URL': return 'the request path is not valid (malformed percent-encoding)';
    case 'FST_ERR_MAX_PARAM_LENGTH': return 'a path segment of the request is too long';
    default: return err.message;
  }
}

/** Seconds a client is asked to wait (Retry-After) after a 503: about one NATS reconnect round. */
export const UNAVAILABLE_RETRY_AFTER_S = 5;

/** nats.js error codes that mean "NATS did not answer", not "the request was wrong". */
const NATS_UNREACHABLE = new Set(['TIMEOUT', 'CONNECTION_CLOSED', 'CONNECTION_DRAINING', 'CONNECTION_REFUSED', 'CONNECTION_TIMEOUT', 'DISCONNECT', '503', '408']);
/** MongoDB driver errors (by name: the driver is optional) of a database that cannot be reached. */
const MONGO_UNREACHABLE = new Set(['MongoNetworkError', 'MongoNetworkTimeoutError', 'MongoServerSelectionError', 'MongoNotConnectedError', 'MongoTopologyClosedError']);

/** Whether the error (or one it wraps) says NATS or the store cannot be reached right now. */
export function isUnreachable(err: unknown): boolean {
  for (let e = err as { name?: unknown; code?: unknown; message?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    if (e.name === 'NatsError' && NATS_UNREACHABLE.has(String(e.code))) return true;
    if (typeof e.name === 'string' && MONGO_UNREACHABLE.has(e.name)) return true;
    // node:sqlite: another process holds the file (SQLITE_BUSY / SQLITE_LOCKED).
    if (e.code === 'ERR_SQLITE_ERROR' && /database is (locked|busy)/i.test(String(e.message))) return true;
  }
  return false;
}

export function problemOf(err: unknown, requestId: string, typeBase: string): Problem {
  let code: ErrorCode;
  let detail: string;
  if (!(err instanceof TrawlError) && isUnreachable(err)) {
    code = 'SERVICE_UNAVAILABLE';
    detail = 'the event log or the store cannot be reached right now; retry in a few seconds';
  } else if (err instanceof TrawlError) {
    code = err.code;
    detail = err.message;
  } else {
    const fe = err as FastifyError;
    const status = typeof fe?.statusCode === 'number' ? fe.statusCode : 500;
    code = codeForStatus(status);
    detail = code === 'INTERNAL_ERROR' ? 'an unexpected error occurred; it has been logged with this requestId' : fastifyDetail(fe);
    if (err instanceof SyntaxError && status === 400) detail = 'the request body is not valid JSON';
  }
  const { status, title } = ERROR_CODES[code];
  return { type: `${typeBase}/${code}`, title, status, detail, code, requestId };
}

export function sendProblem(reply: FastifyReply, problem: Problem): FastifyReply {
  httpMetrics.problems().inc({ code: problem.code });
  // Every 503 says when to come back (a route's own ServiceUnavailableError included).
  if (problem.status === 503 && !reply.hasHeader('retry-after')) reply.header('retry-after', UNAVAILABLE_RETRY_AFTER_S);
  return reply.code(problem.status).type('application/problem+json').send(problem);
}

export const problemsPlugin = fp(async (app: FastifyInstance, opts: { errorTypeBase: string }) => {
  app.setErrorHandler((err, request: FastifyRequest, reply) => {
    const problem = problemOf(err, request.id, opts.errorTypeBase);
    if (problem.status >= 500) request.log.error({ err }, 'request failed');
    else request.log.info({ code: problem.code, detail: problem.detail }, 'request rejected');
    if (err instanceof RateLimitedError) {
      // X-RateLimit-* are set by the rate-limit hook; Retry-After belongs to every 429.
      reply.header('retry-after', Math.max(1, Math.ceil(err.retryAfterMs / 1000)));
    }
    return sendProblem(reply, problem);
  });
  app.setNotFoundHandler(notFoundHandler(opts.errorTypeBase));
});

/**
 * The 404 for a path no route has. Registered again inside the /api/v1 scope, where the
 * scope's hooks (auth first) run before it: there, a request without a valid key is 401
 * whether or not the path exists.
 */
export function notFoundHandler(typeBase: string) {
  return (request: FastifyRequest, reply: FastifyReply) => sendProblem(reply, {
    type: `${typeBase}/NOT_FOUND`, title: ERROR_CODES.NOT_FOUND.title, status: 404, code: 'NOT_FOUND',
    detail: `no route ${request.method} ${printable(request.url.split('?')[0] ?? '')}`, requestId: request.id,
  });
}

/**
 * Errors Fastify raises before a request reaches routing and hooks (a path with broken
 * percent-encoding, a path segment over maxParamLength): as problem documents too.
 */
export function frameworkErrorHandler(typeBase: string) {
  return (err: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    reply.header('x-request-id', request.id);
    return sendProblem(reply, problemOf(err, request.id, typeBase));
  };
}

/**
 * Errors Node's HTTP parser raises before Fastify sees a request (headers or a request
 * line over the 16 KiB limit, a malformed request): a problem document written straight
 * to the socket, with a request id made here since no request exists.
 */
export function clientErrorHandler(typeBase: string, newRequestId: () => string) {
  return (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
    const code = codeForStatus(status);
    const requestId = newRequestId();
    const detail = status === 431 ? 'the request line and headers are larger than 16 KiB'
      : status === 408 ? 'the request was not received in time' : 'the request is not valid HTTP';
    const problem: Problem = { type: `${typeBase}/${code}`, title: ERROR_CODES[code].title, status, detail, code, requestId };
    httpMetrics.problems().inc({ code });
    const body = JSON.stringify(problem);
    if (socket.writable) {
      socket.write(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/problem+json\r\n`
        + `Content-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`);
    }
    socket.destroy();
  };
}

/** A client's path echoed in a message: bounded, without control characters. */
function printable(text: string, max = 200): string {
  // eslint-disable-next-line no-control-regex
  const clean = text.replace(/[\u0000-\u001f\u007f]/g, '?');
  return clean.length > max ? `${clean.slice(0, max)}…` : clean;
}
