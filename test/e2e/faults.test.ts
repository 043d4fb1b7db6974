// Faults under `npm start` (the supervisor, as test/support/system.ts boots it):
// - the supervisor runs with its V8 flags, under the pid it was started with;
// - a page whose script navigates to a blocked address completes, and its events say so;
// - SIGKILL of the fetcher: its Chromium dies with it, the restarted fetcher serves pages;
// - SIGKILL of nats-server mid-crawl: the supervisor restarts it on the same store, the
//   services reconnect, and the crawl ends with exactly the pages of the site.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { SERVICE_NODE_FLAGS, SUPERVISOR_NODE_FLAGS } from '../../scripts/services.js';
import { ALL_PAGES, linkGraph } from '../support/link-graph.js';
import { alive, descendants, proc, type Proc } from '../support/processes.js';
import { startSite, type TestSite } from '../support/site.js';
import { startSystem, type TrawlSystem } from '../support/system.js';
import { until } from '../support/wait.js';

const page = (title: string, links: string[], extra = ''): string => `<!doctype html><html><head><title>${title}</title>${extra}</head><body>
<nav>${links.map((l) => `<a href="${l}">${l}</a>`).join(' ')}</nav>
<main><article><h1>${title}</h1><p>This is the page called ${title}. It has a paragraph long enough for a readability
algorithm to keep it as the main content of the page, with a few more words for good measure, and then some more
words, so that the page has well over two hundred characters of text in its body.</p></article></main>
</body></html>`;

const FINAL = new Set(['COMPLETED', 'FAILED', 'CANCELLED']);
const sorted = (xs: string[]): string[] => [...xs].sort();

/** The supervisor's child whose command line matches (one of nats-server or a service). */
function child(system: TrawlSystem, pattern: RegExp): Proc | undefined {
  return descendants(system.pid).find((p) => p.ppid === system.pid && pattern.test(p.cmdline));
}

describe('faults under the supervisor', () => {
  let site: TestSite;
  let system: TrawlSystem;

  before(async () => {
    site = await startSite({
      '/redirects-away': page('Redirects away', [], `<script>location.href = 'http://10.255.255.1/landing'</script>`),
    });
    // Slow pages, so the crawl is still running when nats-server is killed.
    for (const [path, links] of Object.entries(linkGraph('http://127.0.0.2:9'))) {
      site.route(path, { body: page(`Page ${path}`, links), delayMs: 400 });
    }
    system = await startSystem({ env: { TRAWL_SERVICES: 'projector,fetcher,transformer,crawler-frontier,gateway' } });
  });
  after(async () => {
    await system?.stop();
    await site?.close();
  });

  async function scrape(url: string): Promise<any> {
    const created = await system.api('POST', '/api/v1/scrape', { url });
    assert.equal(created.status, 202, `${JSON.stringify(created.body)}\n${system.logs().slice(-3000)}`);
    const job = await system.poll(`/api/v1/scrape/${created.body.id}`, (b: any) => FINAL.has(b.status), 120_000);
    return { id: created.body.id, job };
  }

  test('the supervisor re-executed itself with its V8 flags, keeping the pid it was started with; each service has its own', () => {
    const supervisor = proc(system.pid);
    assert.ok(supervisor, 'the pid the test spawned is still the supervisor');
    assert.match(supervisor.cmdline, /dist\/scripts\/start\.js/);
    for (const flag of SUPERVISOR_NODE_FLAGS) assert.ok(supervisor.cmdline.split(' ').includes(flag), `${flag} in ${supervisor.cmdline}`);
    const fetcher = child(system, /dist\/services\/fetcher\//);
    assert.ok(fetcher);
    for (const flag of SERVICE_NODE_FLAGS.fetcher) assert.ok(fetcher.cmdline.split(' ').includes(flag), `${flag} in ${fetcher.cmdline}`);
  });

  test('a script redirect to a blocked address: the page completes and page_fetched records the aborted navigation', async () => {
    const { id, job } = await scrape(site.url('/redirects-away'));
    assert.equal(job.status, 'COMPLETED', JSON.stringify(job));
    assert.match(job.markdown, /This is the page called Redirects away/);
    const history = await system.api('GET', `/api/v1/scrape/${id}/events`);
    const fetched = history.body.events.find((e: any) => e.event === 'page_fetched');
    assert.deepEqual(fetched.data.abortedNavigations.map((n: any) => [n.url, n.code]), [['http://10.255.255.1/landing', 'URL_NOT_ALLOWED']]);
  });

  test('SIGKILL of the fetcher takes its Chromium along; the restarted fetcher serves pages', async () => {
    const fetcher = child(system, /services\/fetcher\//);
    assert.ok(fetcher, 'the fetcher runs under the supervisor');
    const chromium = descendants(fetcher.pid).filter((p) => /chrom/i.test(p.cmdline));
    assert.ok(chromium.length > 0, 'the fetcher has its Chromium');
    process.kill(fetcher.pid, 'SIGKILL');
    await until(() => chromium.every((p) => !alive(p.pid)), { timeoutMs: 15_000 });
    await until(() => { const next = child(system, /services\/fetcher\//); return !!next && next.pid !== fetcher.pid; }, { timeoutMs: 30_000 });
    const { job } = await scrape(site.url('/?after-fetcher-kill'));
    assert.equal(job.status, 'COMPLETED', JSON.stringify(job));
    const next = child(system, /services\/fetcher\//)!;
    const browsers = descendants(next.pid).filter((p) => /chrom/i.test(p.cmdline) && p.ppid === next.pid);
    assert.equal(browsers.length, 1, 'one browser, started by the new fetcher');
  });

  test('SIGKILL of nats-server mid-crawl: restarted on the same store, the crawl gets exactly the site', async () => {
    const created = await system.api('POST', '/api/v1/crawl', { url: site.url('/'), maxDepth: 4 });
    assert.equal(created.status, 202, JSON.stringify(created.body));
    const id = created.body.id;
    await system.poll(`/api/v1/crawl/${id}`, (b: any) => b.completedUrls >= 3, 120_000);
    const nats = child(system, /^nats-server /);
    assert.ok(nats, 'nats-server runs under the supervisor');
    process.kill(nats.pid, 'SIGKILL');
    await until(() => { const next = child(system, /^nats-server /); return !!next && next.pid !== nats.pid; }, { timeoutMs: 30_000 });
    const job = await system.poll(`/api/v1/crawl/${id}`, (b: any) => FINAL.has(b.status), 240_000);
    assert.equal(job.status, 'COMPLETED', JSON.stringify({ ...job, data: undefined }));
    const paths = job.data.map((d: any) => new URL(d.url).pathname);
    assert.deepEqual(sorted(paths), sorted(ALL_PAGES));
    assert.equal(new Set(paths).size, paths.length, 'no page twice');
    assert.deepEqual([job.totalUrls, job.completedUrls, job.failedUrls], [ALL_PAGES.length, ALL_PAGES.length, 0]);
    // And the system carries on: a new job after the restart.
    const { job: after } = await scrape(site.url('/?after-nats-kill'));
    assert.equal(after.status, 'COMPLETED', JSON.stringify(after));
  });
});
