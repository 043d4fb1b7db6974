// Where the fleet's priors live (fleet-prior.ts): the JetStream KV bucket
// `trawl-fleet-priors`, kept by the same rules as the host profiles (host-profile-store.ts):
// file storage, one bucket for every fetcher replica, compare-and-set writes retried from a
// fresh read, entries expiring PROFILE_TTL_MS after their last write, and the inputs of
// every change (each verification's verdict, host and markers) on the page's page_fetched
// event. One key per set of marker kinds (a digest of the sorted kinds; the value names them).
//
// Read on the pages of hosts still learning (a few per host), so reads are kept for
// FLEET_READ_REUSE_MS; this fetcher's own writes replace what it keeps at once, another
// replica's are seen within that time.
import { createHash } from 'node:crypto';
import { StorageType, type JetStreamClient } from 'nats';
import { LRUCache } from 'lru-cache';
import { KeyedLock } from '../../../../shared/src/infra/keyed-lock.js';
import type { Logger } from '../../../../shared/src/infra/logger.js';
import { casUpdate, KvContentionError } from '../../../../shared/src/infra/nats/kv-cas.js';
import { openKv } from '../../../../shared/src/infra/nats/replicas.js';
import { madeOnce } from '../../../../shared/src/infra/made-once.js';
import { evolveFleetPrior, fleetTrust, kindSet, setsLearning, NEW_FLEET_PRIOR, type FleetPolicy, type FleetPrior, type FleetTrust, type FleetVerdict } from './fleet-prior.js';
import { PROFILE_TTL_MS } from './host-profile-store.js';

export const FLEET_PRIOR_BUCKET = 'trawl-fleet-priors';
/** How long a read prior stands for this fetcher's next decisions. */
export const FLEET_READ_REUSE_MS = 2_000;
const PRIORS_KEPT = 1_000;
const MAX_ATTEMPTS = 10;

export interface FleetPriors {
  /** Whether the fleet vouches for a page with these marker kinds (none: a page without markers). */
  trust(kinds: readonly string[], now: Date): Promise<FleetTrust>;
  /** A verification's verdict on a page with these kinds: the set learns it, and each kind a disagreement. */
  record(kinds: readonly string[], verdict: FleetVerdict): Promise<void>;
}

/** The KV key of a set of kinds (sorted, no repeats): KV-safe whatever the kinds hold. */
export function fleetKeyOf(set: readonly string[]): string {
  return `set.${createHash('sha256').update(set.join('\n')).digest('hex').slice(0, 40)}`;
}

export class KvFleetPriors implements FleetPriors {
  private readonly locks = new KeyedLock();
  private readonly known = new LRUCache<string, { prior: FleetPrior; at: number }>({ max: PRIORS_KEPT });
  private readonly bucket = madeOnce(() => openKv(this.js, FLEET_PRIOR_BUCKET, { storage: StorageType.File, history: 1, ttl: PROFILE_TTL_MS }));

  constructor(private readonly js: JetStreamClient, private readonly policy: FleetPolicy, private readonly logger: Logger) {}

  async trust(kinds: readonly string[], now: Date): Promise<FleetTrust> {
    const set = kindSet(kinds);
    // A single kind's set is that kind's own prior; a larger set reads each kind's too.
    const [prior, ...alone] = await Promise.all([set, ...(set.length < 2 ? [] : set.map((k) => [k]))].map((s) => this.read(s)));
    const byKind = Object.fromEntries(set.map((k, i) => [k, alone[i] ?? prior!]));
    return fleetTrust(set, { set: prior!, kinds: byKind }, now, this.policy);
  }

  async record(kinds: readonly string[], verdict: FleetVerdict): Promise<void> {
    const set = kindSet(kinds);
    await Promise.all(setsLearning(set, verdict.agreed).map((s) => this.locks.run(fleetKeyOf(s), () => this.recordNow(s, verdict))));
  }

  private async read(set: string[]): Promise<FleetPrior> {
    const key = fleetKeyOf(set);
    const kept = this.known.get(key);
    if (kept && Date.now() - kept.at < FLEET_READ_REUSE_MS) return kept.prior;
    const entry = await (await this.bucket()).get(key);
    return this.keep(key, entry && entry.length > 0 ? toPrior(entry.json()) : NEW_FLEET_PRIOR);
  }

  private async recordNow(set: string[], verdict: FleetVerdict): Promise<void> {
    const key = fleetKeyOf(set);
    try {
      const next = await casUpdate(await this.bucket(), key, (text) => {
        const prior = evolveFleetPrior(text === null ? NEW_FLEET_PRIOR : toPrior(JSON.parse(text)), verdict);
        return { value: JSON.stringify({ kinds: set, ...prior }), result: prior };
      }, { maxAttempts: MAX_ATTEMPTS });
      this.keep(key, next);
    } catch (err) {
      if (!(err instanceof KvContentionError)) throw err;
      // Lost to contention: this verdict is missing from the fleet's count (the host's own profile has it).
      this.logger.warn({ key, set }, 'fleet prior update lost to contention');
    }
  }

  private keep(key: string, prior: FleetPrior): FleetPrior {
    this.known.set(key, { prior, at: Date.now() });
    return prior;
  }
}

function toPrior(stored: FleetPrior & { kinds?: string[] }): FleetPrior {
  const { kinds: _kinds, ...prior } = stored;
  return prior;
}
