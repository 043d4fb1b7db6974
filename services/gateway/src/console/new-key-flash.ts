// Post/redirect/get for key creation: the POST makes the key and answers 303 to
// GET /console/keys?created=<key id>, so reloading the page that shows the key reloads a
// GET and never makes a second key. The new key has to reach that GET once: it rides in a
// short-lived HttpOnly cookie, encrypted (AES-256-GCM) under a key derived from the
// session's secret token, which the server does not keep (only its hash). The GET shows it
// and clears the cookie, so a reload shows the list without it. Nothing is stored server-side.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { clearCookie, setCookie } from './security.js';

export const NEW_KEY_COOKIE = 'trawl_newkey';
/** How long the redirect's GET may take to arrive. */
const NEW_KEY_COOKIE_MAX_AGE_S = 120;
const IV_BYTES = 12;
const TAG_BYTES = 16;

const keyOf = (sessionToken: string, keyId: string): Buffer =>
  Buffer.from(hkdfSync('sha256', sessionToken, keyId, 'trawl console new key', 32));

/** Sets the cookie that carries the new key to the redirect's GET. */
export function stashNewKey(reply: FastifyReply, opts: { sessionToken: string; keyId: string; key: string; secure: boolean }): void {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', keyOf(opts.sessionToken, opts.keyId), iv);
  const sealed = Buffer.concat([iv, cipher.update(opts.key, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  setCookie(reply, NEW_KEY_COOKIE, sealed.toString('base64url'), { maxAgeS: NEW_KEY_COOKIE_MAX_AGE_S, secure: opts.secure, sameSite: 'Strict' });
}

function rawCookie(request: FastifyRequest): string | null {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === NEW_KEY_COOKIE) {
      const value = part.slice(eq + 1).trim();
      return /^[A-Za-z0-9_-]{40,400}$/.test(value) ? value : null;
    }
  }
  return null;
}

/** The new key of `keyId` when this session's cookie carries it (then cleared); null otherwise. */
export function takeNewKey(request: FastifyRequest, reply: FastifyReply, opts: { sessionToken: string; keyId: string; secure: boolean }): string | null {
  const value = rawCookie(request);
  if (value === null) return null;
  clearCookie(reply, NEW_KEY_COOKIE, opts.secure);
  const sealed = Buffer.from(value, 'base64url');
  if (sealed.length <= IV_BYTES + TAG_BYTES) return null;
  try {
    const decipher = createDecipheriv('aes-256-gcm', keyOf(opts.sessionToken, opts.keyId), sealed.subarray(0, IV_BYTES));
    decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
    return Buffer.concat([decipher.update(sealed.subarray(IV_BYTES, sealed.length - TAG_BYTES)), decipher.final()]).toString('utf8');
  } catch {
    return null; // another session's, another key's, or tampered with
  }
}
