// The chaos drill: Trawl as `npm run cluster` runs it (three nats-servers at NATS_REPLICAS 3,
// two processes of every service, one supervisor), crawling a 200-page site while
//   1. the nats-server that leads the event stream is SIGKILLed;
//   2. once it is back, one process of each service is SIGKILLed;
//   3. then a second nats-server is SIGKILLed;
// and, in the second test, the stream leader cut off from the others by SIGSTOP (a
// partition: alive to its sockets, silent to its peers) until the others have elected a new
// leader and 10 s more.
// The crawls complete with every page once in the results and once in the log, the webhook
// once per webhook id, and the read models equal to the log's events. The site serves every
// page to the end once; a page is asked again only when the fetcher that asked it first was
// SIGKILLed with the request in flight or the response not yet stored (chaos-drill-site.ts
// classes each re-ask; docs/architecture.md, "Replicas", says why no other is allowed).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { connect, type NatsConnection } from 'nats';
import { NATS_CLIENT_DEFAULTS } from '../../shared/src/infra/nats/connect.js';
import { EventLog } from '../../shared/src/infra/nats/event-log.js';
import type { StoredEvent } from '../../shared/src/domain/events/index.js';
import { STREAM_NAME } from '../../shared/src/infra/subjects.js';
import { descendants, alive, type Proc } from '../support/processes.js';
import { startSite, type TestSite } from '../support/site.js';
import { startSystem, type TrawlSystem } from '../support/system.js';
import { until } from '../support/wait.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';
import { DrillLedger } from './chaos-drill-site.js';

const PAGES = 200;
const PAGE_DELAY_MS = 250;
/**
 * How long a page takes while the drill waits for a restarted nats-server to catch up: on a
 * quiet machine the crawl could otherwise end during the wait, before the next death it is
 * meant to meet (still well under a page's timeout).
 */
const WAITING_PAGE_DELAY_MS = 3_000;
/**
 * How soon after the new leader's election the frozen leader's crawl asks pages again: every
 * process on the frozen server has left it by then (pings, shared/src/infra/nats/connect.ts)
 * and dialled a live one. The drill prints the pages asked from then to the thaw (10 s after the
 * election); before, none were, the frontier's reconnect hanging on the frozen server.
 */
const RESUMED_WITHIN_MS = 5_000;
/** How long the leader stays frozen after the others elected a new one. */
const FROZEN_PAST_ELECTION_MS = 10_000;
/** Pages one fetcher loads at once: the most a killed one can have had loading. */
const FETCHER_CONCURRENCY = 3;

