// Monitors end to end (issue 27 item 3): a page and a 20-page site watched on a schedule of
// a second or two, pages changed between ticks: one monitor.changed webhook per change with
// the right diff, none when nothing changed; kill -9 of the whole system (frontier and
// nats-server included) between ticks loses no tick and runs none twice; bad input is an
// RFC 7807 problem; a key's monitors are its own; the plan's monitor count holds.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { startSite, type TestSite } from '../support/site.js';
import { OTHER_API_KEY, startSystem, TEST_API_KEY, type TrawlSystem } from '../support/system.js';
import { until } from '../support/wait.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

/** The site's pages under /site besides its home page: the home page and these make 20. */
const SITE_PAGES = Array.from({ length: 19 }, (_, i) => `/site/p${i + 1}`);

function article(title: string, sentence: string, links: string[] = []): string {
  return `<!doctype html><html lang="en"><head><title>${title}</title></head><body>
<main><article><h1>${title}</h1>
<p>${sentence} This sentence is here so that the paragraph is long enough to be kept as content by the extractor.</p>
${links.length ? `<ul>${links.map((l) => `<li><a href="${l}">Read about ${l}</a> in our documentation, which explains it in detail.</li>`).join('')}</ul>` : ''}
</article></main></body></html>`;
}

const ENV = {
  MONITOR_MIN_INTERVAL_MS: '1000', MONITOR_CHECK_INTERVAL_MS: '200',
  // The other key is on the free plan: one monitor.
  BOOTSTRAP_API_KEYS: `${TEST_API_KEY}:team,${OTHER_API_KEY}:free`,
};

