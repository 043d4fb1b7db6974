// A seeded fuzz of every endpoint: thousands of malformed bodies, query strings, ids and
// headers against the real gateway (real nats-server, store and projector). Whatever the
// input, the answer is never a 5xx, and every 4xx is an RFC 7807 problem with a `code` and
// the request's `requestId`. The seed is fixed, so a failure names a request that fails
// again; FUZZ_SEED picks another sequence.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { startGateway, type GatewayHarness } from '../support/gateway.js';

const KEY = 'fuzz_key_0123456789abcdef';
const SEED = Number(process.env.FUZZ_SEED ?? 20261125);
const auth = { authorization: `Bearer ${KEY}` };

let gw: GatewayHarness;
before(async () => {
  gw = await startGateway({ keys: [[KEY, 'team']], env: { RATE_LIMITS: 'off', SSRF_ALLOW_CIDRS: '127.0.0.1/32' } });
});
after(async () => gw.close());

/** Values of every JSON type and the edge cases validators trip on. */
const hostile = fc.oneof(
  fc.constantFrom(null, true, false, 0, -1, 1.5, 1e308, -1e308, Number.MAX_SAFE_INTEGER + 2, '', ' ', '0', 'true', 'null',
    '\u0000', '\ud800', '%', '../../etc/passwd', '*', '>', 'a.b', '<script>', 'javascript:alert(1)', 'http://', 'http://[::1]/',
    'file:///etc/passwd', 'x'.repeat(70_000), [], {}, [[[[[[]]]]]], { __proto__: { polluted: true } }, { constructor: { prototype: {} } }),
  fc.string({ maxLength: 40 }),
  fc.integer(),
  fc.double(),
  fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 5 }),
  fc.jsonValue({ maxDepth: 3 }),
);

const scrapeBody = {
  url: 'http://127.0.0.1:9/page', formats: ['markdown', 'links'], onlyMainContent: true, includeTags: ['main'], excludeTags: ['nav'],
  headers: { 'x-a': 'b' }, waitFor: 10, timeout: 30000, viewport: { width: 800, height: 600 }, mobile: false, darkMode: false,
  screenshotOptions: { fullPage: true, format: 'png' }, actions: [{ type: 'wait', milliseconds: 10 }, { type: 'click', selector: '#a' }],
};
const BODIES: Record<string, Record<string, unknown>> = {
  '/api/v1/scrape': scrapeBody,
  '/api/v1/crawl': { url: 'http://127.0.0.1:9/', maxDepth: 2, limit: 10, includePaths: ['/a/*'], excludePaths: ['/b/*'], allowExternalLinks: false, ignoreRobots: false, scrapeOptions: { formats: ['markdown'] }, webhookUrl: 'http://127.0.0.1:9/hook' },
  '/api/v1/batch/scrape': { urls: ['http://127.0.0.1:9/a', 'http://127.0.0.1:9/b'], formats: ['markdown'] },
  '/api/v1/map': { url: 'http://127.0.0.1:9/', search: 'docs', limit: 10, ignoreSitemap: true, includeSubdomains: false },
};

type Mutation = { kind: 'set'; path: string[]; value: unknown } | { kind: 'delete'; path: string[] } | { kind: 'extra'; name: string; value: unknown };

function pathsOf(value: unknown, prefix: string[] = []): string[][] {
  if (value === null || typeof value !== 'object') return [prefix];
  const entries = Object.entries(value as Record<string, unknown>);
  return [prefix, ...entries.flatMap(([k, v]) => pathsOf(v, [...prefix, k]))];
}

function apply(body: Record<string, unknown>, mutations: Mutation[]): unknown {
  let root: unknown = structuredClone(body);
  for (const m of mutations) {
    if (m.kind === 'extra') { if (root && typeof root === 'object') (root as Record<string, unknown>)[m.name] = m.value; continue; }
    if (m.path.length === 0) { root = m.kind === 'set' ? m.value : undefined; continue; }
    let node = root as Record<string, unknown> | null;
    for (const key of m.path.slice(0, -1)) node = node && typeof node === 'object' ? (node[key] as Record<string, unknown>) : null;
    if (!node || typeof node !== 'object') continue;
    const last = m.path.at(-1)!;
    if (m.kind === 'set') node[last] = m.value; else delete node[last];
  }
  return root;
}

