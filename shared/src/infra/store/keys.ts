// API keys and what each key uses (plan limits, monthly quota, pages per day).
import type { Plan } from '../../domain/plans.js';
import type { CollectionDef } from './collection.js';

export interface ApiKeyDoc {
  id: string;
  keyHash: string;
  /** The current plan (the last key_plan_changed, else the one it was created with). */
  plan: Plan;
  label: string;
  createdAt: string;
  /** Set once the key is revoked: it is still found by hash, and the gateway refuses it. */
  revokedAt?: string;
  /** The console account that owns it (absent: an operator's key). */
  accountId?: string;
  /** When an operator's key joined that account (key_adopted); absent: made by it. */
  adoptedAt?: string;
  lastSeq: number;
}

/**
 * What one key is using: its jobs running now (for the plan's concurrency limit) and the
 * pages it had fetched this calendar month (for the monthly quota).
 */
export interface KeyUsageDoc {
  id: string;
  /** `YYYY-MM` (UTC) that `pages` counts. */
  month: string;
  pages: number;
  /** The key's jobs that are PENDING or PROCESSING: id -> when it was created. */
  activeJobs: Record<string, string>;
  /**
   * Pages that running crawls and batches may still load: job id -> pages left of what it
   * was granted. They are spoken for: the quota admits new work only beyond them.
   * (Absent in documents written before it existed; read as empty.)
   */
  committedPages?: Record<string, number>;
  lastSeq: number;
}

/** Pages of the quota spoken for by the key's running crawls and batches. */
export function committedPages(doc: KeyUsageDoc): number {
  return Object.values(doc.committedPages ?? {}).reduce((sum, n) => sum + n, 0);
}

/** Pages a key had fetched per UTC day (`YYYY-MM-DD` -> pages), the last 62 days. */
export interface KeyDailyPagesDoc {
  id: string;
  days: Record<string, number>;
  lastSeq: number;
}

export const API_KEYS: CollectionDef<ApiKeyDoc> = {
  name: 'api_keys',
  /** The account's keys (revoked ones too). */
  list: { owner: 'accountId', createdAt: 'createdAt', mongoIndex: 'by_account', sparse: true },
  lookup: { field: 'keyHash', mongoIndex: 'by_hash' },
};

export const KEY_USAGE: CollectionDef<KeyUsageDoc> = { name: 'key_usage' };

export const KEY_DAILY_PAGES: CollectionDef<KeyDailyPagesDoc> = { name: 'key_daily_pages' };
