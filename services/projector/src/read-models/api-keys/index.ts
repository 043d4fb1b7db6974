// API keys: who may call the API, with which plan. Looked up by key hash on every request.
// A revoked key keeps its document (with `revokedAt`), so the gateway can say why it is
// refused; a plan change replaces the plan; an adoption gives an operator's key its account. The same rules as the key decider
// (shared/src/domain/api-keys/decider.ts): a plan change after the revocation changes nothing.
// After each change the projector publishes the key's hash on KEY_CHANGED_SUBJECT, and
// the gateways drop it from their caches.
import type { StoredEvent } from '../../../../../shared/src/domain/events/index.js';
import type { ApiKeyDoc } from '../../../../../shared/src/infra/store/index.js';
import { KEY_CHANGED_SUBJECT } from '../../../../../shared/src/infra/subjects.js';
import { inCollection, type ReadModel } from '../types.js';

export function evolve(doc: ApiKeyDoc | null, event: StoredEvent): ApiKeyDoc | null {
  switch (event.event) {
    case 'key_created':
      if (doc) return null;
      return {
        id: event.id, keyHash: event.data.keyHash, plan: event.data.plan, label: event.data.label, createdAt: event.data.createdAt,
        ...(event.data.accountId ? { accountId: event.data.accountId } : {}), lastSeq: event.seq,
      };
    case 'key_revoked':
      if (!doc || doc.revokedAt) return null;
      return { ...doc, revokedAt: event.data.revokedAt, lastSeq: event.seq };
    case 'key_plan_changed':
      if (!doc || doc.revokedAt) return null;
      return { ...doc, plan: event.data.plan, lastSeq: event.seq };
    case 'key_adopted':
      // Once per key, into one account (the decider's rule): a second adoption changes nothing.
      if (!doc || doc.revokedAt || doc.accountId) return null;
      return { ...doc, accountId: event.data.accountId, adoptedAt: event.data.adoptedAt, lastSeq: event.seq };
    default:
      return null;
  }
}

export const apiKeysReadModel: ReadModel<ApiKeyDoc> = {
  name: 'api-keys',
  handles: ['key_created', 'key_revoked', 'key_plan_changed', 'key_adopted'],
  ...inCollection((store) => store.apiKeys),
  evolve,
  notice: (doc) => ({ subject: KEY_CHANGED_SUBJECT, data: doc.keyHash }),
};
