// A fetcher process as far as the fleet's host slots know it, for the cluster test to
// SIGKILL: it takes a place of one host through its own connection, prints "held", and
// holds it until killed. Arguments: NATS URL, host, holder id, holder TTL in ms.
import { connect } from 'nats';
import { HostGovernor } from '../../../services/fetcher/src/fleet/host-governor.js';

const [url, host, holderId, ttlMs] = process.argv.slice(2) as [string, string, string, string];
const nc = await connect({ servers: url.split(',') });
const governor = new HostGovernor(nc.jetstream(), {
  maxInFlight: 1, intervalMs: 0, holderId, holderTtlMs: Number(ttlMs), holderRenewMs: 500,
  // The place's lease on the compare-and-set governor this replaced (there, the only liveness).
  leaseMs: 2 * 60_000,
} as ConstructorParameters<typeof HostGovernor>[1]);
await governor.enter(host, AbortSignal.timeout(30_000));
process.stdout.write('held\n');
setInterval(() => undefined, 60_000);
