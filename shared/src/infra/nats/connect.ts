// One way to connect: named connection, reconnect forever (a restarted nats-server must
// not take the services down with it), status changes in the log, and a connected flag
// for readiness probes (nats.js exposes "closed" but not "currently disconnected"). No
// async traces: with them nats.js captures two stack traces on every request (its context
// and a timeout error made in advance), a cost paid on each of a page's many log and
// Object Store round trips for a trace only a timeout would show (and the error each
// request's end builds for nothing: request-end.ts). Outbound commands are written once per
// event-loop turn, not once per callback (write-coalescing.ts), a pull's timeout builds
// its error only if it fires (lazy-timeouts.ts), a pull whose loop was blocked past its
// end reads what it was sent before it ends (pull-expiry.ts), and a stale server is left at
// once and what a socket left behind by a reconnect still reads is kept out of the new
// socket's messages (reader-handover.ts).
// A frozen or cut-off server is left within NATS_CLIENT_DEFAULTS' bounds, and not waited on
// again when reconnecting (see connectTimeoutMs); a direct get it was picked to answer is
// asked of the stream's leader instead (direct-get-failover.ts).
import { connect, type NatsConnection } from 'nats';
import type { Logger } from '../logger.js';
import { requestEndPatched } from './request-end.js';
import { writeCoalescingPatched } from './write-coalescing.js';
import { lazyTimeoutsPatched } from './lazy-timeouts.js';
import { pullExpiryPatched } from './pull-expiry.js';
import { readerHandoverPatched } from './reader-handover.js';
import { directGetFallbackReady, failOverDirectGets } from './direct-get-failover.js';
import { jsApiFieldsReady } from './leader-message-get.js';

export const NATS_CLIENT_DEFAULTS = {
  /**
   * A server frozen or cut off answers no ping: the client leaves it for another after two
   * unanswered ones (4-6 s), well inside a work message's ack wait (15 s), so a handler's
   * appends, heartbeats and ack reach the cluster before the message is handed to another
   * worker (at 10 s pings that took 20-30 s, and the chaos drill's pages were asked twice).
   */
  pingIntervalMs: 2_000,
  maxPingOut: 2,
  /**
   * How long one dial may take, from TCP connect to the server's first PONG. A stopped
   * (SIGSTOP) server's kernel still accepts the TCP connection, so the dial hangs until this
   * runs out, and nats.js's first reconnect dials the server it just left: at its default of
   * 20 s, a process whose server froze waited out the freeze (the chaos drill's crawl asked
   * no page from the new leader's election to the thaw). A live server answers in
   * milliseconds; a dial that runs out tries the next server.
   */
  connectTimeoutMs: 2_000,
  reconnectTimeWaitMs: 500,
} as const;

const connected = new WeakMap<NatsConnection, boolean>();

export function isNatsConnected(nc: NatsConnection): boolean {
  return !nc.isClosed() && !nc.isDraining() && (connected.get(nc) ?? true);
}

export async function connectNats(url: string, name: string, logger: Logger): Promise<NatsConnection> {
  const nc = await connect({
    servers: url.split(',').map((s) => s.trim()),
    name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: NATS_CLIENT_DEFAULTS.reconnectTimeWaitMs,
    pingInterval: NATS_CLIENT_DEFAULTS.pingIntervalMs,
    maxPingOut: NATS_CLIENT_DEFAULTS.maxPingOut,
    timeout: NATS_CLIENT_DEFAULTS.connectTimeoutMs,
    noAsyncTraces: true,
  });
  connected.set(nc, true);
  failOverDirectGets(nc);
  if (!requestEndPatched) logger.warn('nats.js request ends are not the shape request-end.ts replaces: each request builds an error it throws away');
  if (!lazyTimeoutsPatched) logger.warn('nats.js timeout is not the shape lazy-timeouts.ts replaces: each pull builds an error it throws away');
  if (!pullExpiryPatched) logger.warn('nats.js fetch is not the shape pull-expiry.ts replaces: a pull whose event loop was blocked past its end drops what it was sent');
  if (!readerHandoverPatched) logger.warn('nats.js reads its sockets not in the shape reader-handover.ts relies on: after a reconnect, a replaced socket\'s bytes can be parsed into the new one\'s messages');
  if (!directGetFallbackReady) logger.warn('nats.js headers are not the shape direct-get-failover.ts relies on: a direct get a frozen server was picked for waits out its timeout');
  if (!jsApiFieldsReady) logger.warn('nats.js JetStream manager does not hold nc, prefix and timeout as leader-message-get.ts reads them: the log\'s point reads will fail');
  if (!writeCoalescingPatched) logger.warn('nats.js sendCommand is not the shape write-coalescing.ts replaces: each callback writes to the socket on its own');
  void (async () => {
    for await (const status of nc.status()) {
      if (status.type === 'pingTimer') continue;
      if (status.type === 'disconnect') connected.set(nc, false);
      if (status.type === 'reconnect') connected.set(nc, true);
      logger.info({ nats: status.type, data: String(status.data) }, 'nats connection status');
    }
  })().catch(() => undefined);
  return nc;
}
