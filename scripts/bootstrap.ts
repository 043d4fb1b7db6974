// `npm start`'s one-off setup, run by the supervisor as a short-lived child process so the
// supervisor, which stays up for as long as the system runs, never loads the NATS client,
// the event log and the account deciders (their modules and heap stay in a process).
// Creates the JetStream resources, the bootstrap API keys (as events, idempotently) and,
// while no console admin exists, an admin invite. The keys come in TRAWL_BOOTSTRAP_KEYS
// (JSON, [{ key, plan }]); the result is the stdout line {"adminInvite": string | null}.
import { loadConfigOrExit, type BootstrapKey } from '../shared/src/infra/config.js';
import { bootstrapKeys } from '../shared/src/domain/api-keys/bootstrap.js';
import { createInvite, hasAdmin, inviteLink } from '../shared/src/domain/accounts/commands.js';
import { createLogger } from '../shared/src/infra/logger.js';
import { connectNats } from '../shared/src/infra/nats/connect.js';
import { EventLog } from '../shared/src/infra/nats/event-log.js';
import { ensureInfrastructure } from '../shared/src/infra/nats/infrastructure.js';

const config = loadConfigOrExit();
const logger = createLogger('supervisor', config.logLevel);

async function main(): Promise<string | null> {
  if (!config.natsUrl) throw new Error('NATS_URL is required');
  const keys = JSON.parse(process.env.TRAWL_BOOTSTRAP_KEYS ?? '[]') as BootstrapKey[];
  const nc = await connectNats(config.natsUrl, 'trawl-supervisor', logger);
  try {
    const jsm = await ensureInfrastructure(nc, { eventRetentionMs: config.eventRetentionMs, payloadTtlMs: config.payloadTtlMs, baselineTtlMs: config.baselineTtlMs, replicas: config.natsReplicas });
    const log = new EventLog(nc.jetstream(), jsm);
    await bootstrapKeys(log, keys);
    if (await hasAdmin(log)) return null;
    return inviteLink(config.publicBaseUrl, (await createInvite(log, { role: 'admin', createdBy: 'operator', bootstrap: true })).token);
  } finally {
    await nc.drain();
  }
}

main().then((adminInvite) => {
  process.stdout.write(`${JSON.stringify({ adminInvite })}\n`);
}, (err: unknown) => {
  process.stderr.write(`${(err as Error).message}\n`);
  process.exitCode = 1;
});
