// Bearer authentication for /api/v1. The key is hashed on arrival and looked up by hash;
// the plain key is never stored or logged. Lookups are cached briefly: a known key (valid
// or revoked) for 5 s, an unknown one for 1 s, so a key created a moment ago works at once.
// The projector announces every change of a key (KEY_CHANGED_SUBJECT) and the key leaves
// the cache, so a revocation or plan change applies to the next request once projected;
// the 5 s lifetime bounds the delay when such a notice is lost (core NATS, at most once).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { NatsConnection, Subscription } from 'nats';
import { UnauthorizedError } from '../../../../shared/src/domain/errors.js';
import { apiKeyHash } from '../../../../shared/src/infra/ids.js';
import type { Plan } from '../../../../shared/src/domain/plans.js';
import type { ReadModelStore } from '../../../../shared/src/infra/store/index.js';
import { KEY_CHANGED_SUBJECT } from '../../../../shared/src/infra/subjects.js';

export interface Caller {
  keyId: string;
  plan: Plan;
}

declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller;
  }
}

/** How long a known key's answer is reused: the bound on a revocation whose notice was lost. */
export const POSITIVE_TTL_MS = 5_000;
const NEGATIVE_TTL_MS = 1_000;
const MAX_ENTRIES = 10_000;

export type KeyLookup = { ok: true; caller: Caller } | { ok: false; reason: 'unknown' | 'revoked' };

export class KeyDirectory {
  private readonly cache = new Map<string, { answer: KeyLookup; until: number }>();
  /** Counts evictions, so a lookup that raced one does not cache what it read. */
  private evictions = 0;
  private sub: Subscription | undefined;

  constructor(private readonly store: ReadModelStore, private readonly now: () => number = Date.now) {}

  /** Drops a key from the cache whenever the projector announces a change of it. */
  listen(nc: NatsConnection): void {
    this.sub = nc.subscribe(KEY_CHANGED_SUBJECT, { callback: (err, msg) => { if (!err) this.evict(msg.string()); } });
  }

  stop(): void {
    this.sub?.unsubscribe();
  }

  evict(keyHash: string): void {
    this.evictions++;
    this.cache.delete(keyHash);
  }

  async lookup(key: string): Promise<KeyLookup> {
    const hash = apiKeyHash(key);
    const hit = this.cache.get(hash);
    if (hit && hit.until > this.now()) return hit.answer;
    const evictions = this.evictions;
    const doc = await this.store.apiKeys.find(hash);
    const answer: KeyLookup = !doc ? { ok: false, reason: 'unknown' }
      : doc.revokedAt ? { ok: false, reason: 'revoked' }
      : { ok: true, caller: { keyId: doc.id, plan: doc.plan } };
    // A change announced while the store was read may be missing from what was read: answer
    // with it this once, but do not keep it.
    if (evictions === this.evictions) {
      if (this.cache.size >= MAX_ENTRIES) this.cache.clear();
      this.cache.set(hash, { answer, until: this.now() + (answer.ok || answer.reason === 'revoked' ? POSITIVE_TTL_MS : NEGATIVE_TTL_MS) });
    }
    return answer;
  }
}

function bearer(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? null;
}

export const authPlugin = fp(async (app: FastifyInstance, opts: { keys: KeyDirectory }) => {
  app.decorateRequest('caller', null as unknown as Caller);
  app.addHook('onRequest', async (request) => {
    const key = bearer(request);
    if (!key) throw new UnauthorizedError('missing API key: send "Authorization: Bearer <API_KEY>"');
    const found = await opts.keys.lookup(key);
    // Decision (docs/api.md): a revoked key is told so. Only its holder can ask, and it
    // tells a legitimate client to get a new key instead of hunting for a typo.
    if (!found.ok) throw new UnauthorizedError(found.reason === 'revoked' ? 'API key revoked' : 'invalid API key');
    const caller = found.caller;
    request.caller = caller;
    request.log = request.log.child({ keyId: caller.keyId });
  });
});
