// The console's web security: cookies, response headers (a strict Content-Security-Policy),
// CSRF tokens on every state change, and the same-origin check.
//
// - The session cookie holds a random token; the server keeps only its hash (the session
//   id). HttpOnly, SameSite=Lax, Path=/console, Secure when the console is reached over TLS.
// - CSRF: every POST carries `_csrf` (a form field, or the X-CSRF-Token header). Signed in,
//   it is derived from the session's secret token (csrfTokenOf); before sign-in (the sign-in
//   and sign-up forms) it must equal a random pre-session cookie (double submit). The
//   comparison is constant-time. A POST whose Origin is not exactly this console's origin
//   (scheme, host and port) is refused too (checkOrigin).
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ForbiddenError } from '../../../../shared/src/domain/errors.js';

export const SESSION_COOKIE = 'trawl_session';
export const PRESESSION_COOKIE = 'trawl_csrf';

export const CSP = [
  "default-src 'none'", "script-src 'self'", "style-src 'self'", "img-src 'self' data:", "connect-src 'self'",
  "form-action 'self'", "frame-ancestors 'none'", "base-uri 'none'",
].join('; ');

export function securityHeaders(reply: FastifyReply): void {
  reply.header('content-security-policy', CSP);
  reply.header('x-content-type-options', 'nosniff');
  reply.header('x-frame-options', 'DENY');
  // Invite links carry their token in the URL: never send it to another site as a referrer.
  // (Not no-referrer: with it Chromium sends `Origin: null` on the console's own forms.)
  reply.header('referrer-policy', 'same-origin');
  reply.header('cross-origin-opener-policy', 'same-origin');
}

export function readCookie(request: FastifyRequest, name: string): string | null {
  const header = request.headers.cookie;
  if (!header) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      const value = part.slice(eq + 1).trim();
      return /^[A-Za-z0-9_-]{16,128}$/.test(value) ? value : null;
    }
  }
  return null;
}

export function isTls(request: FastifyRequest, publicBaseUrl: string): boolean {
  return request.protocol === 'https' || publicBaseUrl.startsWith('https:');
}

export function setCookie(reply: FastifyReply, name: string, value: string, opts: { maxAgeS: number; secure: boolean; sameSite?: 'Lax' | 'Strict' }): void {
  const parts = [`${name}=${value}`, 'Path=/console', `Max-Age=${opts.maxAgeS}`, 'HttpOnly', `SameSite=${opts.sameSite ?? 'Lax'}`];
  if (opts.secure) parts.push('Secure');
  const existing = reply.getHeader('set-cookie');
  const list = Array.isArray(existing) ? existing : typeof existing === 'string' ? [existing] : [];
  reply.header('set-cookie', [...list, parts.join('; ')]);
}

export const clearCookie = (reply: FastifyReply, name: string, secure: boolean): void => setCookie(reply, name, '', { maxAgeS: 0, secure });

/** The pre-session CSRF token: the cookie's, or a new one set now. */
export function preSessionToken(request: FastifyRequest, reply: FastifyReply, secure: boolean): string {
  const existing = readCookie(request, PRESESSION_COOKIE);
  if (existing) return existing;
  const token = randomBytes(24).toString('base64url');
  setCookie(reply, PRESESSION_COOKIE, token, { maxAgeS: 3600, secure, sameSite: 'Strict' });
  return token;
}

export function sameSecret(a: string | null | undefined, b: string | null | undefined): boolean {
  if (!a || !b) return false;
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The CSRF token a POST carries. */
export function submittedCsrf(request: FastifyRequest): string | null {
  const header = request.headers['x-csrf-token'];
  if (typeof header === 'string') return header;
  const body = request.body as Record<string, unknown> | undefined;
  return typeof body?._csrf === 'string' ? body._csrf : null;
}

/** An origin as browsers serialize it (scheme://host[:port], no default port, nothing after), or null. */
function originOf(url: string): string | null {
  try {
    const origin = new URL(url).origin;
    return origin === 'null' ? null : origin;
  } catch {
    return null;
  }
}

/**
 * Refuses a POST from another origin. The Origin header, when the browser sends one, must
 * be exactly this console's origin: the same scheme, host and port as the request came to
 * (or as PUBLIC_BASE_URL names, behind a proxy), and nothing else: an Origin with a path,
 * a trailing slash or user info is not an origin any browser sends. A Sec-Fetch-Site of
 * cross-site or same-site (another subdomain) is refused as well, Origin or not.
 */
export function checkOrigin(request: FastifyRequest, publicBaseUrl?: string): void {
  const site = request.headers['sec-fetch-site'];
  if (site === 'cross-site' || site === 'same-site') throw new ForbiddenError('this form was sent from another site');
  const origin = request.headers.origin;
  if (origin === undefined) return;
  if (origin === 'null') throw new ForbiddenError('this form was sent from an opaque origin');
  if (!/^https?:\/\//.test(origin) || originOf(origin) !== origin) throw new ForbiddenError('the Origin header is not an origin of this console');
  const own = [request.host ? originOf(`${request.protocol}://${request.host}`) : null, publicBaseUrl ? originOf(publicBaseUrl) : null];
  if (!own.includes(origin)) throw new ForbiddenError('this form was sent from another site');
}

export function requireCsrf(request: FastifyRequest, expected: string | null, publicBaseUrl?: string): void {
  checkOrigin(request, publicBaseUrl);
  if (!sameSecret(submittedCsrf(request), expected)) {
    throw new ForbiddenError('the form is missing its security token or it is stale; reload the page and try again');
  }
}
