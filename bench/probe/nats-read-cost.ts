// A probe, not a test: the client-side CPU of reading from nats-server, with and without
// shared/src/infra/nats/reader-handover.ts (its tag on every socket read). A real nats-server;
// the measured client is a child process, started in turn without the patch, with it, and
// with OTHER_PATCH (an absolute path to another build of it) when given, ROUNDS times each;
// its own CPU (process.cpuUsage) over three loads:
//   - echo: REQUESTS sequential requests answered by this (parent) process (one chunk each);
//   - trickle: TRICKLE messages of 1 KiB, each flushed on its own by this process (about one
//     socket read each: the per-chunk cost shows most here);
//   - flood: FLOOD messages of 1 KiB published by this process to the client's subscription.
// Run after a build: ROUNDS=6 node dist/bench/probe/nats-read-cost.js (figures: docs/benchmarks.md)
import { spawn } from 'node:child_process';
import net from 'node:net';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { connect, type NatsConnection } from 'nats';

const REQUESTS = Number(process.env.REQUESTS ?? 5_000);
const TRICKLE = Number(process.env.TRICKLE ?? 20_000);
const FLOOD = Number(process.env.FLOOD ?? 200_000);
const ROUNDS = Number(process.env.ROUNDS ?? 6);
const BODY = new Uint8Array(1024).fill(120);

interface ClientRun { variant: string; echoCpuMs: number; trickleCpuMs: number; floodCpuMs: number }
type Load = 'echoCpuMs' | 'trickleCpuMs' | 'floodCpuMs';

/** `patch`: the module to import first (none: nats.js as published). */
async function client(url: string, variant: string, patch: string): Promise<void> {
  if (patch) {
    const { readerHandoverPatched } = (await import(patch)) as { readerHandoverPatched: boolean };
    if (!readerHandoverPatched) throw new Error(`${patch} did not apply`);
  }
  const nc = await connect({ servers: url });
  const cpu = (): number => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
  // Warm-up, not measured.
  for (let i = 0; i < 500; i++) await nc.request('probe.echo', BODY);
  let t = cpu();
  for (let i = 0; i < REQUESTS; i++) await nc.request('probe.echo', BODY);
  const echoCpuMs = cpu() - t;
  const receive = async (load: string, n: number): Promise<number> => {
    let got = 0;
    const done = new Promise<void>((resolve) => {
      nc.subscribe(`probe.${load}`, { callback: () => { if (++got === n) resolve(); } });
    });
    await nc.flush();
    const t0 = cpu();
    await nc.request(`probe.start-${load}`, new Uint8Array(0), { timeout: 120_000 });
    await done;
    return cpu() - t0;
  };
  const trickleCpuMs = await receive('trickle', TRICKLE);
  const floodCpuMs = await receive('flood', FLOOD);
  await nc.close();
  const run: ClientRun = { variant, echoCpuMs, trickleCpuMs, floodCpuMs };
  process.stdout.write(JSON.stringify(run) + '\n');
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => { const { port } = s.address() as net.AddressInfo; s.close(() => resolve(port)); });
  });
}

async function serve(nc: NatsConnection): Promise<void> {
  nc.subscribe('probe.echo', { callback: (_e, m) => m.respond(m.data) });
  nc.subscribe('probe.start-trickle', {
    callback: async (_e, m) => {
      m.respond(new Uint8Array(0));
      for (let i = 0; i < TRICKLE; i++) {
        nc.publish('probe.trickle', BODY);
        await nc.flush();
      }
    },
  });
  nc.subscribe('probe.start-flood', {
    callback: async (_e, m) => {
      m.respond(new Uint8Array(0));
      for (let i = 0; i < FLOOD; i++) {
        nc.publish('probe.flood', BODY);
        if (i % 1000 === 999) await nc.flush();
      }
      await nc.flush();
    },
  });
  await nc.flush();
}

const median = (xs: number[]): number => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]!; };

async function main(): Promise<void> {
  const port = await freePort();
  const server = spawn('nats-server', ['-a', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' });
  try {
    const url = `nats://127.0.0.1:${port}`;
    let nc: NatsConnection | undefined;
    for (let i = 0; i < 50 && !nc; i++) nc = await connect({ servers: url }).catch(async () => { await new Promise((r) => setTimeout(r, 100)); return undefined; });
    if (!nc) throw new Error('nats-server did not start');
    await serve(nc);
    const self = fileURLToPath(import.meta.url);
    // OTHER_PATCH=/abs/path.js: a third variant (e.g. an earlier build of the patch).
    const variants: [string, string][] = [['unpatched', ''], ['patched', new URL('../../shared/src/infra/nats/reader-handover.js', import.meta.url).href]];
    if (process.env.OTHER_PATCH) variants.push(['other', pathToFileURL(process.env.OTHER_PATCH).href]);
    const runs: ClientRun[][] = [];
    const runClient = (variant: string, patch: string): Promise<ClientRun> => new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [self, 'client', url, variant, patch], { stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
      child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as ClientRun) : reject(new Error(`client exited ${code}`))));
    });
    for (let r = 0; r < ROUNDS; r++) {
      // Rotate which goes first, so a noisy neighbour's burst does not always hit the same one.
      const round: ClientRun[] = [];
      for (let i = 0; i < variants.length; i++) {
        const [variant, patch] = variants[(r + i) % variants.length]!;
        const run = await runClient(variant, patch);
        round.push(run);
        console.log(`round ${r + 1} ${variant.padEnd(9)} echo ${run.echoCpuMs.toFixed(0)} ms CPU / ${REQUESTS} requests, trickle ${run.trickleCpuMs.toFixed(0)} ms CPU / ${TRICKLE} messages, flood ${run.floodCpuMs.toFixed(0)} ms CPU / ${FLOOD} messages`);
      }
      runs.push(round);
    }
    for (const k of ['echoCpuMs', 'trickleCpuMs', 'floodCpuMs'] as const) {
      const n = { echoCpuMs: REQUESTS, trickleCpuMs: TRICKLE, floodCpuMs: FLOOD }[k];
      const of = (round: ClientRun[], v: string): number => round.find((x) => x.variant === v)![k];
      const base = median(runs.map((round) => of(round, 'unpatched')));
      for (const [v] of variants.slice(1)) {
        // Each round's own ratio (its clients ran back to back), then their median.
        const paired = median(runs.map((round) => of(round, v) / of(round, 'unpatched')));
        const mine = median(runs.map((round) => of(round, v)));
        console.log(`${k} ${v}: median ${mine.toFixed(0)} ms vs unpatched ${base.toFixed(0)} ms; median of the rounds' ratios ${paired.toFixed(3)}x, ${(((mine - base) * 1000) / n).toFixed(2)} us more per message`);
      }
    }
    await nc.close();
  } finally {
    server.kill('SIGTERM');
  }
}

if (process.argv[2] === 'client') await client(process.argv[3]!, process.argv[4]!, process.argv[5] ?? '');
else await main();