describe('monitors end to end', () => {
  let site: TestSite;
  let hooks: WebhookReceiver;
  let system: TrawlSystem;

  before(async () => {
    site = await startSite({
      '/watched': article('Watched', 'The price is 9 euros.'),
      '/site': article('Site', 'The home page.', SITE_PAGES),
      ...Object.fromEntries(SITE_PAGES.map((p) => [p, article(p, `Page ${p} has version one.`)])),
    });
    hooks = await startWebhookReceiver(['/page', '/site', '/other']);
    system = await startSystem({ env: ENV });
  });
  after(async () => {
    await system?.stop();
    await hooks?.close();
    await site?.close();
  });

  const monitor = async (id: string, key?: string): Promise<any> =>
    (await system.api('GET', `/api/v1/monitors/${id}`, undefined, key ? { authorization: `Bearer ${key}` } : undefined)).body;
  /**
   * Waits until the monitor has finished a run other than those in `seen`; returns it. Looks
   * once a second: the key's 120 requests a minute are shared by all of this file's tests
   * (at 200 ms the problems test met a 429 on a quiet machine).
   */
  async function nextRun(id: string, seen: Set<string>, timeoutMs = 60_000): Promise<any> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const m = await monitor(id);
      if (m.lastRun && !seen.has(m.lastRun.runId)) { seen.add(m.lastRun.runId); return m.lastRun; }
      await sleep(1000);
    }
    throw new Error(`monitor ${id} finished no new run in ${timeoutMs} ms`);
  }
  const bodies = (path: string): any[] => (hooks.received.get(path) ?? []).map((h) => JSON.parse(h.body));

  test('a page: the first run is the baseline, a change is one webhook with its diff, no change sends nothing; survives kill -9', async () => {
    const created = await system.api('POST', '/api/v1/monitors', { url: site.url('/watched'), schedule: { intervalSeconds: 2 }, webhookUrl: hooks.url('/page'), formats: ['markdown'] });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const id = created.body.id;
    assert.equal(created.body.status, 'ACTIVE');
    assert.deepEqual(created.body.formats, ['markdown', 'changeTracking']);
    assert.ok(created.body.nextRunAt);
    const seen = new Set<string>();

    const baseline = await nextRun(id, seen);
    assert.equal(baseline.status, 'COMPLETED');
    assert.deepEqual(baseline.changed, [], 'the first run is the baseline');
    assert.equal(baseline.notified, false);

    site.route('/watched', article('Watched', 'The price is 12 euros.'));
    let changedRun = await nextRun(id, seen);
    // A run may have started before the change: wait for the run that saw it.
    while (changedRun.changed.length === 0) changedRun = await nextRun(id, seen);
    assert.deepEqual(changedRun.changed, [{ url: site.url('/watched'), changeStatus: 'changed' }]);
    assert.equal(changedRun.notified, true);
    // notified: the webhook is on the log; the dispatcher delivers it a moment later.
    await until(() => bodies('/page').length > 0, { timeoutMs: 15_000, intervalMs: 100 });
    const [hook] = bodies('/page');
    assert.equal(bodies('/page').length, 1);
    assert.equal(hook.event, 'monitor.changed');
    assert.equal(hook.data.monitorId, id);
    assert.equal(hook.data.runId, changedRun.runId);
    assert.match(hook.data.changed[0].diff, /^-The price is 9 euros\./m);
    assert.match(hook.data.changed[0].diff, /^\+The price is 12 euros\./m);
    assert.ok(hooks.received.get('/page')![0]!.headers['webhook-signature'], 'signed like every webhook');

    const quiet = await nextRun(id, seen);
    assert.deepEqual(quiet.changed, []);
    assert.equal(quiet.unchanged, 1);
    assert.equal(quiet.notified, false);
    assert.equal(bodies('/page').length, 1, 'nothing changed: no webhook');

    // kill -9 of everything between ticks, then the same data directory.
    await system.kill();
    await sleep(2500);
    system = await startSystem({ env: ENV, dataDir: system.dataDir, port: system.port });
    await nextRun(id, seen);
    await nextRun(id, seen);
    // Every run is one scrape job and one observation in the monitor's own history: none twice.
    const history = await system.api('GET', `/api/v1/changes?url=${encodeURIComponent(site.url('/watched'))}&tag=${encodeURIComponent(`monitor-${id}`)}`);
    const jobs = history.body.observations.map((o: any) => o.jobId);
    assert.equal(new Set(jobs).size, jobs.length, `a run twice: ${jobs.join(' ')}`);
    assert.ok(jobs.length >= 5, JSON.stringify(history.body));
    // The read models are eventually consistent: after the kill -9 the restarted projector
    // resumes once the dead one's partition leases lapse (docs/architecture.md "Replicas").
    for (const j of jobs) {
      await until(async () => (await system.api('GET', `/api/v1/scrape/${j}`)).status === 200, { timeoutMs: 30_000, intervalMs: 500 });
    }
    assert.equal(bodies('/page').length, 1, 'no webhook repeated after the restart');

    const deleted = await system.api('DELETE', `/api/v1/monitors/${id}`);
    assert.deepEqual(deleted.body, { id, status: 'DELETED' });
    const gone = await monitor(id);
    assert.equal(gone.status, 'DELETED');
    assert.equal(gone.nextRunAt, undefined);
    const list = await system.api('GET', '/api/v1/monitors');
    assert.equal(list.body.some((m: any) => m.id === id), false);
    const again = await system.api('DELETE', `/api/v1/monitors/${id}`);
    assert.equal(again.status, 404);
  });

  test('a 20-page site: a crawl per tick, one webhook per changed run naming exactly the pages that changed', async () => {
    const created = await system.api('POST', '/api/v1/monitors', {
      url: site.url('/site'), crawl: { limit: 25 }, schedule: { cron: '*/2 * * * * *' }, webhookUrl: hooks.url('/site'),
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const id = created.body.id;
    assert.equal(created.body.jobKind, 'crawl');
    const seen = new Set<string>();
    const baseline = await nextRun(id, seen);
    assert.equal(baseline.unchanged, 20);
    /** The next run that reports a change (a tick may have started before the site changed). */
    const nextChanged = async () => {
      let run = await nextRun(id, seen);
      while (run.changed.length === 0) run = await nextRun(id, seen);
      return run;
    };
    const byUrl = (a: { url: string }, b: { url: string }) => a.url.localeCompare(b.url);
    site.route('/site/p7', article('/site/p7', 'Page /site/p7 has version two.'));
    const one = await nextChanged();
    assert.deepEqual(one.changed, [{ url: site.url('/site/p7'), changeStatus: 'changed' }]);
    await until(() => bodies('/site').length >= 1);
    const first = bodies('/site')[0];
    assert.equal(first.data.jobKind, 'crawl');
    assert.match(first.data.changed[0].diff, /^\+Page \/site\/p7 has version two\./m);
    assert.match(first.data.changed[0].diff, /^-Page \/site\/p7 has version one\./m);
    // Two pages at once: one run, one webhook, each page with its own diff.
    site.route('/site/p3', article('/site/p3', 'Page /site/p3 has version two.'));
    site.route('/site/p12', article('/site/p12', 'Page /site/p12 has version two.'));
    const two = await nextChanged();
    const changedUrls = [site.url('/site/p12'), site.url('/site/p3')].sort();
    if (two.changed.length === 1) {
      // The tick fell between the two changes: the other page is the next run's change.
      const rest = await nextChanged();
      assert.deepEqual([...two.changed, ...rest.changed].sort(byUrl).map((c: { url: string }) => c.url), changedUrls);
      await until(() => bodies('/site').length >= 3);
    } else {
      assert.deepEqual(two.changed.sort(byUrl), changedUrls.map((url) => ({ url, changeStatus: 'changed' })));
      await until(() => bodies('/site').length >= 2);
    }
    for (const hook of bodies('/site').slice(1)) {
      for (const page of hook.data.changed) {
        const path = new URL(page.url).pathname;
        assert.match(page.diff, new RegExp(`^\\+Page ${path.replaceAll('/', '\\/')} has version two\\.`, 'm'), page.url);
      }
    }
    const hooksBefore = bodies('/site').length;
    assert.equal(hooksBefore, two.changed.length === 1 ? 3 : 2, 'one webhook per run with changes');
    const quiet = await nextRun(id, seen);
    assert.deepEqual(quiet.changed, []);
    assert.equal(quiet.unchanged, 20);
    assert.equal(bodies('/site').length, hooksBefore, 'no webhook for a run where nothing changed');
    await system.api('DELETE', `/api/v1/monitors/${id}`);
  });

  test('problems: schedule, URLs, unknown fields, another key\'s monitor, the plan\'s count', async () => {
    const post = (body: unknown, key?: string) => system.api('POST', '/api/v1/monitors', body, key ? { authorization: `Bearer ${key}` } : undefined);
    const base = { url: site.url('/watched'), webhookUrl: hooks.url('/other') };
    for (const [body, field] of [
      [{ ...base, schedule: { cron: 'every tuesday' } }, /schedule\.cron/],
      [{ ...base, schedule: { cron: '0 * * * *', timezone: 'Mars/Olympus' } }, /schedule\.timezone|schedule\.cron/],
      [{ ...base, schedule: { intervalSeconds: 0 } }, /interval/],
      [{ ...base, schedule: { cron: '* * * * * *' }, scrapeOptions: { formats: ['nope'] } }, /formats/],
      [{ ...base, schedule: { intervalSeconds: 60 }, webhookUrl: 'not a url' }, /webhookUrl|URL/i],
      [{ ...base, schedule: { intervalSeconds: 60 }, extra: 1 }, /extra|additional/i],
      [{ ...base }, /schedule/],
    ] as const) {
      const res = await post(body);
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.match(res.headers.get('content-type') ?? '', /application\/problem\+json/);
      assert.match(JSON.stringify(res.body), field, JSON.stringify(res.body));
    }
    const tooOften = await post({ ...base, schedule: { cron: '* * * * * *' } }, OTHER_API_KEY);
    assert.equal(tooOften.status, 201, 'every second is the test\'s minimum');
    const foreign = await system.api('GET', `/api/v1/monitors/${tooOften.body.id}`);
    assert.equal(foreign.status, 404, 'another key\'s monitor is not there');
    const foreignDelete = await system.api('DELETE', `/api/v1/monitors/${tooOften.body.id}`);
    assert.equal(foreignDelete.status, 404);
    const second = await post({ ...base, schedule: { intervalSeconds: 60 } }, OTHER_API_KEY);
    assert.equal(second.status, 403, JSON.stringify(second.body));
    assert.match(second.body.detail ?? second.body.message ?? '', /free plan allows 1 monitor/);
    const mine = await system.api('GET', '/api/v1/monitors', undefined, { authorization: `Bearer ${OTHER_API_KEY}` });
    assert.deepEqual(mine.body.map((m: any) => m.id), [tooOften.body.id]);
    await system.api('DELETE', `/api/v1/monitors/${tooOften.body.id}`, undefined, { authorization: `Bearer ${OTHER_API_KEY}` });
    const unknown = await system.api('GET', '/api/v1/monitors/nosuchmonitor000000000');
    assert.equal(unknown.status, 404);
  });
});
