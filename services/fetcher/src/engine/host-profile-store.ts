// Where the auto engine's host profiles live: the JetStream KV bucket `trawl-host-profiles`
// (file storage, so they survive restarts; one bucket for every fetcher replica). One key
// per host (`host:port`, made a KV-safe token); the value is the HostProfile as JSON.
//
// Writes are compare-and-set on the entry's revision, retried from a fresh read when
// another replica wrote first, so every evolve runs over the profile it replaces. Inside
// one process a KeyedLock orders a host's writes, so conflicts only come from other
// replicas. The inputs of every profile change (each verification's verdict and
// similarity) are also on the page's page_fetched event, so the log keeps the evidence; the
// bucket is the shared, current verdict (a host not seen for PROFILE_TTL_MS is learnt anew).
import { StorageType, type JetStreamClient, type KV } from 'nats';
import { KeyedLock } from '../../../../shared/src/infra/keyed-lock.js';
import type { Logger } from '../../../../shared/src/infra/logger.js';
import { casUpdate, KnownRevisions, KvContentionError } from '../../../../shared/src/infra/nats/kv-cas.js';
import { evolve, NEW_HOST, type AutoPolicy, type HostEvent, type HostProfile } from './host-profile.js';
import { openKv } from '../../../../shared/src/infra/nats/replicas.js';
import { madeOnce } from '../../../../shared/src/infra/made-once.js';

export const HOST_PROFILE_BUCKET = 'trawl-host-profiles';
export const PROFILE_TTL_MS = 30 * 86_400_000;
const MAX_ATTEMPTS = 10;

export interface HostProfiles {
  get(hostKey: string): Promise<HostProfile>;
  record(hostKey: string, event: HostEvent): Promise<HostProfile>;
}

/** The profile key of a URL's host: host and port (two ports are two sites), KV-safe. */
export function hostKeyOf(url: string): string {
  return new URL(url).host.toLowerCase().replace(/[^a-z0-9.-]/g, '_');
}

export class KvHostProfiles implements HostProfiles {
  private readonly locks = new KeyedLock();
  /**
   * Every page of an `auto` host is counted here (a 'seen' write), one after another inside
   * this process (the KeyedLock): each write starts from the revision this process wrote
   * last instead of reading the key first, so a page costs one KV round trip, not two. Still
   * compare-and-set: a write another replica made since makes the server refuse it, and the
   * count is taken again from a read (kv-cas.ts KnownRevisions).
   */
  private readonly known = new KnownRevisions();

  constructor(private readonly js: JetStreamClient, private readonly policy: AutoPolicy, private readonly logger: Logger) {}

  private readonly bucket = madeOnce(() => openKv(this.js, HOST_PROFILE_BUCKET, { storage: StorageType.File, history: 1, ttl: PROFILE_TTL_MS }));

  async get(hostKey: string): Promise<HostProfile> {
    const entry = await (await this.bucket()).get(hostKey);
    this.known.read(hostKey, entry);
    return entry && entry.length > 0 ? (entry.json() as HostProfile) : NEW_HOST;
  }

  record(hostKey: string, event: HostEvent): Promise<HostProfile> {
    return this.locks.run(hostKey, () => this.recordNow(hostKey, event));
  }

  private async recordNow(hostKey: string, event: HostEvent): Promise<HostProfile> {
    const kv = await this.bucket();
    try {
      return await casUpdate(kv, hostKey, (text) => {
        const next = evolve(text === null ? NEW_HOST : (JSON.parse(text) as HostProfile), event, this.policy);
        return { value: JSON.stringify(next), result: next };
      }, { maxAttempts: MAX_ATTEMPTS, known: this.known });
    } catch (err) {
      if (!(err instanceof KvContentionError)) throw err;
    }
    // Still contended after many tries: this page's count or verdict is dropped, which only
    // shifts when the next check happens.
    this.logger.warn({ hostKey, event: event.type }, 'host profile update lost to contention');
    return this.get(hostKey);
  }
}
