// SSRF through the whole system, as an attacker would try it: more than forty spellings of
// internal addresses, on every endpoint that takes a URL (webhookUrl included), plus
// redirects and subresources of an allowed page that point inside. The only allowed range
// is 127.0.0.3/32, where the "public" site lives; listeners on 127.0.0.1, 127.0.0.2 and
// [::1] (the same port on each) stand for internal services and must see no request at
// all. A form the gateway cannot judge (a name that does not resolve) may be accepted,
// but then its job fails.
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import { startSite, type TestSite } from '../support/site.js';
import { freePort } from '../support/nats-server.js';
import { startSystem, type TrawlSystem } from '../support/system.js';

let system: TrawlSystem;
let site: TestSite;
let port: number;
const internalHits: string[] = [];
const listeners: http.Server[] = [];

async function listen(host: string): Promise<void> {
  const server = http.createServer((req, res) => { internalHits.push(`${host} ${req.method} ${req.url}`); res.end('secret'); });
  await new Promise<void>((resolve) => {
    server.once('error', () => resolve()); // no IPv6 loopback here: nothing to listen on
    server.listen(port, host, () => { listeners.push(server); resolve(); });
  });
}

before(async () => {
  port = await freePort();
  await Promise.all(['127.0.0.1', '127.0.0.2', '::1'].map(listen));
  site = await startSite({}, '127.0.0.3');
  site.route('/', '<html><body><h1>Public</h1><p>A public page.</p></body></html>');
  site.route('/302', { body: '', status: 302, headers: { location: `http://127.0.0.2:${port}/via-302` } });
  site.route('/301-v6', { body: '', status: 301, headers: { location: `http://[::ffff:127.0.0.2]:${port}/via-301` } });
  site.route('/307-name', { body: '', status: 307, headers: { location: `http://localhost:${port}/via-307` } });
  site.route('/refresh', `<html><head><meta http-equiv="refresh" content="0;url=http://127.0.0.1:${port}/via-refresh"></head><body><p>Moving on.</p></body></html>`);
  site.route('/script-nav', `<html><body><p>Leaving.</p><script>location.href='http://127.0.0.2:${port}/via-script'</script></body></html>`);
  site.route('/subresources', `<html><body><h1>Still public</h1><p>The page itself is fine.</p>
    <img src="http://127.0.0.1:${port}/img.png"><img src="http://[::1]:${port}/v6.png">
    <script src="http://127.0.0.2:${port}/app.js"></script><link rel="stylesheet" href="http://0x7f000001:${port}/x.css">
    <iframe src="http://localhost:${port}/frame"></iframe>
    <script>fetch('http://127.0.0.2:${port}/fetch').catch(() => {}); new Image().src = 'http://[::ffff:7f00:1]:${port}/beacon';
      try { new WebSocket('ws://127.0.0.1:${port}/ws'); } catch {}</script></body></html>`);
  system = await startSystem({ env: { SSRF_ALLOW_CIDRS: '127.0.0.3/32', RATE_LIMITS: 'off' } });
});

after(async () => {
  await system?.stop();
  await site?.close();
  await Promise.all(listeners.map((s) => new Promise((r) => s.close(r))));
});

const internalForms = (): string[] => [
  // IPv4 literals of loopback and their encodings
  `http://127.0.0.1:${port}/`, `http://127.0.0.2:${port}/`, `http://2130706433:${port}/`, `http://0x7f000001:${port}/`,
  `http://0177.0.0.1:${port}/`, `http://0x7f.0.0.1:${port}/`, `http://127.1:${port}/`, `http://127.0.1:${port}/`,
  `http://127.000.000.002:${port}/`, `http://%31%32%37.0.0.1:${port}/`, `http://0:${port}/`, `http://0.0.0.0:${port}/`,
  // IPv6 forms of loopback, and IPv6 forms that embed an IPv4 loopback address
  `http://[::1]:${port}/`, `http://[0:0:0:0:0:0:0:1]:${port}/`, `http://[::127.0.0.1]:${port}/`, `http://[::7f00:2]:${port}/`,
  `http://[::ffff:127.0.0.1]:${port}/`, `http://[::ffff:7f00:2]:${port}/`, `http://[::ffff:0:127.0.0.1]:${port}/`,
  `http://[64:ff9b::127.0.0.1]:${port}/`, `http://[64:ff9b:1::7f00:1]:${port}/`, `http://[2002:7f00:1::]:${port}/`,
  `http://[2001:0:4136:e378:8000:63bf:80ff:fffe]:${port}/`, `http://[::]:${port}/`,
  // private, link-local, shared and reserved ranges; cloud metadata
  'http://10.0.0.1/', 'http://172.16.0.1/', 'http://192.168.1.1/', 'http://169.254.169.254/latest/meta-data/',
  'http://[fd00:ec2::254]/', 'http://100.64.0.1/', 'http://[fe80::1]/', 'http://[fc00::1]/', 'http://224.0.0.1/',
  'http://255.255.255.255/', 'http://198.18.0.1/', 'http://192.0.0.170/',
  // names: loopback by definition, trailing dots, mixed case
  `http://localhost:${port}/`, `http://LOCALHOST:${port}/`, `http://localhost.:${port}/`, `http://LocalHost..:${port}/`,
  `http://api.localhost:${port}/`, `http://metadata.google.internal/`,
  // credentials and schemes other than http(s)
  `http://user:pass@127.0.0.3:${site.port}/`, `http://127.0.0.3:${site.port}@127.0.0.2:${port}/`,
  'file:///etc/passwd', `ftp://127.0.0.2:${port}/`, `gopher://127.0.0.1:${port}/_GET`, `ws://127.0.0.1:${port}/`,
  'javascript:alert(1)', 'data:text/html,<h1>x</h1>', 'chrome://version', `view-source:http://127.0.0.1:${port}/`,
];