function mutationFor(body: Record<string, unknown>) {
  const paths = pathsOf(body);
  return fc.oneof(
    fc.record({ kind: fc.constant('set' as const), path: fc.constantFrom(...paths), value: hostile }),
    fc.record({ kind: fc.constant('delete' as const), path: fc.constantFrom(...paths.filter((p) => p.length > 0)) }),
    fc.record({ kind: fc.constant('extra' as const), name: fc.constantFrom('extra', '__proto__', 'constructor', 'URL', ''), value: hostile }),
  ) as fc.Arbitrary<Mutation>;
}

interface Case { method: string; url: string; payload?: string; headers: Record<string, string> }

function bodyCases(): fc.Arbitrary<Case> {
  return fc.constantFrom(...Object.keys(BODIES)).chain((route) => {
    const base = BODIES[route]!;
    const mutated = fc.array(mutationFor(base), { minLength: 1, maxLength: 3 }).map((ms) => apply(base, ms));
    // A map that is valid would wait for a map worker this harness does not run: the map
    // cases always carry one field of the wrong type besides whatever else they mutate.
    const body = route === '/api/v1/map' ? mutated.map((b) => (b && typeof b === 'object' && !Array.isArray(b) ? { ...b, limit: 'ten' } : b)) : mutated;
    return fc.oneof(
      { weight: 8, arbitrary: body.map((b) => ({ method: 'POST', url: route, payload: b === undefined ? '' : JSON.stringify(b), headers: { ...auth, 'content-type': 'application/json' } })) },
      { weight: 1, arbitrary: fc.string({ maxLength: 60 }).map((raw) => ({ method: 'POST', url: route, payload: raw, headers: { ...auth, 'content-type': 'application/json' } })) },
      { weight: 1, arbitrary: fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/json; charset=latin1', 'application/xml')
        .map((type) => ({ method: 'POST', url: route, payload: JSON.stringify(route === '/api/v1/map' ? { ...base, limit: 'ten' } : base), headers: { ...auth, 'content-type': type } })) },
    );
  });
}

const ID_ROUTES = ['/api/v1/scrape/:id', '/api/v1/scrape/:id/events', '/api/v1/scrape/:id/screenshot', '/api/v1/scrape/:id/screenshots/0',
  '/api/v1/crawl/:id', '/api/v1/crawl/:id/events', '/api/v1/batch/scrape/:id', '/api/v1/batch/scrape/:id/events',
  '/api/v1/batch/scrape/:id/pages/0/screenshot', '/api/v1/map/:id/events'];
const LIST_ROUTES = ['/api/v1/scrape', '/api/v1/crawl', '/api/v1/batch/scrape'];
const hostileId = fc.oneof(
  fc.constantFrom('*', '%2A', '*.*', '>', '%3E', '%20', '..', '..%2F..%2Fhealthz', '%0d%0aX-Injected:%201', 'a.b', '%00', '%25', 'x'.repeat(8000), 'AAAAAAAAAAAAAAAAAAAAAA'),
  fc.string({ minLength: 1, maxLength: 30 }).map(encodeURIComponent),
);
const hostileQuery = fc.oneof(
  fc.constantFrom('', '?limit=0', '?limit=-1', '?limit=1e9', '?limit=abc', '?offset=-5', '?after=-1', '?after=x', '?cursor=99999', '?cursor=../',
    '?limit=1&limit=2', '?waitMs=-1', '?waitMs=999999', '?%=', '?a[b]=c', '?__proto__[x]=1'),
  fc.dictionary(fc.constantFrom('limit', 'offset', 'after', 'cursor', 'waitMs', 'x'), fc.string({ maxLength: 10 }), { maxKeys: 3 })
    .map((q) => `?${new URLSearchParams(q).toString()}`),
);

