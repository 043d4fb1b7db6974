// The web console's read models (docs/console.md): accounts, invites and sessions as the
// console reads them, and the map requests it lists.
import type { Plan } from '../../domain/plans.js';
import type { CollectionDef } from './collection.js';

export interface AccountDoc {
  id: string;
  email: string;
  /** The scrypt hash from account_registered (the console verifies sign-ins against it). */
  passwordHash: string;
  role: 'admin' | 'member';
  plan: Plan;
  status: 'ACTIVE' | 'DISABLED';
  createdAt: string;
  inviteId?: string;
  lastSeq: number;
}

export interface InviteDoc {
  id: string;
  tokenHash: string;
  role: 'admin' | 'member';
  createdAt: string;
  expiresAt: string;
  createdBy: string;
  redeemedAt?: string;
  redeemedBy?: string;
  /** Taken back unused by an admin (invite_revoked). */
  revokedAt?: string;
  lastSeq: number;
}

export interface SessionDoc {
  /** The SHA-256 of the cookie's token. */
  id: string;
  accountId: string;
  startedAt: string;
  expiresAt: string;
  endedAt?: string;
  lastSeq: number;
}


/**
 * A map request as the console lists it (maps-jobs read model): what was asked, and what
 * the map worker answered. The links are kept when map_completed carried them inline
 * (up to MAP_INLINE_LINKS_MAX_BYTES); a larger answer keeps only its count.
 */
export interface MapJobDoc {
  id: string;
  apiKeyId: string;
  url: string;
  search?: string;
  status: 'PROCESSING' | 'COMPLETED' | 'FAILED';
  createdAt: string;
  completedAt?: string;
  count?: number;
  partial?: boolean;
  links?: string[];
  error?: { code: string; message: string };
  lastSeq: number;
}

/** Every account, newest first. */
export const ACCOUNTS: CollectionDef<AccountDoc> = { name: 'accounts', list: { createdAt: 'createdAt', mongoIndex: 'newest' } };

/** Invites, newest first. */
export const INVITES: CollectionDef<InviteDoc> = { name: 'invites', list: { createdAt: 'createdAt', mongoIndex: 'newest' } };

export const SESSIONS: CollectionDef<SessionDoc> = { name: 'sessions' };

/** The key's map requests, newest first (links left out). */
export const MAP_JOBS: CollectionDef<MapJobDoc> = {
  name: 'map_jobs',
  list: { owner: 'apiKeyId', createdAt: 'createdAt', omit: ['links'], mongoIndex: 'by_owner' },
};