describe('chaos drill on a three-node cluster', { timeout: 600_000 }, () => {
  let system: TrawlSystem;
  let site: TestSite;
  let hooks: WebhookReceiver;
  let nc: NatsConnection;
  const ledger = new DrillLedger();
  let pageDelayMs = PAGE_DELAY_MS;
  /** When each step of the running test was reached, printed with its results (where the drill's time goes). */
  let steps: { at: number; prefix: string; marks: string[] } = { at: Date.now(), prefix: '', marks: [] };
  const mark = (what: string): void => {
    const asked = new Set(ledger.requests.filter((r) => r.path.startsWith(`/${steps.prefix}/`)).map((r) => r.path)).size;
    steps.marks.push(`${what} ${((Date.now() - steps.at) / 1000).toFixed(1)} s (${asked} asked)`);
  };

  before(async () => {
    const began = Date.now();
    const routes: Record<string, ReturnType<DrillLedger['route']>> = {};
    for (const prefix of ['a', 'b']) {
      routes[`/${prefix}/`] = ledger.route(page(Array.from({ length: PAGES - 1 }, (_, i) => `/${prefix}/${i}`)), () => pageDelayMs);
      for (let i = 0; i < PAGES - 1; i++) routes[`/${prefix}/${i}`] = ledger.route(page([]), () => pageDelayMs);
    }
    site = await startSite(routes);
    hooks = await startWebhookReceiver(['/a', '/b']);
    system = await startSystem({
      args: ['--cluster', '--nats-nodes', '3', '--replicas', '2'],
      env: {
        CRAWL_ENGINE: 'http', CRAWL_MAX_IN_FLIGHT: '6', FETCHER_CONCURRENCY: String(FETCHER_CONCURRENCY), TRANSFORMER_CONCURRENCY: '1',
        // To read a run's every line afterwards: the services' info logs in DATA_DIR/logs, copied there at the end.
        ...(process.env.CHAOS_DRILL_LOGS_DIR ? { SERVICE_LOGS: 'file', LOG_LEVEL: 'info' } : {}),
      },
    });
    ledger.clients = () => descendants(system.pid).filter((p) => p.cmdline.includes('services/') || p.cmdline.includes('service-host')).map((p) => ({ pid: p.pid, name: `${p.pid}:${/services\/([a-z-]+)|service-host/.exec(p.cmdline)?.[0] ?? p.cmdline.slice(0, 40)}` }));
    // Pings every second: this client leaves a frozen server as soon as the services' do,
    // and, dialling it again first, gives up as soon as they do (at nats.js's 20 s, the new
    // leader was seen up to 26 s after the freeze, and the freeze lasted that much longer).
    nc = await connect({ servers: clusterUrl(system).split(','), maxReconnectAttempts: -1, reconnectTimeWait: 250, pingInterval: 1_000, maxPingOut: 3, timeout: NATS_CLIENT_DEFAULTS.connectTimeoutMs });
    process.stdout.write(`# the cluster and its services up in ${((Date.now() - began) / 1000).toFixed(1)} s\n`);
  });
  after(async () => {
    if (process.env.CHAOS_DRILL_LOGS_DIR && system) fs.cpSync(`${system.dataDir}/logs/services.log`, `${process.env.CHAOS_DRILL_LOGS_DIR}/services.log`);
    await nc?.close();
    // SIGKILL to the whole tree: the drill asserts nothing of a graceful stop, which took
    // 15 s of draining (test/e2e/restart.test.ts covers it).
    await system?.kill();
    if (system) fs.rmSync(system.dataDir, { recursive: true, force: true });
    await hooks?.close();
    await site?.close();
  });

  test('SIGKILL the stream leader, then one of each service, then a second nats-server', async () => {
    const id = await startCrawl('a');
    await progress('a', 20);
    const leader = await leaderNode(nc);
    killNats(system, leader, ledger);
    mark('leader killed');
    await natsBackMidCrawl(leader);
    mark('back');
    await progress('a', 70);
    for (const name of ['services/fetcher/', 'services/transformer/', 'services/gateway/', 'scripts/service-host']) await killOne(system, name, ledger);
    mark('services killed');
    await progress('a', 120);
    const second = ['n1', 'n2', 'n3'].find((n) => n !== leader)!;
    killNats(system, second, ledger);
    mark('second killed');
    await natsBackMidCrawl(second);
    mark('back');
    // Only the pages the killed fetcher had loading may be asked again (verify classes each).
    await verify(id, 'a');
  });

  // A page whose handler meets the election (no responders, timeouts) runs again in place
  // (shared/src/infra/nats/worker.ts) instead of spending its attempts: none may fail.
  test('a nats-server cut off from its peers (SIGSTOP) past the election timeout, then back', async () => {
    const id = await startCrawl('b');
    await progress('b', 30);
    const leader = await leaderNode(nc);
    // Listed before the freeze: the list is the meta leader's to answer, and it may be the one frozen.
    const crawlConsumers = await consumersNamed(nc, CRAWL_CONSUMERS);
    const frozen = natsProcess(system, leader);
    ledger.died(`SIGSTOP ${leader}`, frozen.pid);
    process.kill(frozen.pid, 'SIGSTOP');
    mark('leader frozen');
    let electedAt = Number.POSITIVE_INFINITY;
    let consumerLeaders = '';
    let thawedAt = 0;
    try {
      // The others elect a new leader, and the crawl goes on without the cut-off node.
      await until(async () => (await leaderNode(nc)) !== leader, { timeoutMs: 60_000, intervalMs: 500 });
      electedAt = Date.now();
      mark('new leader');
      await sleep(RESUMED_WITHIN_MS);
      // Which server leads each of the crawl's consumers then (one still led by the frozen
      // server hands out nothing until its own election): printed with the pages asked.
      consumerLeaders = await leadersOf(nc, crawlConsumers);
      await sleep(Math.max(0, electedAt + FROZEN_PAST_ELECTION_MS - Date.now()));
    } finally {
      process.kill(frozen.pid, 'SIGCONT');
      thawedAt = Date.now();
      ledger.thawed(frozen.pid);
      mark('thawed');
    }
    const askedWhileFrozen = ledger.requests.filter((r) => r.path.startsWith('/b/') && r.startedAt >= electedAt + RESUMED_WITHIN_MS && r.startedAt <= thawedAt).length;
    process.stdout.write(`# b: pages asked from ${RESUMED_WITHIN_MS / 1000} s after the new leader to the thaw: ${askedWhileFrozen} (${leader} frozen; consumer leaders then: ${consumerLeaders})\n`);
    const events = await verify(id, 'b');
    if (askedWhileFrozen === 0) {
      const frozenAt = ledger.deaths.findLast((d) => d.pid === frozen.pid)!.at;
      process.stdout.write(`${inFlightAcross(events, frozenAt, thawedAt).replace(/^/gm, '#   ')}\n`);
    }
    // One server of three hung: the crawl should go on once the others have a leader. Printed,
    // not asserted: with the 2 s dial and the direct-get fail-over it went on in 8 of 10 runs
    // (53-95 pages), and 2 still asked none; one cause since found (a log read's consumer
    // placed on the frozen server waited for the thaw: ordered-start.ts), the pages in flight
    // are printed when it stands still (issue 26; docs/benchmarks.md).
    if (askedWhileFrozen === 0) process.stdout.write(`# b: WARNING: the crawl stood still while ${leader} was frozen\n`);
    const ranAgain = system.logs().split('\n').filter((l) => l.includes('NATS unavailable; running the message again in place')).length;
    process.stdout.write(`# b: handler runs repeated in place through the outage (in the last 200 kB of logs): ${ranAgain}\n`);
  });

  /** Every page of the site answers after `delayMs` from now on (pages already loading keep theirs). */
  function pace(delayMs: number): void {
    pageDelayMs = delayMs;
  }

  /** natsBack with the site slowed meanwhile: the crawl is still going when the wait ends. */
  async function natsBackMidCrawl(node: string): Promise<void> {
    pace(WAITING_PAGE_DELAY_MS);
    try {
      await natsBack(system, nc, node);
    } finally {
      pace(PAGE_DELAY_MS);
    }
  }

  async function startCrawl(prefix: string): Promise<string> {
    steps = { at: Date.now(), prefix, marks: [] };
    const created = await system.api('POST', '/api/v1/crawl', { url: site.url(`/${prefix}/`), limit: PAGES, webhookUrl: hooks.url(`/${prefix}`) });
    assert.equal(created.status, 202, JSON.stringify(created.body));
    return created.body.id as string;
  }

  /** Until the crawl has completed `pages` pages (the gateway that answers may be restarting). */
  /**
   * Until the site has been asked for `pages` of the crawl's pages: the crawl's own progress,
   * as it happens. (The status read model can trail it by many pages while the projector
   * waits out an election, and a quiet machine's crawl could end unseen in between.)
   */
  async function progress(prefix: string, pages: number): Promise<void> {
    const asked = (): number => [...site.hits].filter(([path]) => path.startsWith(`/${prefix}/`)).length;
    try {
      await until(() => asked() >= pages, { timeoutMs: 240_000, intervalMs: 100 });
      mark(`${pages} pages`);
    } catch (err) {
      const errors = system.logs().split('\n').filter((l) => /"level":(40|50|60)/.test(l)).slice(-30).join('\n');
      throw new Error(`${(err as Error).message}; waiting for ${pages} pages, the site was asked for ${asked()}\n${errors}`);
    }
  }

  /** Checks the crawl's end, the site's ledger, the log and the webhooks; returns the crawl's events. */
  async function verify(id: string, prefix: string): Promise<StoredEvent[]> {
    // Long-polls of 2 s: the projector's notice that wakes a wait is at most once, and one
    // lost to a death left the drill waiting out 20 s steps (the end seen 14 s late).
    const job = await system.poll(`/api/v1/crawl/${id}`, (b: any) => ['COMPLETED', 'FAILED', 'CANCELLED'].includes(b.status), 300_000, { stepMs: 2_000 })
      .catch(async (err: Error) => { throw new Error(`${err.message}\n${await standstill(id, prefix)}`); });
    mark('crawl ended');
    assert.equal(job.status, 'COMPLETED', JSON.stringify(job).slice(0, 1000));
    const data = await allPages(`/api/v1/crawl/${id}`);
    const urls = data.map((d: any) => new URL(d.url).pathname);
    // Read once every replica is current: the read's consumer may be placed on a server just
    // thawed and still catching up, whose copy ends short (199 of 200 page_completed, twice
    // in 15 runs; what this means for the services' own reads: docs/benchmarks.md).
    await until(async () => {
      const info = await (await nc.jetstreamManager()).streams.info(STREAM_NAME);
      return (info.cluster?.replicas ?? []).filter((r) => r.current).length === 2;
    }, { timeoutMs: 60_000, intervalMs: 500 });
    const log = new EventLog(nc.jetstream(), await nc.jetstreamManager());
    const events = await log.history('crawl', id);
    const failed = events.filter((e) => e.event === 'page_failed').map((e) => `${e.part}: ${JSON.stringify(e.data).slice(0, 300)}`);
    assert.equal(urls.length, PAGES, `every page in the results (failedUrls ${job.failedUrls}; page_failed: ${failed.join('; ')})`);
    assert.equal(new Set(urls).size, PAGES, 'no page twice in the results');
    assert.equal(job.completedUrls, PAGES);
    // Each page with its content: the projector once applied a page_completed whose result it
    // could not read for NATS's "no responders" after the thaw without its content (5 pages in
    // one run of the SIGSTOP test; services/projector/src/projector.ts).
    const empty = data.filter((d: any) => !d.markdown?.includes('A page')).map((d: any) => new URL(d.url).pathname);
    assert.deepEqual(empty, [], 'every page in the results with its content');

    // The site: every page served to the end once. A page is asked again only when the fetcher
    // that asked it first was SIGKILLed with the request in flight (cut off) or with the
    // response in hand but not yet stored: what a process takes with it when it dies.
    const repeats = ledger.repeats(`/${prefix}/`);
    const servedTwice = ledger.servedTwice(`/${prefix}/`);
    const count = (klass: string): number => repeats.filter((r) => r.klass === klass).length;
    process.stdout.write(`# ${prefix}: ${PAGES} pages; served to the end twice: ${servedTwice.length}; asked again: ${repeats.length} (cut off by a fetcher's SIGKILL ${count('cut by a kill')}, served to a fetcher SIGKILLed before it stored the page ${count('served, then killed')}, served in a freeze ${count('served in a freeze')}, other ${count('repeat')})\n`);
    if (repeats.length) process.stdout.write(`${ledger.describe(repeats).replace(/^/gm, '#   ')}\n`);
    // What the log says of each page asked again: its events in order, with each start's claimant.
    for (const { path } of repeats) {
      const parts = events.filter((e) => e.event === 'page_requested' && new URL((e.data as { url: string }).url).pathname === path).map((e) => e.part);
      const steps = events.filter((e) => parts.includes(e.part)).map((e) => `${e.part.slice(0, 6)}:${e.seq}:${e.event}${e.event === 'page_started' ? `(${JSON.stringify(e.data)})` : ''}`);
      process.stdout.write(`#   ${path} in the log: ${steps.join(' ')}\n`);
    }
    assert.deepEqual(urls.filter((u: string) => !ledger.requests.some((r) => r.path === u && r.outcome === 'served')), [], 'every page served to the end');
    assert.deepEqual(repeats.filter((r) => r.klass === 'repeat').map((r) => r.path), [], `asked again with no fetcher killed:\n${ledger.describe(repeats)}`);
    // A fetcher cut off with its frozen server is not judged gone (its liveness counts as
    // unsure while a server is out of the cluster): its page is never asked again.
    assert.equal(count('served in a freeze'), 0, `served to a fetcher cut off with its server, asked again:\n${ledger.describe(repeats)}`);
    assert.ok(servedTwice.every((p) => repeats.some((r) => r.path === p && r.klass === 'served, then killed')), `served twice: ${servedTwice.join(', ')}`);
    assert.equal(site.hits.get(`/${prefix}/`), 1, 'the start page asked once');

    // The read model equals the log: the pages completed in the log are the pages served.
    const completedParts = new Set(events.filter((e) => e.event === 'page_completed').map((e) => e.part));
    assert.equal(completedParts.size, PAGES, 'page_completed once per page in the log');
    assert.equal(events.filter((e) => e.event === 'page_completed').length, PAGES, 'no page completed twice in the log');

    // The webhook: crawl.completed arrived, once per webhook id.
    await until(() => (hooks.received.get(`/${prefix}`) ?? []).some((h) => h.body.includes('crawl.completed')), { timeoutMs: 60_000 });
    mark('webhook');
    const lastServed = Math.max(...ledger.requests.filter((r) => r.path.startsWith(`/${prefix}/`)).map((r) => r.endedAt ?? 0));
    process.stdout.write(`# ${prefix}: steps: ${steps.marks.join(', ')} (the site's last page ended ${((lastServed - steps.at) / 1000).toFixed(1)} s)\n`);
    const ids = (hooks.received.get(`/${prefix}`) ?? []).map((h) => h.headers['webhook-id']);
    assert.equal(new Set(ids).size, ids.length, `a webhook id delivered twice: ${ids.join(', ')}`);
    return events;
  }

  /**
   * Where a crawl that did not end stands (issue 26: a standstill after the thaw, 91 of 200):
   * the site's count, the log's pages in flight with their steps, and each of the crawl's
   * consumers as its leader sees it (pending, waiting for an ack, delivered, ack floor).
   */
  async function standstill(id: string, prefix: string): Promise<string> {
    const lines = [`the site was asked for ${new Set(ledger.requests.filter((r) => r.path.startsWith(`/${prefix}/`)).map((r) => r.path)).size} pages`];
    try {
      const events = await new EventLog(nc.jetstream(), await nc.jetstreamManager()).history('crawl', id);
      lines.push(`the log: ${events.filter((e) => e.event === 'page_requested').length} requested, ${events.filter((e) => e.event === 'page_completed').length} completed, last seq ${events.at(-1)?.seq}`);
      lines.push(inFlightAcross(events, Date.parse(events[0]!.occurredAt), Date.now()).split('\n').filter((l) => !/done/.test(l)).join('\n'));
      const jsm = await nc.jetstreamManager({ timeout: 5_000 });
      for (const name of await consumersNamed(nc, CRAWL_CONSUMERS)) {
        const i = await jsm.consumers.info(STREAM_NAME, name).catch((e: Error) => e);
        lines.push(i instanceof Error ? `${name}: ${i.message}` : `${name}: leader ${i.cluster?.leader} pending ${i.num_pending} ack_pending ${i.num_ack_pending} waiting ${i.num_waiting} redelivered ${i.num_redelivered} delivered ${i.delivered.stream_seq} ack_floor ${i.ack_floor.stream_seq}`);
      }
      // The fleet's host slots (services/fetcher/src/fleet/host-slots.ts): each held one and its holder.
      const slots = await jsm.streams.info('TRAWL_HOST_SLOTS', { subjects_filter: '>' }).catch(() => undefined);
      for (const subject of Object.keys(slots?.state.subjects ?? {})) {
        const m = await jsm.streams.getMessage('TRAWL_HOST_SLOTS', { last_by_subj: subject }).catch(() => undefined);
        lines.push(`slot ${subject}: seq ${m?.seq} holder ${m?.header.get('Trawl-Slot-Holder')} since ${m?.time.toISOString()}`);
      }
      // Who folds each read-model partition (a status standing still while the log moves on is the projector's).
      const leases = await nc.jetstream().views.kv('trawl-leases', { bindOnly: true }).catch(() => undefined);
      for (const partition of ['accounts', 'jobs', 'charts']) {
        const e = await leases?.get(`projector.lease.${partition}`).catch(() => null);
        lines.push(`projector lease ${partition}: ${e && e.length ? `${e.string()} (written ${e.created.toISOString()})` : 'none'}`);
      }
    } catch (err) {
      lines.push(`(could not read the log: ${String(err)})`);
    }
    return lines.join('\n');
  }

  async function allPages(first: string): Promise<any[]> {
    const out: any[] = [];
    let next: string | undefined = first;
    let unavailable = 0;
    while (next) {
      const path = next.startsWith('http') ? new URL(next).pathname + new URL(next).search : next;
      let res: any = await system.api('GET', path);
      // A 503 says "retry in a few seconds": for about 7 s after a thaw nats-server answers
      // "no responders" on the streams the frozen server led (docs/benchmarks.md). Counted, printed.
      for (const until = Date.now() + 20_000; res.status === 503 && Date.now() < until; unavailable++) {
        await sleep(1_000);
        res = await system.api('GET', path);
      }
      assert.equal(res.status, 200, JSON.stringify(res.body).slice(0, 500));
      out.push(...res.body.data);
      next = res.body.data.length ? res.body.next : undefined;
    }
    if (unavailable) process.stdout.write(`# results read: ${unavailable} answers of 503 (retried after 1 s)\n`);
    return out;
  }
});

