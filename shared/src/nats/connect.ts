// One way to connect: named connection, reconnect forever (a restarted nats-server must
// not take the services down with it), and status changes in the log.
import { connect, type NatsConnection } from 'nats';
import type { Logger } from '../logger.js';

export async function connectNats(url: string, name: string, logger: Logger): Promise<NatsConnection> {
  const nc = await connect({
    servers: url.split(',').map((s) => s.trim()),
    name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    pingInterval: 10_000,
  });
  void (async () => {
    for await (const status of nc.status()) {
      if (status.type === 'pingTimer') continue;
      logger.info({ nats: status.type, data: String(status.data) }, 'nats connection status');
    }
  })().catch(() => undefined);
  return nc;
}
