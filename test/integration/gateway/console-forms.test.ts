// The console's forms against cross-site requests and reloads (issue 20, item 6), over
// inject() against a real nats-server: the Origin of every POST must be exactly the
// console's (scheme, host and port; no path), sign-out included, so a form on another site
// cannot sign anyone out; key creation is post/redirect/get, so reloading the page that
// shows a new key makes no second key; and the API's `Bearer` scheme is case-insensitive
// with any run of spaces after it (RFC 7235), as docs/api.md says.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { accountIdOf } from '../../../shared/src/domain/accounts/tokens.js';
import { startGateway, type GatewayHarness } from '../../support/gateway.js';
import { withEnv } from '../../support/env.js';

const HOST = 'console.test:8080';
const OWN = `http://${HOST}`;
const PASSWORD = 'a long enough password';
const API_KEY = 'forms_test_key_0000000001';

type Headers = Record<string, string>;

function cookiesOf(res: { headers: Record<string, unknown> }): string[] {
  const set = res.headers['set-cookie'];
  return Array.isArray(set) ? set as string[] : typeof set === 'string' ? [set] : [];
}

describe('console forms: exact Origin, sign-out, post/redirect/get', () => {
  let gw: GatewayHarness;
  let session = '';
  let csrf = '';

  const get = (url: string, headers: Headers = {}) => gw.app.inject({ method: 'GET', url, headers: { host: HOST, cookie: session, ...headers } });
  const post = (url: string, fields: Record<string, string>, headers: Headers = {}) => gw.app.inject({
    method: 'POST', url, headers: { host: HOST, cookie: session, 'content-type': 'application/x-www-form-urlencoded', ...headers },
    payload: new URLSearchParams({ _csrf: csrf, ...fields }).toString(),
  });
  const signedIn = async (): Promise<boolean> => (await get('/console/keys')).statusCode === 200;
  const keyCount = async (): Promise<number> => (await gw.store.apiKeys.listBy(accountIdOf('forms@example.org'), { limit: 100, offset: 0 })).length;

  before(async () => {
    gw = await withEnv({ CONSOLE_SIGNUP: 'open' }, () => startGateway({ keys: [[API_KEY, 'team']], env: { PUBLIC_BASE_URL: 'https://trawl.example' } }));
    const form = await gw.app.inject({ method: 'GET', url: '/console/signup', headers: { host: HOST } });
    const pre = cookiesOf(form).find((c) => c.startsWith('trawl_csrf='))!.split(';')[0]!;
    const token = /name="_csrf" value="([^"]+)"/.exec(form.body)![1]!;
    const res = await gw.app.inject({ method: 'POST', url: '/console/signup', headers: { host: HOST, origin: OWN, cookie: pre, 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams({ _csrf: token, email: 'forms@example.org', password: PASSWORD }).toString() });
    assert.equal(res.statusCode, 303, res.body);
    session = cookiesOf(res).find((c) => c.startsWith('trawl_session='))!.split(';')[0]!;
    csrf = /name="_csrf" value="([^"]+)"/.exec((await get('/console/keys')).body)![1]!;
  });

  after(async () => { await gw?.close(); });

  test('a POST whose Origin is not exactly the console\'s is refused: other scheme, port, a path, a trailing slash', async () => {
    for (const origin of ['https://console.test:8080', 'http://console.test:9090', 'http://console.test', `${OWN}/console/keys`, `${OWN}/`, 'http://user@console.test:8080', 'HTTP://console.test:8080', 'ftp://console.test:8080', 'http://evil.example']) {
      const res = await post('/console/keys', { label: `from ${origin}` }, { origin });
      assert.equal(res.statusCode, 403, `Origin ${origin}: ${res.statusCode}`);
    }
    assert.equal((await post('/console/keys', { label: 'cross-site fetch' }, { 'sec-fetch-site': 'cross-site' })).statusCode, 403, 'Sec-Fetch-Site cross-site');
    assert.equal((await post('/console/keys', { label: 'sibling' }, { 'sec-fetch-site': 'same-site', origin: OWN })).statusCode, 403, 'Sec-Fetch-Site same-site');
    assert.equal(await keyCount(), 0, 'no key was made');
    // The console's own origin, as the request reached it or as PUBLIC_BASE_URL names it (behind a proxy).
    assert.equal((await post('/console/keys', { label: 'own origin' }, { origin: OWN, 'sec-fetch-site': 'same-origin' })).statusCode, 303);
    assert.equal((await post('/console/keys', { label: 'public origin' }, { origin: 'https://trawl.example' })).statusCode, 303);
    assert.equal(await keyCount(), 2);
  });

  test('a form on another site that auto-posts to sign-out signs nobody out', async () => {
    // A sibling site (same-site: the Lax session cookie is sent) with or without the token.
    for (const origin of ['http://evil.example', 'http://other.console.test:8080', `${OWN}/x`, 'https://console.test:8080']) {
      const res = await post('/console/signout', {}, { origin });
      assert.equal(res.statusCode, 403, `Origin ${origin}`);
      assert.equal(cookiesOf(res).length, 0, 'no cookie touched');
    }
    // Another site proper: the SameSite=Lax cookie is not sent, the Origin is the other site's.
    const crossSite = await gw.app.inject({ method: 'POST', url: '/console/signout', headers: { host: HOST, origin: 'http://evil.example', 'sec-fetch-site': 'cross-site', 'content-type': 'application/x-www-form-urlencoded' }, payload: '' });
    assert.equal(crossSite.statusCode, 403);
    // An old browser that sends no Origin and no cookie: nothing to sign out, and no cookie is cleared.
    const bare = await gw.app.inject({ method: 'POST', url: '/console/signout', headers: { host: HOST, 'content-type': 'application/x-www-form-urlencoded' }, payload: '' });
    assert.equal(bare.statusCode, 303);
    assert.deepEqual(cookiesOf(bare).filter((c) => c.startsWith('trawl_session=')), [], 'a cookie the request did not carry is not cleared');
    assert.equal(await signedIn(), true, 'still signed in');
  });

  test('creating a key is post/redirect/get: shown once, and a reload makes no second key', async () => {
    const before = await keyCount();
    const res = await post('/console/keys', { label: 'prg key' }, { origin: OWN });
    assert.equal(res.statusCode, 303, res.body.slice(0, 200));
    const location = String(res.headers.location);
    assert.match(location, /^\/console\/keys\?created=[0-9a-f]{20}$/);
    const flash = cookiesOf(res).find((c) => c.startsWith('trawl_flash='))!;
    assert.match(flash, /HttpOnly; SameSite=Strict/);
    const flashPair = flash.split(';')[0]!;

    const shown = await get(location, { cookie: `${session}; ${flashPair}` });
    assert.equal(shown.statusCode, 200);
    const key = /<code id="new-key-value">([^<]+)<\/code>/.exec(shown.body)?.[1];
    assert.match(String(key), /^trawl_[\w-]{32}$/);
    assert.ok(!flashPair.includes(key!.slice('trawl_'.length)), 'the cookie does not carry the key in the clear');
    assert.match(shown.body, /Your new key “prg key”/);
    assert.ok(cookiesOf(shown).some((c) => c.startsWith('trawl_flash=;') && /Max-Age=0/.test(c)), 'the cookie is cleared once shown');
    assert.equal((await gw.app.inject({ method: 'GET', url: '/api/v1/scrape', headers: { authorization: `Bearer ${key}` } })).statusCode, 200, 'the key shown works');

    // The reload: a GET of the same address (the browser dropped the cleared cookie).
    const reload = await get(location);
    assert.equal(reload.statusCode, 200);
    assert.doesNotMatch(reload.body, /new-key-value/, 'not shown again');
    assert.equal(await keyCount(), before + 1, 'one key made');
    // Another session cannot read the cookie.
    const other = await get(location, { cookie: `trawl_session=${'A'.repeat(43)}; ${flashPair}` });
    assert.doesNotMatch(other.body, /new-key-value/);
  });

  test('rotating a webhook secret is post/redirect/get: a reload does not rotate again', async () => {
    const keyId = (await gw.store.apiKeys.listBy(accountIdOf('forms@example.org'), { limit: 100, offset: 0 })).find((k) => !k.revokedAt)!.id;
    const page = `/console/keys/${keyId}/webhook-secret`;
    const generation = async () => Number(/Generation (\d+)/.exec((await get(page)).body)![1]);
    const before = await generation();
    const res = await post(`${page}/rotate`, { graceSeconds: '3600' }, { origin: OWN });
    assert.equal(res.statusCode, 303, res.body.slice(0, 200));
    const location = String(res.headers.location);
    assert.match(location, new RegExp(`^${page}\\?rotated=${before + 1}&previousValidUntil=`));
    const shown = await get(location);
    assert.match(shown.body, /Rotated\. The previous secret keeps signing too until/);
    await get(location); // the reload
    assert.equal(await generation(), before + 1, 'rotated once');
  });

  test('an invite link is post/redirect/get too: shown once, a reload makes no second invite', async () => {
    // This test's account is a member: an admin (made from an admin invite) makes the invite.
    const { createInvite } = await import('../../../shared/src/domain/accounts/commands.js');
    const adminInvite = await createInvite(gw.log, { role: 'admin', createdBy: 'operator' });
    const form = await gw.app.inject({ method: 'GET', url: `/console/signup?invite=${adminInvite.token}`, headers: { host: HOST } });
    const pre = cookiesOf(form).find((c) => c.startsWith('trawl_csrf='))!.split(';')[0]!;
    const token = /name="_csrf" value="([^"]+)"/.exec(form.body)![1]!;
    const made = await gw.app.inject({ method: 'POST', url: '/console/signup', headers: { host: HOST, origin: OWN, cookie: pre, 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams({ _csrf: token, email: 'admin@example.org', password: PASSWORD, invite: adminInvite.token }).toString() });
    assert.equal(made.statusCode, 303, made.body.slice(0, 300));
    const adminSession = cookiesOf(made).find((c) => c.startsWith('trawl_session='))!.split(';')[0]!;
    const adminPage = await gw.app.inject({ method: 'GET', url: '/console/admin', headers: { host: HOST, cookie: adminSession } });
    const adminCsrf = /name="_csrf" value="([^"]+)"/.exec(adminPage.body)![1]!;
    const invites = async () => (await gw.store.invites.list({ limit: 100, offset: 0 })).length;
    const before = await invites();
    const res = await gw.app.inject({ method: 'POST', url: '/console/admin/invites', headers: { host: HOST, origin: OWN, cookie: adminSession, 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams({ _csrf: adminCsrf, role: 'member' }).toString() });
    assert.equal(res.statusCode, 303, res.body.slice(0, 200));
    const location = String(res.headers.location);
    assert.match(location, /^\/console\/admin\?invited=[0-9a-f]{24}$/);
    const flash = cookiesOf(res).find((c) => c.startsWith('trawl_flash='))!.split(';')[0]!;
    const shown = await gw.app.inject({ method: 'GET', url: location, headers: { host: HOST, cookie: `${adminSession}; ${flash}` } });
    assert.match(shown.body, /<code id="invite-link">[^<]*\/console\/signup\?invite=inv_[\w-]{32}<\/code>/);
    const reload = await gw.app.inject({ method: 'GET', url: location, headers: { host: HOST, cookie: adminSession } });
    assert.equal(reload.statusCode, 200);
    assert.doesNotMatch(reload.body, /id="invite-link"/, 'not shown again');
    assert.equal(await invites(), before + 1, 'one invite made');
  });

  test('the API\'s Bearer scheme is case-insensitive and takes any run of spaces (RFC 7235)', async () => {
    const status = async (authorization: string) => (await gw.app.inject({ method: 'GET', url: '/api/v1/scrape', headers: { authorization } })).statusCode;
    for (const ok of [`Bearer ${API_KEY}`, `bearer ${API_KEY}`, `BEARER ${API_KEY}`, `Bearer  ${API_KEY}`, `bEaReR \t ${API_KEY}  `]) assert.equal(await status(ok), 200, JSON.stringify(ok));
    for (const bad of [`Basic ${API_KEY}`, `Bearer${API_KEY}`, 'Bearer', `Bearer ${API_KEY} extra`, `Token ${API_KEY}`]) assert.equal(await status(bad), 401, JSON.stringify(bad));
  });
});