/** Forms whose host is a name with no address here (their jobs fail with NETWORK_ERROR). */
const UNRESOLVABLE = { test: (url: string): boolean => {
  try { return ['metadata.google.internal', 'text', 'version', 'etc', 'alert(1)'].includes(new URL(url).hostname); } catch { return false; }
} };

async function finalStatus(path: string): Promise<string> {
  const job = await system.poll(path, (b: any) => ['COMPLETED', 'FAILED', 'CANCELLED'].includes(b.status), 90_000);
  return job.status;
}

describe('SSRF: internal addresses are never reached', () => {
  test('more than forty forms on POST /scrape are refused, or fail without reaching anything', async () => {
    const forms = internalForms();
    assert.ok(forms.length >= 40, `${forms.length} forms`);
    for (const url of forms) {
      const res = await system.api('POST', '/api/v1/scrape', { url });
      if (res.status === 400) {
        assert.ok(['URL_NOT_ALLOWED', 'INVALID_URL'].includes(res.body.code), `${url}: ${JSON.stringify(res.body)}`);
        continue;
      }
      assert.equal(res.status, 202, `${url}: ${res.status} ${JSON.stringify(res.body)}`);
      assert.equal(await finalStatus(`/api/v1/scrape/${res.body.id}`), 'FAILED', url);
    }
    assert.deepEqual(internalHits, []);
  });

  test('the same forms as crawl, batch and map URLs and as a webhookUrl', async () => {
    for (const url of internalForms()) {
      const crawl = await system.api('POST', '/api/v1/crawl', { url, limit: 1 });
      if (crawl.status === 202) assert.equal(await finalStatus(`/api/v1/crawl/${crawl.body.id}`), 'FAILED', url);
      else assert.equal(crawl.status, 400, url);
      const map = await system.api('POST', '/api/v1/map', { url });
      // A map answers at once: a name that does not resolve is the spec's NETWORK_ERROR (500).
      const unresolved = map.status === 500 && map.body.code === 'NETWORK_ERROR' && UNRESOLVABLE.test(url);
      assert.ok(map.status === 400 || unresolved, `${url}: ${map.status} ${JSON.stringify(map.body)}`);
      if (!/^https?:\/\//.test(url)) continue;
      const webhookUrl = url;
      const hook = await system.api('POST', '/api/v1/crawl', { url: site.url('/'), limit: 1, webhookUrl });
      // A name that does not resolve cannot be judged until delivery (which then fails).
      if (!UNRESOLVABLE.test(webhookUrl)) assert.equal(hook.status, 400, `webhookUrl ${webhookUrl}: ${JSON.stringify(hook.body)}`);
    }
    const batch = await system.api('POST', '/api/v1/batch/scrape', { urls: internalForms().slice(0, 20) });
    assert.equal(batch.status, 400, JSON.stringify(batch.body));
    assert.deepEqual(internalHits, []);
  });

  test('redirects, refreshes and script navigations into internal addresses are not followed', async () => {
    for (const path of ['/302', '/301-v6', '/307-name', '/refresh', '/script-nav']) {
      const res = await system.api('POST', '/api/v1/scrape', { url: site.url(path) });
      assert.equal(res.status, 202, path);
      await finalStatus(`/api/v1/scrape/${res.body.id}`);
    }
    assert.deepEqual(internalHits, []);
  });

  test('subresources of an allowed page that point inside are blocked; the page still completes', async () => {
    const res = await system.api('POST', '/api/v1/scrape', { url: site.url('/subresources'), formats: ['markdown', 'screenshot'] });
    assert.equal(res.status, 202);
    const job = await system.poll(`/api/v1/scrape/${res.body.id}`, (b: any) => b.status === 'COMPLETED' || b.status === 'FAILED', 90_000);
    assert.equal(job.status, 'COMPLETED', JSON.stringify(job.error));
    assert.match(job.markdown, /The page itself is fine/);
    assert.deepEqual(internalHits, []);
  });
});
