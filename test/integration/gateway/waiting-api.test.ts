// Every authenticated request counts against the key's requests per minute, and waiting is
// cheap instead: `?waitMs=` long-polls held on the projector's notices. Real nats-server,
// the embedded store and a real projector in-process; no fetcher runs, so the test moves a
// scrape job itself by appending the events a fetcher would (page_started, page_failed),
// and finishes crawls and batches by cancelling them.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { makeEvent } from '../../../shared/src/domain/events/index.js';
import { apiKeyId, newId, systemClock } from '../../../shared/src/infra/ids.js';
import type { SqliteStore } from '../../../shared/src/infra/store/index.js';
import { normalizeUrl, urlKeyHash } from '../../../shared/src/net/url-normalize.js';
import { buildApp } from '../../../services/gateway/src/app.js';
import { ProjectionWaiter, type JobStatusListener } from '../../../services/gateway/src/projection-wait.js';
import { assertProblem, startGateway, type GatewayApp, type GatewayHarness } from '../../support/gateway.js';
import { until } from '../../support/wait.js';

const TEAM = 'waiting_test_key_00000001';
const TEAM2 = 'waiting_test_key_00000002';
const TEAM3 = 'waiting_test_key_00000003';
const FREE = 'waiting_test_key_00000004';
const FREE2 = 'waiting_test_key_00000005';
const FREE3 = 'waiting_test_key_00000006';
const BOUND_A = 'waiting_test_key_00000007';
const BOUND_B = 'waiting_test_key_00000008';
const BOUND_C = 'waiting_test_key_00000009';
const DEAF = 'waiting_test_key_00000010';
const auth = (key: string) => ({ authorization: `Bearer ${key}` });

/** Counting is per calendar minute: a test that counts to a limit does not start in a window's last seconds. */
async function freshWindow(): Promise<void> {
  while (Date.now() % 60_000 > 45_000) await sleep(500);
}

