// API keys: who may call the API, with which plan. Looked up by key hash on every request.
import type { StoredEvent } from '../../../../../shared/src/events/index.js';
import type { ApiKeyDoc } from '../../../../../shared/src/store/index.js';
import type { ReadModel } from '../types.js';

export function evolve(doc: ApiKeyDoc | null, event: StoredEvent): ApiKeyDoc | null {
  switch (event.event) {
    case 'key_created':
      if (doc) return doc;
      return { id: event.id, keyHash: event.data.keyHash, plan: event.data.plan, label: event.data.label, createdAt: event.data.createdAt, lastSeq: event.seq };
    default:
      return doc;
  }
}

export const apiKeysReadModel: ReadModel<ApiKeyDoc> = {
  name: 'api-keys',
  handles: ['key_created'],
  load: (store, event) => store.getApiKey(event.id),
  save: (store, doc) => store.saveApiKey(doc),
  evolve,
};