/**
 * Each page of the crawl that was in flight at some moment from `from` to `to` (requested
 * before `to`, completed after `from`): its steps in the log, in seconds from `from`, with
 * the fetcher that started it: where a crawl standing still waits.
 */
function inFlightAcross(events: StoredEvent[], from: number, to: number): string {
  const at = (e: StoredEvent): number => Date.parse(e.occurredAt);
  const rel = (e: StoredEvent): string => ((at(e) - from) / 1000).toFixed(1);
  const short: Record<string, string> = { page_requested: 'req', page_started: 'start', page_fetched: 'fetched', page_completed: 'done', crawl_links_discovered: 'links', page_failed: 'FAILED' };
  const byPart = new Map<string, StoredEvent[]>();
  for (const e of events) if (e.part !== 'job') byPart.set(e.part, [...(byPart.get(e.part) ?? []), e]);
  const lines = [...byPart].filter(([, es]) => {
    const requested = es.find((e) => e.event === 'page_requested');
    const completed = es.find((e) => e.event === 'page_completed');
    return requested && at(requested) < to && (!completed || at(completed) > from);
  }).map(([part, es]) => `${part.slice(0, 6)}: ${es.map((e) => `${short[e.event] ?? e.event}${e.event === 'page_started' ? `(${String((e.data as { worker?: string }).worker).slice(-9)})` : ''} ${rel(e)}`).join(', ')}`);
  return [`in flight from the freeze (0 s) to the thaw (${((to - from) / 1000).toFixed(1)} s), steps in s from the freeze:`, ...lines].join('\n');
}

