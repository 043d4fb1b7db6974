// A verification's transform of the rendered page, kept for the page's own transform. When
// the fetcher verifies a page (auto), a transformer makes the rendered HTML's extraction for
// the comparison (shared/src/infra/nats/verify-extract.ts); that page's page_fetched then
// asks for the transform of the same HTML moments later. transformPage is a pure function
// of its input, so an output kept under the input's digest is that transform's output. Kept
// a short while, a few at a time, in this process only: another transformer, a restart or a
// page whose options ask for more than the comparison's transform it again.
import crypto from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { canonicalJson } from '../../../shared/src/domain/cache-key.js';
import type { TransformInput, TransformOutput } from './types.js';

export interface RecentTransformsOptions {
  /** Outputs kept at most (the most recent). */
  max?: number;
  /** How long an output is kept. */
  ttlMs?: number;
}

/** A verification's page_fetched comes within seconds; a few verifications run at once per fetcher. */
const DEFAULTS = { max: 16, ttlMs: 60_000 } as const;

export class RecentTransforms {
  private readonly kept: LRUCache<string, TransformOutput>;

  constructor(opts: RecentTransformsOptions = {}) {
    this.kept = new LRUCache({ max: opts.max ?? DEFAULTS.max, ttl: opts.ttlMs ?? DEFAULTS.ttlMs });
  }

  remember(input: TransformInput, output: TransformOutput): void {
    if (input.document) return;
    this.kept.set(digest(input), output);
  }

  /** The output kept for this very input (HTML, URL, status, headers and options alike), if any. */
  find(input: TransformInput): TransformOutput | undefined {
    if (input.document) return undefined;
    return this.kept.get(digest(input));
  }
}

function digest(input: TransformInput): string {
  const { html, url, statusCode, headers, options } = input;
  // Absent and empty headers are the same input: the outcome reads neither.
  const shown = headers && Object.keys(headers).length > 0 ? headers : undefined;
  return crypto.createHash('sha256').update(canonicalJson({ url, statusCode: statusCode ?? null, headers: shown ?? null, options })).update('\0').update(html).digest('base64url');
}
