// Creates the BOOTSTRAP_API_KEYS in the event log, then exits: in Kubernetes the
// counterpart of what `npm start` does before it starts the services. It runs as the
// gateway pod's init container. Appends are `once` per key subject, so running it on
// every pod start is safe: a key that exists already is left as it is (and removing a key
// from the list does not revoke it).
import { pathToFileURL } from 'node:url';
import type { NatsConnection } from 'nats';
import { loadConfigOrExit } from '../shared/src/infra/config.js';
import { bootstrapKeys } from '../shared/src/domain/api-keys/bootstrap.js';
import { createLogger, type Logger } from '../shared/src/infra/logger.js';
import { connectNats } from '../shared/src/infra/nats/connect.js';
import { EventLog } from '../shared/src/infra/nats/event-log.js';
import { ensureInfrastructure } from '../shared/src/infra/nats/infrastructure.js';

/** NATS may still be starting next to us (same `helm install`): retry the first connect. */
async function connectWithRetry(url: string, logger: Logger, waitMs: number): Promise<NatsConnection> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      return await connectNats(url, 'trawl-bootstrap-keys', logger);
    } catch (err) {
      if (Date.now() > deadline) throw err;
      logger.info({ err: (err as Error).message }, 'waiting for NATS');
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  }
}

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const logger = createLogger('bootstrap-keys', config.logLevel);
  if (!config.natsUrl) {
    logger.fatal('NATS_URL is required');
    process.exit(2);
  }
  if (config.bootstrapApiKeys.length === 0) {
    logger.warn('BOOTSTRAP_API_KEYS is empty: no key to create');
    return;
  }
  const nc = await connectWithRetry(config.natsUrl, logger, 120_000);
  try {
    const jsm = await ensureInfrastructure(nc, { eventRetentionMs: config.eventRetentionMs, payloadTtlMs: config.payloadTtlMs, replicas: config.natsReplicas });
    const result = await bootstrapKeys(new EventLog(nc.jetstream(), jsm), config.bootstrapApiKeys);
    logger.info(result, 'bootstrap API keys in place');
  } finally {
    await nc.drain();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err: unknown) => {
    process.stderr.write(`[trawl] bootstrap-keys failed: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  });
}
