// A probe, not a test (issue 26; docs/benchmarks.md): a client on server A of two standalone
// nats-servers writes to it steadily; A is frozen (SIGSTOP). Prints how long after nats.js
// declared the connection stale it left it (the 'disconnect' status), and thaws A after 20 s.
// Run after a build: node dist/test/probes/stale-leave-probe.js
import { setTimeout as sleep } from 'node:timers/promises';
import { connectNats } from '../../shared/src/infra/nats/connect.js';
import { createLogger } from '../../shared/src/infra/logger.js';
import { startNatsServer } from '../support/nats-server.js';

const servers = [await startNatsServer(), await startNatsServer()];
const nc = await connectNats(servers.map((s) => s.url).join(','), 'stale-leave-probe', createLogger('probe', 'silent'));
const a = servers.find((s) => nc.getServer().endsWith(`:${s.port}`))!;
let staleAt = 0;
let leftAt = 0;
void (async () => {
  for await (const s of nc.status()) {
    if (s.type === 'staleConnection') staleAt = Date.now();
    if (s.type === 'disconnect' && !leftAt) leftAt = Date.now();
  }
})();
let stop = false;
const load = (async () => { while (!stop) { nc.publish('sink', 'x'.repeat(2_000 + Math.floor(Math.random() * 2_000))); await sleep(1); } })();
await sleep(500);
const frozenAt = Date.now();
a.signal('SIGSTOP');
for (let i = 0; i < 200 && !leftAt; i++) await sleep(100);
a.signal('SIGCONT');
const thawedAt = Date.now();
await sleep(500);
stop = true;
await load;
console.log(`stale ${staleAt ? staleAt - frozenAt : '-'} ms after the freeze; left ${leftAt ? leftAt - frozenAt : '-'} ms after it (thawed at ${thawedAt - frozenAt} ms)`);
await nc.close();
for (const s of servers) await s.stop();