function page(links: string[]): string {
  return `<html><head><title>p</title></head><body><main><h1>A page</h1><p>${'Words that make a page worth keeping. '.repeat(8)}</p>${links.map((l) => `<a href="${l}">${l}</a>`).join(' ')}</main></body></html>`;
}

function clusterUrl(system: TrawlSystem): string {
  const m = /JetStream cluster of \d+ nats-servers at (\S+)/.exec(system.logs());
  assert.ok(m, `no cluster URL in the banner:\n${system.logs().slice(-2000)}`);
  return m[1]!;
}

async function leaderNode(nc: NatsConnection): Promise<string> {
  let name = '';
  await until(async () => {
    name = (await (await nc.jetstreamManager()).streams.info(STREAM_NAME)).cluster?.leader ?? '';
    return name !== '';
  }, { timeoutMs: 30_000, intervalMs: 250 });
  return name;
}

/** The durable consumers a crawl's pages go through (name prefixes). */
const CRAWL_CONSUMERS = ['crawler-frontier-crawl', 'fetcher-crawl', 'transformer'];

/** The names of the stream's consumers that start with one of `prefixes` (the frontier runs one per trigger event). */
async function consumersNamed(nc: NatsConnection, prefixes: string[]): Promise<string[]> {
  const infos = await (await nc.jetstreamManager()).consumers.list(STREAM_NAME).next();
  return infos.map((i) => i.name).filter((name) => prefixes.some((p) => name.startsWith(p)));
}

