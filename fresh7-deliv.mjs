import { connect, DeliverPolicy } from 'nats';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
const port = 14999 + Math.floor(Math.random() * 1000);
fs.rmSync('/tmp/fresh7-js', { recursive: true, force: true });
const srv = spawn('nats-server', ['-js', '-a', '127.0.0.1', '-p', String(port), '-sd', '/tmp/fresh7-js'], { stdio: 'ignore' });
await new Promise((r) => setTimeout(r, 700));
const cpu = (pid) => { const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' '); return (+f[11] + +f[12]) * 10; };
const nc = await connect({ servers: `127.0.0.1:${port}` });
const jsm = await nc.jetstreamManager();
await jsm.streams.add({ name: 'S', subjects: ['trawl.>'] });
const js = nc.jetstream();
const N = 20000; const body = new Uint8Array(600);
const ps = []; for (let i = 0; i < N; i++) { ps.push(js.publish(`trawl.crawl.c${i % 50}.p${i}.page_completed`, body)); if (ps.length > 500) await Promise.all(ps.splice(0)); } await Promise.all(ps);
for (const parts of [1, 3]) {
  const s0 = cpu(srv.pid); const c0 = process.cpuUsage();
  await Promise.all(Array.from({ length: parts }, async () => {
    const c = await js.consumers.get('S', { filterSubjects: 'trawl.>', deliver_policy: DeliverPolicy.All });
    const msgs = await c.consume({ max_messages: 512 });
    let n = 0; for await (const m of msgs) { if (++n === N) break; }
  }));
  const cu = process.cpuUsage(c0);
  console.log(`${parts} ordered consumers: nats-server ${(cpu(srv.pid) - s0) / parts / N * 1000} µs/delivery, client ${((cu.user + cu.system) / parts / N).toFixed(1)} µs/delivery`);
}
await nc.close(); srv.kill();
