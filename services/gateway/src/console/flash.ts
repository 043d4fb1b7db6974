// Post/redirect/get for the console's forms that make a secret shown once (a new API key,
// an invite link): the POST does the work and answers 303 to a GET page, so reloading the
// page that shows the secret reloads a GET and never makes a second one. The secret has
// to reach that GET once: it rides in a short-lived HttpOnly cookie, encrypted
// (AES-256-GCM) under a key derived from the session's secret token (which the server
// does not keep: only its hash) and the thing it is for (`scope`, e.g. the key id). The
// GET shows it and clears the cookie, so a reload shows the page without it. Nothing is
// stored server-side.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { clearCookie, setCookie } from './security.js';

export const FLASH_COOKIE = 'trawl_flash';
/** How long the redirect's GET may take to arrive. */
const FLASH_MAX_AGE_S = 120;
const IV_BYTES = 12;
const TAG_BYTES = 16;

const keyOf = (sessionToken: string, scope: string): Buffer =>
  Buffer.from(hkdfSync('sha256', sessionToken, scope, 'trawl console flash', 32));

export interface FlashOptions {
  sessionToken: string;
  /** What the secret belongs to; the GET must name the same (a key id, an invite nonce). */
  scope: string;
  secure: boolean;
}

/** Sets the cookie that carries `value` to the redirect's GET. */
export function stashFlash(reply: FastifyReply, opts: FlashOptions & { value: string }): void {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', keyOf(opts.sessionToken, opts.scope), iv);
  const sealed = Buffer.concat([iv, cipher.update(opts.value, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  setCookie(reply, FLASH_COOKIE, sealed.toString('base64url'), { maxAgeS: FLASH_MAX_AGE_S, secure: opts.secure, sameSite: 'Strict' });
}

function rawCookie(request: FastifyRequest): string | null {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === FLASH_COOKIE) {
      const value = part.slice(eq + 1).trim();
      return /^[A-Za-z0-9_-]{40,2000}$/.test(value) ? value : null;
    }
  }
  return null;
}

/** The value stashed for `scope` by this session, then cleared; null when there is none. */
export function takeFlash(request: FastifyRequest, reply: FastifyReply, opts: FlashOptions): string | null {
  const value = rawCookie(request);
  if (value === null) return null;
  clearCookie(reply, FLASH_COOKIE, opts.secure);
  const sealed = Buffer.from(value, 'base64url');
  if (sealed.length <= IV_BYTES + TAG_BYTES) return null;
  try {
    const decipher = createDecipheriv('aes-256-gcm', keyOf(opts.sessionToken, opts.scope), sealed.subarray(0, IV_BYTES));
    decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
    return Buffer.concat([decipher.update(sealed.subarray(IV_BYTES, sealed.length - TAG_BYTES)), decipher.final()]).toString('utf8');
  } catch {
    return null; // another session's, another scope's, or tampered with
  }
}

/** A random scope for a secret that has no id of its own to name in the URL (an invite link). */
export const newFlashScope = (): string => randomBytes(12).toString('hex');
