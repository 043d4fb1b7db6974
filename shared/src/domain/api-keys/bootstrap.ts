// Creating API keys as events. Only the key's hash enters the log, and the key id is
// derived from the hash, so creating the same key again is the same subject and the
// `once` append leaves the existing key as it is. Used by `npm start` and by the
// Kubernetes bootstrap job.
import type { BootstrapKey } from '../../infra/config.js';
import { makeEvent } from '../events/index.js';
import { apiKeyHash, apiKeyId, newId } from '../../infra/ids.js';
import type { EventLog } from '../../infra/nats/event-log.js';

export function keyCreatedEvent({ key, plan }: BootstrapKey, now: Date, eventId: string) {
  return makeEvent('key_created', { kind: 'apikey', id: apiKeyId(key), part: 'key' },
    { keyHash: apiKeyHash(key), plan, label: 'bootstrap', createdAt: now.toISOString() }, { eventId, now });
}

export async function bootstrapKeys(log: EventLog, keys: BootstrapKey[], now: () => Date = () => new Date()): Promise<{ created: number; existing: number }> {
  let created = 0;
  for (const key of keys) {
    const result = await log.append(keyCreatedEvent(key, now(), newId()), { once: true });
    if (!result.duplicate) created++;
  }
  return { created, existing: keys.length - created };
}
