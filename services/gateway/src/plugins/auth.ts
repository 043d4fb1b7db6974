// Bearer authentication for /api/v1. The key is hashed on arrival and looked up by hash;
// the plain key is never stored or logged. Lookups are cached briefly (a positive answer
// for 30 s, a negative one for 1 s, so a key created a moment ago works at once).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { UnauthorizedError } from '../../../../shared/src/errors.js';
import { apiKeyHash } from '../../../../shared/src/ids.js';
import type { Plan } from '../../../../shared/src/plans.js';
import type { ReadModelStore } from '../../../../shared/src/store/index.js';

export interface Caller {
  keyId: string;
  plan: Plan;
}

declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller;
  }
}

const POSITIVE_TTL_MS = 30_000;
const NEGATIVE_TTL_MS = 1_000;
const MAX_ENTRIES = 10_000;

export class KeyDirectory {
  private readonly cache = new Map<string, { caller: Caller | null; until: number }>();

  constructor(private readonly store: ReadModelStore, private readonly now: () => number = Date.now) {}

  async lookup(key: string): Promise<Caller | null> {
    const hash = apiKeyHash(key);
    const hit = this.cache.get(hash);
    if (hit && hit.until > this.now()) return hit.caller;
    const doc = await this.store.findApiKeyByHash(hash);
    const caller = doc ? { keyId: doc.id, plan: doc.plan } : null;
    if (this.cache.size >= MAX_ENTRIES) this.cache.clear();
    this.cache.set(hash, { caller, until: this.now() + (caller ? POSITIVE_TTL_MS : NEGATIVE_TTL_MS) });
    return caller;
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
    const caller = await opts.keys.lookup(key);
    if (!caller) throw new UnauthorizedError('invalid API key');
    request.caller = caller;
    request.log = request.log.child({ keyId: caller.keyId });
  });
});
