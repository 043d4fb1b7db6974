// A service's context (connectService) on a nats-server of its own, for one describe block:
// what the tests of one service's workers share, set up before the block's tests and torn
// down after them, the block's own workers first.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before } from 'node:test';
import { loadConfig } from '../../shared/src/infra/config.js';
import { createLogger } from '../../shared/src/infra/logger.js';
import { connectService, type ServiceContext } from '../../shared/src/infra/service.js';
import { startNatsServer, type NatsServerHandle } from './nats-server.js';

export interface ServiceSuite {
  readonly server: NatsServerHandle;
  readonly ctx: ServiceContext;
}

/** `stopFirst` stops what the block started on the context before the context is drained. */
export function servicePerSuite(service: string, opts: { stopFirst?: () => Promise<unknown> } = {}): ServiceSuite {
  const held = {} as { server: NatsServerHandle; ctx: ServiceContext };
  let dir: string | undefined;
  before(async () => {
    held.server = await startNatsServer();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), `trawl-${service}-`));
    held.ctx = await connectService(service, loadConfig({ NATS_URL: held.server.url, DATA_DIR: dir }), createLogger(`${service}-test`, 'silent'));
  });
  after(async () => {
    await opts.stopFirst?.();
    await held.ctx?.nc.drain();
    await held.server?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });
  return held;
}
