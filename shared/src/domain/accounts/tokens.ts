// The secrets of the console and the ids derived from them. A token is shown once (an
// invite link, a session cookie); the log keeps only its SHA-256, and the aggregate id is
// derived from that hash, so the token names its aggregate without being stored.
import { randomBytes } from 'node:crypto';
import { sha256Hex } from '../../infra/ids.js';

export const newInviteToken = (): string => `inv_${randomBytes(24).toString('base64url')}`;
export const newSessionToken = (): string => randomBytes(32).toString('base64url');

export const inviteTokenHash = (token: string): string => sha256Hex(`trawl-invite:${token}`);
/** 20 hex characters of the token's hash. */
export const inviteIdOf = (token: string): string => inviteTokenHash(token).slice(0, 20);

/** The session id is the whole hash of the cookie's token. */
export const sessionIdOf = (token: string): string => sha256Hex(`trawl-session:${token}`);

/** The CSRF token of a session: derived from its secret token, so only its holder can know it. */
export const csrfTokenOf = (sessionToken: string): string => sha256Hex(`trawl-csrf:${sessionToken}`);

/** An account's id: 20 hex characters of the SHA-256 of its normalized email. */
export const accountIdOf = (normalizedEmail: string): string => sha256Hex(`trawl-account:${normalizedEmail}`).slice(0, 20);

export const INVITE_TTL_MS = 7 * 24 * 3600 * 1000;
export const SESSION_TTL_MS = 7 * 24 * 3600 * 1000;
