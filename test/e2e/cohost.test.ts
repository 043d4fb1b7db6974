// The service host under `npm start` (scripts/service-host.ts): the light services run in
// one process, each still on its own health port (one metrics registry, labelled with
// their names); a SIGKILL of the host makes the supervisor start it again and jobs still
// complete; a SIGTERM to the supervisor stops every process and it exits 0; a hosted
// service that fails to start ends the host, which the supervisor starts again.
// TRAWL_COHOST=off gives one process per service.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { COHOSTED_SERVICES, SERVICES } from '../../scripts/services.js';
import { alive, descendants, processes, type Proc } from '../support/processes.js';
import { startSite, type TestSite } from '../support/site.js';
import { startSystem, type TrawlSystem } from '../support/system.js';
import { until } from '../support/wait.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

const FINAL = new Set(['COMPLETED', 'FAILED', 'CANCELLED']);
const page = (title: string, links: string[]): string => `<!doctype html><html><head><title>${title}</title></head><body>
<nav>${links.map((l) => `<a href="${l}">${l}</a>`).join(' ')}</nav>
<main><article><h1>${title}</h1><p>This is the page called ${title}. It has a paragraph long enough for a readability
algorithm to keep it as the main content of the page, with a few more words for good measure.</p></article></main></body></html>`;

async function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer().once('error', () => resolve(false)).listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/** A base port with SERVICES.length free ports from it (service i answers on base + i). */
async function freeHealthBase(): Promise<number> {
  for (;;) {
    const base = 20_000 + Math.floor(Math.random() * 30_000);
    const free = await Promise.all(SERVICES.map((_, i) => portFree(base + i)));
    if (free.every(Boolean)) return base;
  }
}

const children = (system: TrawlSystem, pattern: RegExp): Proc[] =>
  descendants(system.pid).filter((p) => p.ppid === system.pid && pattern.test(p.cmdline));

describe('the service host under the supervisor', () => {
  let site: TestSite;
  let hooks: WebhookReceiver;
  let system: TrawlSystem;
  let healthBase: number;
  const healthUrl = (service: string, path: string): string =>
    `http://127.0.0.1:${healthBase + SERVICES.indexOf(service as (typeof SERVICES)[number])}${path}`;

  before(async () => {
    site = await startSite({ '/': page('Home', ['/one', '/two']), '/one': page('One', ['/']), '/two': page('Two', ['/one']) });
    hooks = await startWebhookReceiver(['/done']);
    healthBase = await freeHealthBase();
    system = await startSystem({ env: { HEALTH_PORT: String(healthBase) } });
  });
  after(async () => {
    await system?.stop();
    await Promise.all([site?.close(), hooks?.close()]);
  });

  test('the light services share one host process, each on its own health port; the metrics name them all', async () => {
    const hosts = children(system, /scripts\/service-host\.js/);
    assert.equal(hosts.length, 1, 'one service host');
    const label = `service="${COHOSTED_SERVICES.join('+')}"`;
    for (const name of COHOSTED_SERVICES) {
      assert.match(hosts[0]!.cmdline, new RegExp(` ${name}:${healthBase + SERVICES.indexOf(name)}\\b`));
      assert.equal(children(system, new RegExp(`services/${name}/`)).length, 0, `${name} has no process of its own`);
      const health = await fetch(healthUrl(name, '/readyz'));
      assert.equal(health.status, 200, `${name} ready: ${await health.text()}`);
      const metrics = await (await fetch(healthUrl(name, '/metrics'))).text();
      assert.ok(metrics.includes(`trawl_projector_lag_events{${label}}`), `${name}: ${metrics.slice(0, 500)}`);
    }
    // The others keep their own processes.
    for (const name of SERVICES.filter((s) => !(COHOSTED_SERVICES as readonly string[]).includes(s))) {
      assert.equal(children(system, new RegExp(`services/${name}/`)).length, 1, `${name} runs in its own process`);
    }
  });

  test('SIGKILL of the host: the supervisor starts it again, and a crawl with a webhook completes', async () => {
    const [host] = children(system, /scripts\/service-host\.js/);
    assert.ok(host);
    process.kill(host.pid, 'SIGKILL');
    await until(() => children(system, /scripts\/service-host\.js/).some((p) => p.pid !== host.pid), { timeoutMs: 30_000 });
    await until(async () => (await fetch(healthUrl('crawler-frontier', '/readyz')).catch(() => undefined))?.status === 200, { timeoutMs: 60_000 });
    const created = await system.api('POST', '/api/v1/crawl', { url: site.url('/'), webhookUrl: hooks.url('/done') });
    assert.equal(created.status, 202, JSON.stringify(created.body));
    const job = await system.poll(`/api/v1/crawl/${created.body.id}`, (b: any) => FINAL.has(b.status), 120_000);
    assert.equal(job.status, 'COMPLETED', JSON.stringify({ ...job, data: undefined }));
    assert.deepEqual(job.data.map((d: any) => new URL(d.url).pathname).sort(), ['/', '/one', '/two']);
    await until(() => (hooks.received.get('/done') ?? []).some((h) => h.body.includes('crawl.completed')), { timeoutMs: 30_000 });
  });

  test('SIGTERM to the supervisor stops every process, and it exits 0', async () => {
    const all = descendants(system.pid);
    assert.ok(all.some((p) => /scripts\/service-host\.js/.test(p.cmdline)));
    await system.stop();
    assert.equal(system.exitCode(), 0, system.logs().slice(-3000));
    await until(() => all.every((p) => !alive(p.pid)), { timeoutMs: 10_000 });
    assert.doesNotMatch(system.logs(), /failed to start|error during shutdown/, 'every hosted service stopped in order');
  });
});

