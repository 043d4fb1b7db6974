// The lifecycle every service shares: config, logger, NATS connection, JetStream
// resources, a health server, and an orderly shutdown on SIGINT/SIGTERM (stop pulling,
// finish or hand back in-flight work, close resources, drain NATS).
import type { JetStreamClient, JetStreamManager, NatsConnection } from 'nats';
import { loadConfigOrExit, type Config } from './config.js';
import { initMetrics } from './metrics.js';
import { startHealthServer } from './health.js';
import { createLogger, type Logger } from './logger.js';
import { connectNats, isNatsConnected } from './nats/connect.js';
import { EventLog } from './nats/event-log.js';
import { ensureInfrastructure } from './nats/infrastructure.js';
import { PayloadStore } from './nats/payloads.js';

export interface ServiceContext {
  name: string;
  config: Config;
  logger: Logger;
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  log: EventLog;
  payloads: PayloadStore;
}

export interface RunningService {
  /** Extra readiness checks beyond the NATS connection. */
  ready?(): Promise<Record<string, boolean>>;
  stop(): Promise<void>;
}

export async function connectService(name: string, config: Config, logger: Logger): Promise<ServiceContext> {
  if (!config.natsUrl) throw new Error('NATS_URL is required to run a service (npm start sets it)');
  const nc = await connectNats(config.natsUrl, `trawl-${name}`, logger);
  const jsm = await ensureInfrastructure(nc, { eventRetentionMs: config.eventRetentionMs, payloadTtlMs: config.payloadTtlMs, baselineTtlMs: config.baselineTtlMs, replicas: config.natsReplicas });
  const js = nc.jetstream();
  return { name, config, logger, nc, js, jsm, log: new EventLog(js, jsm, () => isNatsConnected(nc)), payloads: new PayloadStore(js) };
}

/** Entry point helper for a worker service's main.ts: one service, one process. */
export async function runService(name: string, start: (ctx: ServiceContext) => Promise<RunningService>): Promise<void> {
  await runServices([{ name, start }]);
}

export interface HostedService {
  name: string;
  start: (ctx: ServiceContext) => Promise<RunningService>;
  /** Its health and metrics port (default: the config's HEALTH_PORT). */
  healthPort?: number;
}

/**
 * Runs services in this process, each with its own logger, NATS connection and health
 * port: one for a service's main.ts, several for `npm start`'s service host
 * (scripts/service-host.ts). They share the process's metrics registry, labelled with
 * their names joined by "+". A service that fails to start ends the process (exit 1: the
 * supervisor, or Kubernetes, starts it again); SIGINT/SIGTERM stop them all, concurrently,
 * then the process exits 0.
 */
export async function runServices(services: readonly HostedService[]): Promise<void> {
  const config = loadConfigOrExit();
  initMetrics(services.map((s) => s.name).join('+'));
  const running: { name: string; logger: Logger; ctx: ServiceContext; service: RunningService; health: Awaited<ReturnType<typeof startHealthServer>> }[] = [];
  for (const { name, start, healthPort } of services) {
    const logger = createLogger(name, config.logLevel);
    try {
      const ctx = await connectService(name, config, logger);
      const service = await start(ctx);
      const health = await startHealthServer(config.host, healthPort ?? config.healthPort, async () => ({
        nats: isNatsConnected(ctx.nc),
        ...(await service.ready?.()),
      }));
      running.push({ name, logger, ctx, service, health });
      logger.info({ healthPort: health.port }, `${name} started`);
    } catch (err) {
      logger.fatal({ err }, `${name} failed to start`);
      process.exit(1);
    }
  }

  let stopping = false;
  const shutdown = async (signal: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    const force = setTimeout(() => {
      for (const { logger } of running) logger.error('shutdown took too long; exiting');
      process.exit(1);
    }, 30_000);
    force.unref();
    await Promise.all(running.map(async ({ name, logger, ctx, service, health }) => {
      logger.info({ signal }, `${name} shutting down`);
      try {
        await service.stop();
        await ctx.nc.drain();
        await health.close();
      } catch (err) {
        logger.error({ err }, 'error during shutdown');
      }
      logger.info(`${name} stopped`);
    }));
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
}
