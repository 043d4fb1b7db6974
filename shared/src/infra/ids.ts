// Identifiers. Job ids are random (unguessable: they are the only handle on a job besides
// the API key); page keys are derived from the normalized URL so that discovering the same
// page twice names the same subject, which the log itself then refuses to repeat.
import { createHash, randomBytes } from 'node:crypto';

export type IdGenerator = () => string;

/** 22 url-safe characters, 128 bits of randomness. */
export const newId: IdGenerator = () => randomBytes(16).toString('base64url');

/**
 * The shape of every job id newId makes. Ids from clients go into subject filters and
 * store keys, so anything else (`*`, `>`, `.`, spaces, control characters) is refused as
 * "no such job" before it touches either.
 */
const JOB_ID = /^[A-Za-z0-9_-]{22}$/;

export function isJobId(value: string): boolean {
  return JOB_ID.test(value);
}

export function sha256Hex(text: string | Buffer): string {
  return createHash('sha256').update(text).digest('hex');
}

/** A page's key within its job: 16 hex characters of the SHA-256 of its normalized URL. */
export function pageKeyOf(normalizedUrl: string): string {
  return sha256Hex(normalizedUrl).slice(0, 16);
}

/** API keys are stored and looked up by hash only. */
export function apiKeyHash(key: string): string {
  return sha256Hex(`trawl-api-key:${key}`);
}

/** A key's public id: derived from its hash, so bootstrapping the same key is idempotent. */
export function apiKeyId(key: string): string {
  return apiKeyHash(key).slice(0, 20);
}

export function newApiKey(): string {
  return `trawl_${randomBytes(24).toString('base64url')}`;
}

export type Clock = () => Date;
export const systemClock: Clock = () => new Date();