describe('TRAWL_COHOST=off', () => {
  test('one process per service', async () => {
    const system = await startSystem({ env: { TRAWL_COHOST: 'off', TRAWL_SERVICES: 'projector,crawler-frontier,gateway' } });
    try {
      assert.equal(children(system, /scripts\/service-host\.js/).length, 0);
      for (const name of ['projector', 'crawler-frontier', 'gateway']) {
        assert.equal(children(system, new RegExp(`services/${name}/`)).length, 1, `${name} runs in its own process`);
      }
    } finally {
      await system.stop();
    }
    assert.equal(system.exitCode(), 0);
  });
});

describe('a hosted service that dies', () => {
  test('ends the host, and the supervisor starts the host again until the service runs', async () => {
    // The webhook-dispatcher's health port is taken: it fails at start, and with it the host.
    const base = await freeHealthBase();
    const dispatcherPort = base + SERVICES.indexOf('webhook-dispatcher');
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(dispatcherPort, '127.0.0.1', resolve));
    const hostPids = new Set<number>();
    const watch = until(() => {
      for (const p of processes()) if (p.cmdline.includes('service-host.js') && p.cmdline.includes(`webhook-dispatcher:${dispatcherPort}`)) hostPids.add(p.pid);
      return hostPids.size >= 2;
    }, { timeoutMs: 60_000, intervalMs: 20 }).then(() => new Promise<void>((resolve) => blocker.close(() => resolve())));
    const booting = startSystem({ env: { HEALTH_PORT: String(base) } });
    await watch;
    const system = await booting;
    try {
      assert.match(system.logs(), /webhook-dispatcher failed to start/);
      await until(async () => (await fetch(`http://127.0.0.1:${dispatcherPort}/readyz`)).status === 200, { timeoutMs: 60_000 });
      for (const name of COHOSTED_SERVICES) {
        await until(async () => (await fetch(`http://127.0.0.1:${base + SERVICES.indexOf(name)}/readyz`)).status === 200, { timeoutMs: 60_000 });
      }
    } finally {
      await system.stop();
    }
    assert.equal(system.exitCode(), 0);
  });
});