/** `name: leader` of each consumer ('?' when its info does not come within 2 s). */
async function leadersOf(nc: NatsConnection, names: string[]): Promise<string> {
  const jsm = await nc.jetstreamManager({ checkAPI: false, timeout: 2_000 });
  const leaders = await Promise.all(names.map((name) => jsm.consumers.info(STREAM_NAME, name).then((i) => i.cluster?.leader ?? 'none', () => '?')));
  return names.map((name, i) => `${name}: ${leaders[i]}`).join(', ');
}

function natsProcess(system: TrawlSystem, node: string): Proc {
  const found = descendants(system.pid).find((p) => p.cmdline.startsWith('nats-server') && p.cmdline.includes(` -n ${node} `));
  assert.ok(found, `no nats-server ${node}`);
  return found;
}

function killNats(system: TrawlSystem, node: string, ledger: DrillLedger): void {
  const pid = natsProcess(system, node).pid;
  ledger.died(`SIGKILL nats-server ${node}`, pid);
  process.kill(pid, 'SIGKILL');
}

/** SIGKILLs one process whose command line has `part` (the first of its replicas). */
async function killOne(system: TrawlSystem, part: string, ledger: DrillLedger): Promise<void> {
  const processes = (): Proc[] => descendants(system.pid).filter((p) => p.cmdline.includes(part) && !p.cmdline.includes('chrom'));
  // Both up (one may be being restarted by the supervisor on a loaded machine).
  await until(() => processes().length >= 2, { timeoutMs: 30_000, intervalMs: 250 }).catch(() => undefined);
  const found = processes();
  assert.ok(found.length >= 2, `${part}: expected two processes, found ${found.length}`);
  ledger.died(`SIGKILL ${part}`, found[0]!.pid);
  process.kill(found[0]!.pid, 'SIGKILL');
}

/** Until the supervisor has started `node` again and the stream has every replica current. */
async function natsBack(system: TrawlSystem, nc: NatsConnection, node: string): Promise<void> {
  await until(() => {
    const p = descendants(system.pid).find((q) => q.cmdline.startsWith('nats-server') && q.cmdline.includes(` -n ${node} `));
    return p !== undefined && alive(p.pid);
  }, { timeoutMs: 30_000, intervalMs: 100 });
  await until(async () => {
    const info = await (await nc.jetstreamManager()).streams.info(STREAM_NAME);
    return (info.cluster?.replicas ?? []).filter((r) => r.current).length === 2;
  }, { timeoutMs: 60_000, intervalMs: 500 });
  await sleep(500);
}
