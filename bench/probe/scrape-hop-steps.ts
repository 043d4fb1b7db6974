// A probe, not a test: the wall time of the Object Store and log steps on a scrape's path
// between the fetcher and the answer, against a real nats-server, each way interleaved
// ROUNDS times (the machine's load moves between rounds; the medians are per way):
//   - read a 100 KB page's HTML by its reference: with the chunk named (`chunk`: one direct
//     get of the chunk) and without (meta, then chunk);
//   - the transformer's start: its three log reads, then the HTML read (before), or both at
//     once (now);
//   - an observation's last-observation read after the transform (before) or during it (now:
//     off the path).
// Run after a build: ROUNDS=400 node dist/bench/probe/scrape-hop-steps.js (figures: docs/benchmarks.md)
import { connect } from 'nats';
import { makeEvent } from '../../shared/src/domain/events/index.js';
import { normalizeScrapeOptions } from '../../shared/src/domain/scrape-options.js';
import { EventLog } from '../../shared/src/infra/nats/event-log.js';
import { ensureInfrastructure } from '../../shared/src/infra/nats/infrastructure.js';
import { PayloadStore } from '../../shared/src/infra/nats/payloads.js';
import { articleHtml } from '../lib/pages.js';
import { median } from '../lib/stats.js';
import { startNatsServer } from '../../test/support/nats-server.js';

const ROUNDS = Number(process.env.ROUNDS ?? 400);

const server = await startNatsServer();
const nc = await connect({ servers: server.url });
try {
  const jsm = await ensureInfrastructure(nc, { eventRetentionMs: 0, payloadTtlMs: 600_000 });
  const log = new EventLog(nc.jetstream(), jsm);
  const payloads = new PayloadStore(nc.jetstream());
  const html = articleHtml({ seed: 1, targetBytes: 100_000 });
  const named = await payloads.putText('scrape/probe/p1/raw.html', html, 'text/html; charset=utf-8');
  const { chunk: _c, ...unnamed } = named;
  const at = { kind: 'scrape' as const, id: 'probe', part: 'p1' };
  const now = new Date();
  await log.append(makeEvent('page_requested', at, { url: 'https://example.com/', options: normalizeScrapeOptions({ formats: ['markdown'] }), apiKeyId: 'k', requestedAt: now.toISOString(), depth: 0 }, { eventId: 'e1', now }));
  const reads = () => Promise.all([log.last({ ...at, event: 'page_completed' }), log.last({ ...at, event: 'page_requested' }), log.exists({ ...at, part: 'job', event: 'crawl_cancel_requested' })]);
  const time = async (f: () => Promise<unknown>): Promise<number> => { const t = performance.now(); await f(); return performance.now() - t; };
  const ways = {
    'HTML read, chunk not named (before)': () => payloads.getText(unnamed),
    'HTML read, chunk named (now)': () => payloads.getText(named),
    'start: log reads, then HTML (before)': async () => { await reads(); await payloads.getText(unnamed); },
    'start: log reads and HTML at once (now)': () => Promise.all([reads(), payloads.getText(named)]),
    'last observation read (before: on the path)': () => log.last({ kind: 'observation', id: 'k', part: 'p1', event: 'url_observed' }),
  };
  const samples = Object.fromEntries(Object.keys(ways).map((k) => [k, [] as number[]]));
  for (let r = 0; r < ROUNDS; r++) for (const [name, f] of Object.entries(ways)) samples[name]!.push(await time(f));
  for (const [name, ms] of Object.entries(samples)) console.log(`${name}: median ${median(ms.slice(20)).toFixed(2)} ms (n=${ms.length - 20})`);
} finally {
  await nc.close();
  await server.stop();
}