describe('every request counts; waiting is cheap', () => {
  let gateway: GatewayHarness;
  let app: GatewayApp;
  let store: SqliteStore;
  /** A second app on the same log, store and projector whose store reads of jobs are counted per id. */
  let watched: GatewayApp;
  let counting: SqliteStore;
  const reads = new Map<string, number>();

  before(async () => {
    gateway = await startGateway({
      keys: [[TEAM, 'team'], [TEAM2, 'team'], [TEAM3, 'team'], [FREE, 'free'], [FREE2, 'free'], [FREE3, 'free'], [BOUND_A, 'team'], [BOUND_B, 'team'], [BOUND_C, 'team'], [DEAF, 'team']],
      env: { SSRF_ALLOW_CIDRS: '127.0.0.0/8', ERROR_TYPE_BASE: 'https://errors.example/trawl' },
    });
    ({ app, store } = gateway);
    const counted = new Set(['scrapeJobs', 'crawlJobs', 'batchJobs']);
    counting = new Proxy(store, {
      get(target, prop) {
        const value = Reflect.get(target, prop) as unknown;
        if (typeof value === 'function') return value.bind(target);
        if (!counted.has(String(prop))) return value;
        const jobs = value as SqliteStore['scrapeJobs'];
        return { ...jobs, get: (id: string) => { reads.set(id, (reads.get(id) ?? 0) + 1); return jobs.get(id); } };
      },
    });
    const { config, logger, nc, log, payloads, waiter } = gateway;
    watched = await buildApp({ config, logger, nc, log, payloads, store: counting, waiter, newId, clock: systemClock });
  });

  after(async () => {
    await watched.close();
    await gateway.close();
  });

  const get = (url: string, key = TEAM, on: GatewayApp = app) => on.inject({ method: 'GET', url, headers: auth(key) });
  const post = (url: string, body: unknown, key = TEAM, on: GatewayApp = app) =>
    on.inject({ method: 'POST', url, headers: { ...auth(key), 'content-type': 'application/json' }, payload: JSON.stringify(body) });
  const newScrape = async (key = TEAM, path = `/${newId()}`): Promise<{ id: string; url: string }> => {
    const url = `http://127.0.0.1:9${path}`;
    const res = await post('/api/v1/scrape', { url }, key);
    assert.equal(res.statusCode, 202, res.body);
    return { id: res.json().id, url };
  };
  /** Appends what a fetcher would for the job, and waits until it is projected. */
  const scrapeEvent = async (job: { id: string; url: string }, event: 'page_started' | 'page_failed'): Promise<void> => {
    const at = { kind: 'scrape' as const, id: job.id, part: urlKeyHash(normalizeUrl(job.url)!.key) };
    const now = new Date();
    const meta = { eventId: newId(), now };
    const made = event === 'page_started'
      ? makeEvent('page_started', at, { attempt: 1, startedAt: now.toISOString(), worker: 'test' }, meta)
      : makeEvent('page_failed', at, { error: { code: 'NETWORK_ERROR', message: 'connection refused' }, failedAt: now.toISOString(), attempt: 1 }, meta);
    const { seq } = await gateway.log.append(made);
    assert.ok(await gateway.waiter.waitFor(seq, 5000), 'projected');
  };
  /** Resolves once the watched app has read the job `n` times. */
  const readTimes = (id: string, n: number) => until(() => (reads.get(id) ?? 0) >= n, { timeoutMs: 10_000, intervalMs: 10 });

  describe('the rate limit counts every authenticated request', () => {
    test('twelve quick GETs of a free key: ten answer, then 429 RATE_LIMITED with the spec headers', async () => {
      await freshWindow();
      for (let i = 0; i < 10; i++) {
        const res = await get('/api/v1/scrape?limit=1', FREE);
        assert.equal(res.statusCode, 200, res.body);
        assert.equal(res.headers['x-ratelimit-limit'], '10');
        assert.equal(res.headers['x-ratelimit-remaining'], String(9 - i));
        assert.match(String(res.headers['x-ratelimit-reset']), /^\d{10}$/);
      }
      for (let i = 0; i < 2; i++) {
        const limited = await get('/api/v1/scrape?limit=1', FREE);
        assertProblem(limited, 429, 'RATE_LIMITED', /10 requests per minute/);
        assert.equal(limited.headers['x-ratelimit-limit'], '10');
        assert.equal(limited.headers['x-ratelimit-remaining'], '0');
        const reset = Number(limited.headers['x-ratelimit-reset']);
        assert.ok(reset * 1000 > Date.now() && reset * 1000 <= Date.now() + 60_000, String(reset));
        const retryAfter = Number(limited.headers['retry-after']);
        assert.ok(retryAfter >= 1 && retryAfter <= 60 && Math.abs(Date.now() / 1000 + retryAfter - reset) <= 2, `${retryAfter} vs ${reset}`);
      }
      // Reads of a job and job creation are refused alike; other keys are not affected.
      assertProblem(await post('/api/v1/scrape', { url: 'http://127.0.0.1:9/over' }, FREE), 429, 'RATE_LIMITED');
      assert.equal((await get('/api/v1/scrape?limit=1', FREE2)).statusCode, 200);
    });

    test('health, readiness and the OpenAPI document are not API requests: they do not count', async () => {
      await freshWindow();
      for (let i = 0; i < 12; i++) {
        for (const url of ['/healthz', '/readyz', '/openapi.json']) {
          const res = await app.inject({ method: 'GET', url, headers: auth(FREE3) });
          assert.equal(res.statusCode, 200, url);
          assert.equal(res.headers['x-ratelimit-remaining'], undefined, url);
        }
      }
      const res = await get('/api/v1/scrape?limit=1', FREE3);
      assert.equal(res.headers['x-ratelimit-remaining'], '9');
    });

    test('a bad parameter, an unknown job and the concurrency limit are answered, and counted, like any request', async () => {
      await freshWindow();
      const key = FREE2; // one request used above (or in this window: the counts below are relative)
      const first = await get('/api/v1/scrape?limit=0', key);
      assertProblem(first, 400, 'VALIDATION_ERROR');
      const left = Number(first.headers['x-ratelimit-remaining']);
      const unknown = await get('/api/v1/scrape/no-such-job?waitMs=100', key);
      assertProblem(unknown, 404, 'NOT_FOUND');
      assert.equal(unknown.headers['x-ratelimit-remaining'], String(left - 1));
      await newScrape(key);
      await newScrape(key);
      // The plan's Concurrent limit (free: 2 jobs at once) refuses a third job at once.
      const third = await post('/api/v1/scrape', { url: 'http://127.0.0.1:9/third' }, key);
      assertProblem(third, 429, 'RATE_LIMITED', /2 jobs of this key are still running; the free plan allows 2 at once/);
      assert.equal(third.headers['retry-after'], '1');
      assert.equal(third.headers['x-ratelimit-remaining'], String(left - 4));
    });
  });

  describe('waitMs', () => {
    test('is validated on every GET and on POST /scrape: 0 to 60000 ms, an integer', async () => {
      const { id } = await newScrape(TEAM3);
      for (const bad of ['-1', '60001', 'abc', '1.5', '1e9']) {
        // Ids of the right form (an id that cannot be one is 404 before anything else).
        for (const path of [`/api/v1/scrape/${id}`, `/api/v1/crawl/${newId()}`, `/api/v1/batch/scrape/${newId()}`]) {
          assertProblem(await get(`${path}?waitMs=${bad}`, TEAM3), 400, 'VALIDATION_ERROR', /waitMs/);
        }
      }
      for (const bad of [-1, 60_001, '500', 1.5, null]) {
        assertProblem(await post('/api/v1/scrape', { url: 'http://127.0.0.1:9/v', waitMs: bad }, TEAM3), 400, 'VALIDATION_ERROR', /waitMs/);
      }
      // Still unknown elsewhere: a batch has no waitMs in its body.
      assertProblem(await post('/api/v1/batch/scrape', { urls: ['http://127.0.0.1:9/b'], waitMs: 10 }, TEAM3), 400, 'VALIDATION_ERROR', /waitMs is not a known field/);
      const zero = await get(`/api/v1/scrape/${id}?waitMs=0`, TEAM3);
      assert.equal(zero.statusCode, 200);
      assert.equal(zero.json().status, 'PENDING');
    });

    test('the OpenAPI document shows waitMs on the three GETs and in the POST /scrape body', async () => {
      const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
      for (const path of ['/api/v1/scrape/{id}', '/api/v1/crawl/{id}', '/api/v1/batch/scrape/{id}']) {
        const param = doc.paths[path].get.parameters.find((p: any) => p.name === 'waitMs');
        assert.ok(param, path);
        assert.equal(param.in, 'query');
        assert.deepEqual([param.schema.minimum, param.schema.maximum, param.schema.type], [0, 60_000, 'integer'], path);
      }
      const post = doc.paths['/api/v1/scrape'].post;
      assert.equal(post.requestBody.content['application/json'].schema.properties.waitMs.maximum, 60_000);
      assert.ok(post.responses['200'] && post.responses['202']);
    });

    test('GET answers at its deadline with the current state', async () => {
      const job = await newScrape();
      const started = Date.now();
      const res = await get(`/api/v1/scrape/${job.id}?waitMs=400`);
      assert.ok(Date.now() - started >= 390, `answered after ${Date.now() - started} ms`);
      assert.equal(res.statusCode, 200);
      assert.equal(res.json().status, 'PENDING');
    });

    test('GET answers as soon as the job finishes, reading it only when a notice says it finished', async () => {
      const job = await newScrape();
      const other = await newScrape();
      const started = Date.now();
      const answer = get(`/api/v1/scrape/${job.id}?waitMs=60000`, TEAM, watched);
      await readTimes(job.id, 1);
      // Notices about this job's progress and about other jobs cost no read.
      await scrapeEvent(job, 'page_started');
      await scrapeEvent(other, 'page_started');
      await scrapeEvent(other, 'page_failed');
      await sleep(100);
      assert.equal(reads.get(job.id), 1, 'one read while waiting: the first');
      await scrapeEvent(job, 'page_failed');
      const res = await answer;
      assert.equal(res.statusCode, 200);
      assert.equal(res.json().status, 'FAILED');
      assert.deepEqual(res.json().error, { code: 'NETWORK_ERROR', message: 'connection refused' });
      assert.ok(Date.now() - started < 30_000);
      assert.equal(reads.get(job.id), 2, 'and one when it finished');
      // A finished job answers at once, with one read.
      const again = await get(`/api/v1/scrape/${job.id}?waitMs=60000`, TEAM, watched);
      assert.equal(again.json().status, 'FAILED');
      assert.equal(reads.get(job.id), 3);
    });

    test('a crawl and a batch: GET answers when the job is cancelled', async () => {
      for (const [kind, path, body] of [
        ['crawl', '/api/v1/crawl', { url: 'http://127.0.0.1:9/', limit: 5 }],
        ['batch', '/api/v1/batch/scrape', { urls: ['http://127.0.0.1:9/a', 'http://127.0.0.1:9/b'] }],
      ] as const) {
        const created = await post(path, body, TEAM2);
        assert.equal(created.statusCode, 202, created.body);
        const { id } = created.json();
        const answer = get(`${path}/${id}?waitMs=60000`, TEAM2, watched);
        await readTimes(id, 1);
        const started = Date.now();
        const cancelled = await app.inject({ method: 'DELETE', url: `${path}/${id}`, headers: auth(TEAM2) });
        assert.equal(cancelled.statusCode, 200, cancelled.body);
        const res = await answer;
        assert.equal(res.statusCode, 200, kind);
        assert.equal(res.json().status, 'CANCELLED', kind);
        assert.ok(Date.now() - started < 10_000, kind);
        assert.equal(reads.get(id), 2, `${kind}: read once before the wait and once when it ended`);
      }
    });

    test('POST /scrape with waitMs: 202 with the current state when not finished in time', async () => {
      const started = Date.now();
      const res = await post('/api/v1/scrape', { url: `http://127.0.0.1:9/${newId()}`, waitMs: 300 });
      assert.ok(Date.now() - started >= 290);
      assert.equal(res.statusCode, 202, res.body);
      assert.deepEqual(Object.keys(res.json()).sort(), ['id', 'status']);
      assert.equal(res.json().status, 'PENDING');
    });

    test('POST /scrape with waitMs: 200 with the finished job, the GET body, when it finishes in time', async () => {
      const url = `http://127.0.0.1:9/${newId()}`;
      const answer = post('/api/v1/scrape', { url, waitMs: 60_000 }, TEAM3, watched);
      let id = '';
      await until(async () => {
        id = (await store.scrapeJobs.listBy(apiKeyId(TEAM3), { limit: 1, offset: 0 })).find((j) => j.url === url)?.id ?? '';
        return id !== '' && (reads.get(id) ?? 0) >= 1;
      }, { intervalMs: 10 });
      await scrapeEvent({ id, url }, 'page_failed');
      const res = await answer;
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json();
      assert.equal(body.id, id);
      assert.equal(body.status, 'FAILED');
      assert.equal(body.error.code, 'NETWORK_ERROR');
      assert.deepEqual(body, (await get(`/api/v1/scrape/${id}`, TEAM3)).json());
    });
  });

  describe('when the projector notice is lost', () => {
    /** Read-your-writes as usual, but no job status notice ever reaches the long-polls. */
    class DeafWaiter extends ProjectionWaiter {
      override onJobStatus(_listener: JobStatusListener): () => void {
        return () => undefined;
      }
    }
    let deafWaiter: DeafWaiter;
    let deaf: GatewayApp;

    before(async () => {
      const { config, logger, nc, log, payloads } = gateway;
      deafWaiter = new DeafWaiter(nc, store);
      await deafWaiter.start();
      deaf = await buildApp({ config: { ...config, longPollFallbackReadMs: 100 }, logger, nc, log, payloads, store: counting, waiter: deafWaiter, newId, clock: systemClock });
    });

    after(async () => {
      await deaf.close();
      deafWaiter.stop();
    });

    test('POST /scrape with waitMs answers the finished job by its fallback reads, the same body as the read model GET', async () => {
      const url = `http://127.0.0.1:9/${newId()}`;
      const started = Date.now();
      const answer = post('/api/v1/scrape', { url, waitMs: 60_000 }, DEAF, deaf);
      let id = '';
      await until(async () => {
        id = (await store.scrapeJobs.listBy(apiKeyId(DEAF), { limit: 1, offset: 0 })).find((j) => j.url === url)?.id ?? '';
        return id !== '' && (reads.get(id) ?? 0) >= 1;
      }, { intervalMs: 10 });
      await scrapeEvent({ id, url }, 'page_started');
      await scrapeEvent({ id, url }, 'page_failed');
      const res = await answer;
      assert.ok(Date.now() - started < 20_000, `answered after ${Date.now() - started} ms`);
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json();
      assert.equal(body.id, id);
      assert.equal(body.status, 'FAILED');
      assert.deepEqual(body, (await get(`/api/v1/scrape/${id}`, DEAF)).json());
      assert.ok((reads.get(id) ?? 0) >= 2, 'read again without a notice');
    });

    test('GET with waitMs answers the finished job by its fallback reads', async () => {
      const job = await newScrape(DEAF);
      const started = Date.now();
      const answer = get(`/api/v1/scrape/${job.id}?waitMs=60000`, DEAF, deaf);
      await readTimes(job.id, 1);
      await scrapeEvent(job, 'page_failed');
      const res = await answer;
      assert.ok(Date.now() - started < 20_000, `answered after ${Date.now() - started} ms`);
      assert.equal(res.json().status, 'FAILED');
      assert.deepEqual(res.json(), (await get(`/api/v1/scrape/${job.id}`, DEAF)).json());
    });
  });

  describe('bounds and shutdown', () => {
    let bounded: GatewayApp;
    let port = 0;

    before(async () => {
      const { config, logger, nc, log, payloads, waiter } = gateway;
      bounded = await buildApp({
        config: { ...config, longPollMaxWaitsPerKey: 2, longPollMaxWaitsPerGateway: 3 }, logger, nc, log, payloads, store: counting, waiter, newId, clock: systemClock,
      });
      await bounded.listen({ host: '127.0.0.1', port: 0 });
      port = (bounded.server.address() as { port: number }).port;
    });

    const fetchJob = async (key: string, id: string, waitMs: number) => {
      const res = await fetch(`http://127.0.0.1:${port}/api/v1/scrape/${id}?waitMs=${waitMs}`, { headers: auth(key) });
      return { status: res.status, headers: res.headers, body: await res.json() as any };
    };
    /** The jobs' first reads happened: their waits are held (the slot is taken right after). */
    const held = async (...ids: string[]) => {
      for (const id of ids) await readTimes(id, 1);
      await sleep(50);
    };

    test('past the per-key and per-gateway bounds a wait is 429; a finished job and a POST are still answered; shutdown answers every held wait', async () => {
      const a1 = await newScrape(BOUND_A);
      const a2 = await newScrape(BOUND_A);
      const a3 = await newScrape(BOUND_A);
      const b1 = await newScrape(BOUND_B);
      const c1 = await newScrape(BOUND_C);
      const started = Date.now();
      const waiting = [fetchJob(BOUND_A, a1.id, 60_000), fetchJob(BOUND_A, a2.id, 60_000)];
      await held(a1.id, a2.id);
      const overKey = await fetchJob(BOUND_A, a3.id, 60_000);
      assert.equal(overKey.status, 429);
      assert.equal(overKey.body.code, 'RATE_LIMITED');
      assert.match(overKey.body.detail, /already holds 2 waiting requests/);
      assert.equal(overKey.headers.get('retry-after'), '1');
      assert.ok(overKey.headers.get('x-ratelimit-remaining'));
      // Without waitMs the same key is answered; another key may still wait.
      assert.equal((await fetchJob(BOUND_A, a3.id, 0)).status, 200);
      waiting.push(fetchJob(BOUND_B, b1.id, 60_000));
      await held(b1.id);
      const overGateway = await fetchJob(BOUND_C, c1.id, 60_000);
      assert.equal(overGateway.status, 429);
      assert.match(overGateway.body.detail, /this gateway already holds 3 waiting requests/);
      // A job that is already finished needs no wait: answered whatever the bounds.
      await scrapeEvent(c1, 'page_failed');
      const finished = await fetchJob(BOUND_C, c1.id, 60_000);
      assert.equal(finished.status, 200);
      assert.equal(finished.body.status, 'FAILED');
      // A POST's job exists once it is recorded: past the bounds it answers 202 at once.
      const posted = await fetch(`http://127.0.0.1:${port}/api/v1/scrape`, {
        method: 'POST', headers: { ...auth(BOUND_C), 'content-type': 'application/json' }, body: JSON.stringify({ url: 'http://127.0.0.1:9/busy', waitMs: 60_000 }),
      });
      assert.equal(posted.status, 202);
      assert.equal(((await posted.json()) as any).status, 'PENDING');

      // Shutdown: every held wait is answered now with the current state, long before its deadline.
      await bounded.close();
      const answers = await Promise.all(waiting);
      assert.deepEqual(answers.map((r) => [r.status, r.body.status]), [[200, 'PENDING'], [200, 'PENDING'], [200, 'PENDING']]);
      assert.ok(Date.now() - started < 30_000, `answered after ${Date.now() - started} ms`);
    });
  });
});