function readCases(): fc.Arbitrary<Case> {
  return fc.oneof(
    fc.tuple(fc.constantFrom(...ID_ROUTES), hostileId, hostileQuery, fc.constantFrom('GET', 'DELETE', 'PUT', 'PATCH'))
      .map(([route, id, query, method]) => ({ method, url: route.replace(':id', id) + query, headers: auth })),
    fc.tuple(fc.constantFrom(...LIST_ROUTES), hostileQuery).map(([route, query]) => ({ method: 'GET', url: route + query, headers: auth })),
    fc.tuple(fc.constantFrom(...ID_ROUTES, ...LIST_ROUTES, '/api/v1/nope', '/api/v1/webhooks/secret'),
      fc.constantFrom('', 'Bearer', 'Bearer ', 'Basic abc', `Bearer ${KEY} extra`, 'Bearer \u00ff', `bearer ${KEY.toUpperCase()}`))
      .map(([route, authorization]) => ({ method: 'GET', url: route.replace(':id', 'AAAAAAAAAAAAAAAAAAAAAA'), headers: (authorization ? { authorization } : {}) as Record<string, string> })),
    fc.constantFrom('/api/v1/webhooks/secret', '/api/v1/webhooks/secret/rotate').chain((route) =>
      fc.oneof(fc.constant(undefined), fc.jsonValue({ maxDepth: 2 })).map((b) => ({
        method: 'POST', url: route, headers: { ...auth, ...(b === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(b === undefined ? {} : { payload: JSON.stringify(b) }),
      }))),
  );
}

function assertProblemAnswer(c: Case, res: { statusCode: number; headers: Record<string, unknown>; body: string }): void {
  const where = `${c.method} ${c.url.slice(0, 120)} ${c.payload?.slice(0, 200) ?? ''}`;
  assert.ok(res.statusCode < 500, `${where} answered ${res.statusCode}: ${res.body.slice(0, 300)}`);
  if (res.statusCode < 400) return;
  assert.match(String(res.headers['content-type']), /^application\/problem\+json/, where);
  const problem = JSON.parse(res.body);
  assert.equal(typeof problem.code, 'string', where);
  assert.equal(problem.status, res.statusCode, where);
  assert.ok(problem.type && problem.title && problem.detail, where);
  assert.equal(problem.requestId, res.headers['x-request-id'], where);
}

async function run(cases: Case[]): Promise<Map<number, number>> {
  const statuses = new Map<number, number>();
  for (let i = 0; i < cases.length; i += 25) {
    await Promise.all(cases.slice(i, i + 25).map(async (c) => {
      const res = await gw.app.inject({ method: c.method as 'GET', url: c.url, headers: c.headers, ...(c.payload !== undefined ? { payload: c.payload } : {}) });
      statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
      assertProblemAnswer(c, res);
    }));
  }
  return statuses;
}

describe('seeded fuzz of every endpoint', () => {
  test('1,600 malformed bodies over the four job-creating endpoints: no 5xx, every 4xx a problem', async () => {
    const cases = fc.sample(bodyCases(), { numRuns: 1600, seed: SEED });
    const statuses = await run(cases);
    if (process.env.FUZZ_VERBOSE) console.log(JSON.stringify([...statuses]));
    // The fuzz must mostly miss: a generator that produced valid requests would test nothing.
    assert.ok((statuses.get(400) ?? 0) + (statuses.get(415) ?? 0) > 1200, JSON.stringify([...statuses]));
  });

  test('800 hostile ids, query strings, methods and auth headers over every read path: no 5xx, every 4xx a problem', async () => {
    const cases = fc.sample(readCases(), { numRuns: 800, seed: SEED + 1 });
    const statuses = await run(cases);
    if (process.env.FUZZ_VERBOSE) console.log(JSON.stringify([...statuses]));
    assert.ok((statuses.get(404) ?? 0) > 200, JSON.stringify([...statuses]));
    assert.ok((statuses.get(401) ?? 0) > 50, JSON.stringify([...statuses]));
  });
});
