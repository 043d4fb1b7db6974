// The gateway as the integration tests drive it with inject(): a real nats-server on a free
// port, the JetStream infrastructure, the embedded store in a temp dir, a real projector
// in-process (so reads see what was appended) and the app built from those. API keys given
// up front are created through the log and projected before the app answers, because a
// key unknown at its first request is cached as unknown for a second.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connect, type JetStreamClient, type JetStreamManager, type NatsConnection } from 'nats';
import { loadConfig, type Config } from '../../shared/src/infra/config.js';
import { KEY_PART, makeEvent } from '../../shared/src/domain/events/index.js';
import { apiKeyHash, apiKeyId, newId, systemClock, type Clock } from '../../shared/src/infra/ids.js';
import { createLogger, type Logger } from '../../shared/src/infra/logger.js';
import { EventLog } from '../../shared/src/infra/nats/event-log.js';
import { ensureInfrastructure } from '../../shared/src/infra/nats/infrastructure.js';
import { PayloadStore } from '../../shared/src/infra/nats/payloads.js';
import type { Plan } from '../../shared/src/domain/plans.js';
import { SqliteStore } from '../../shared/src/infra/store/index.js';
import { buildApp } from '../../services/gateway/src/app.js';
import { ProjectionWaiter } from '../../services/gateway/src/projection-wait.js';
import { Projector } from '../../services/projector/src/projector.js';
import { READ_MODELS } from '../../services/projector/src/read-models/index.js';
import { startNatsServer, type NatsServerHandle } from './nats-server.js';

export type GatewayApp = Awaited<ReturnType<typeof buildApp>>;

export interface GatewayHarnessOptions<S extends SqliteStore, L extends EventLog> {
  /** Keys created and projected before the app starts. */
  keys?: readonly (readonly [key: string, plan: Plan])[];
  /** Environment for loadConfig beyond NATS_URL and DATA_DIR. */
  env?: Record<string, string>;
  clock?: Clock;
  /** A store or log of the test's own (a subclass that observes or races). */
  makeStore?: (file: string) => S;
  makeLog?: (js: JetStreamClient, jsm: JetStreamManager) => L;
  payloadTtlMs?: number;
}

export interface GatewayHarness<S extends SqliteStore = SqliteStore, L extends EventLog = EventLog> {
  server: NatsServerHandle;
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  log: L;
  payloads: PayloadStore;
  store: S;
  projector: Projector;
  waiter: ProjectionWaiter;
  config: Config;
  logger: Logger;
  dir: string;
  app: GatewayApp;
  /** Creates a key through the log and waits until the projection knows it. */
  createKey(key: string, plan: Plan): Promise<void>;
  close(): Promise<void>;
}

export async function startGateway<S extends SqliteStore = SqliteStore, L extends EventLog = EventLog>(
  options: GatewayHarnessOptions<S, L> = {},
): Promise<GatewayHarness<S, L>> {
  const payloadTtlMs = options.payloadTtlMs ?? 60_000;
  const server = await startNatsServer();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-gateway-'));
  const config = loadConfig({ NATS_URL: server.url, DATA_DIR: dir, ...options.env });
  const logger = createLogger('gateway-test', 'silent');
  const nc = await connect({ servers: server.url });
  const jsm = await ensureInfrastructure(nc, { eventRetentionMs: 0, payloadTtlMs });
  const js = nc.jetstream();
  const log = options.makeLog ? options.makeLog(js, jsm) : (new EventLog(js, jsm) as L);
  const payloads = new PayloadStore(js);
  const file = path.join(dir, 'rm.sqlite');
  const store = options.makeStore ? options.makeStore(file) : (new SqliteStore(file) as S);
  await store.init();
  const projector = new Projector({ nc, js, store, payloads, logger, readModels: READ_MODELS, payloadTtlMs });
  await projector.start();
  const waiter = new ProjectionWaiter(nc, store);
  await waiter.start();

  const createKey = async (key: string, plan: Plan): Promise<void> => {
    const now = new Date();
    await log.append(makeEvent('key_created', { kind: 'apikey', id: apiKeyId(key), part: KEY_PART },
      { keyHash: apiKeyHash(key), plan, label: 'test', createdAt: now.toISOString() }, { eventId: newId(), now }), { once: true });
    while (!(await store.apiKeys.find(apiKeyHash(key)))) await new Promise((r) => setTimeout(r, 20));
  };
  for (const [key, plan] of options.keys ?? []) await createKey(key, plan);

  const app = await buildApp({ config, logger, nc, log, payloads, store, waiter, newId, clock: options.clock ?? systemClock });
  await app.ready();
  return {
    server, nc, js, jsm, log, payloads, store, projector, waiter, config, logger, dir, app, createKey,
    close: async () => {
      await app.close();
      waiter.stop();
      await projector.stop();
      await nc.close();
      await store.close();
      await server.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The error type base the harness's tests configure (ERROR_TYPE_BASE). */
export const TEST_ERROR_TYPE_BASE = 'https://errors.example/trawl';

/** Asserts an RFC 7807 answer: status, content type, exactly the spec's fields, its code. */
export function assertProblem(
  res: { statusCode: number; body: string; headers: Record<string, unknown>; json(): any },
  status: number, code: string, detail?: RegExp,
): void {
  assert.equal(res.statusCode, status, res.body);
  assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
  const body = res.json();
  assert.deepEqual(Object.keys(body).sort(), ['code', 'detail', 'requestId', 'status', 'title', 'type']);
  assert.equal(body.code, code);
  assert.equal(body.status, status);
  assert.equal(body.type, `${TEST_ERROR_TYPE_BASE}/${code}`);
  assert.equal(body.requestId, res.headers['x-request-id']);
  if (detail) assert.match(body.detail, detail);
}
