// The console's accounts over HTTP (inject) against a real nats-server, store and
// projector: each sign-up mode, what reaches the log (hashes, never a password or token),
// cookies and headers, sign-out, and the answers to bad input.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createInvite } from '../../../shared/src/domain/accounts/commands.js';
import { accountIdOf, sessionIdOf } from '../../../shared/src/domain/accounts/tokens.js';
import { startGateway, type GatewayHarness } from '../../support/gateway.js';

interface Form { cookie: string; csrf: string }

async function withEnv<T>(env: Record<string, string>, run: () => Promise<T>): Promise<T> {
  const before = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env);
  try { return await run(); } finally {
    for (const [k, v] of Object.entries(before)) { if (v === undefined) delete process.env[k]; else process.env[k] = v; }
  }
}

function cookiesOf(res: { headers: Record<string, unknown> }): string[] {
  const set = res.headers['set-cookie'];
  return Array.isArray(set) ? set as string[] : typeof set === 'string' ? [set] : [];
}

async function openForm(gw: GatewayHarness, url: string): Promise<Form & { status: number; body: string }> {
  const res = await gw.app.inject({ method: 'GET', url });
  const cookie = cookiesOf(res).find((c) => c.startsWith('trawl_csrf='))?.split(';')[0] ?? '';
  const csrf = /name="_csrf" value="([^"]+)"/.exec(res.body)?.[1] ?? '';
  return { cookie, csrf, status: res.statusCode, body: res.body };
}

function post(gw: GatewayHarness, url: string, form: Form, fields: Record<string, string>) {
  return gw.app.inject({ method: 'POST', url, headers: { cookie: form.cookie, 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams({ _csrf: form.csrf, ...fields }).toString() });
}

const PASSWORD = 'a long enough password';

describe('console accounts: open sign-up', () => {
  let gw: GatewayHarness;
  before(async () => { gw = await withEnv({ CONSOLE_SIGNUP: 'open', CONSOLE_DEFAULT_PLAN: 'basic' }, () => startGateway()); });
  after(async () => { await gw?.close(); });

  test('anyone signs up: a member on the default plan; the log holds the scrypt hash, never the password or the token', async () => {
    const form = await openForm(gw, '/console/signup');
    assert.equal(form.status, 200);
    const res = await post(gw, '/console/signup', form, { email: ' Bob@Example.org ', password: PASSWORD });
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, '/console/keys?welcome=1');
    const session = cookiesOf(res).find((c) => c.startsWith('trawl_session='))!;
    assert.match(session, /; Path=\/console; Max-Age=604800; HttpOnly; SameSite=Lax$/, 'no Secure over plain http');
    const token = /^trawl_session=([^;]+)/.exec(session)![1]!;
    const account = await gw.store.accounts.get(accountIdOf('bob@example.org'));
    assert.equal(account?.role, 'member');
    assert.equal(account?.plan, 'basic');
    const logged = JSON.stringify([...await gw.log.history('account', account!.id), ...await gw.log.history('session', sessionIdOf(token))]);
    assert.match(logged, /scrypt\$32768\$8\$1\$/);
    assert.ok(!logged.includes(PASSWORD) && !logged.includes(token), 'neither the password nor the session token is in the log');
    const page = await gw.app.inject({ method: 'GET', url: '/console/keys', headers: { cookie: `trawl_session=${token}` } });
    assert.equal(page.statusCode, 200);
    assert.match(String(page.headers['content-security-policy']), /default-src 'none'; script-src 'self'/);
    assert.equal(page.headers['x-frame-options'], 'DENY');
    assert.equal(page.headers['cache-control'], 'no-store');

    // Signing out ends the session in the log; the cookie then signs nobody in.
    const csrf = /name="_csrf" value="([^"]+)"/.exec(page.body)![1]!;
    const out = await gw.app.inject({ method: 'POST', url: '/console/signout', headers: { cookie: `trawl_session=${token}`, 'content-type': 'application/x-www-form-urlencoded' }, payload: `_csrf=${csrf}` });
    assert.equal(out.statusCode, 303);
    assert.deepEqual((await gw.log.history('session', sessionIdOf(token))).map((e) => e.event), ['session_started', 'session_ended']);
    const after = await gw.app.inject({ method: 'GET', url: '/console/keys', headers: { cookie: `trawl_session=${token}` } });
    assert.equal(after.statusCode, 303);
    assert.match(String(after.headers.location), /^\/console\/signin\?next=/);
  });

  test('bad input is answered on the form, with nothing appended', async () => {
    const form = await openForm(gw, '/console/signup');
    for (const [fields, status, message] of [
      [{ email: 'not-an-email', password: PASSWORD }, 400, /valid email/],
      [{ email: 'c@example.org', password: 'short' }, 400, /at least 10 characters/],
      [{ email: 'BOB@example.org', password: PASSWORD }, 400, /exists already/],
    ] as const) {
      const res = await post(gw, '/console/signup', form, fields);
      assert.equal(res.statusCode, status, JSON.stringify(fields));
      assert.match(res.body, message);
      assert.match(res.body, /role="alert"/);
    }
    assert.equal(await gw.store.accounts.get(accountIdOf('c@example.org')), null);
  });

  test('JSON callers get problem documents; unknown console pages are 404', async () => {
    const json = await gw.app.inject({ method: 'GET', url: '/console/nope', headers: { accept: 'application/json' } });
    assert.equal(json.statusCode, 404);
    assert.match(String(json.headers['content-type']), /application\/problem\+json/);
    assert.equal(json.json().code, 'NOT_FOUND');
    const page = await gw.app.inject({ method: 'GET', url: '/console/nope', headers: { accept: 'text/html' } });
    assert.equal(page.statusCode, 404);
    assert.match(page.body, /<h1>Page not found<\/h1>/);
    const openapi = (await gw.app.inject({ method: 'GET', url: '/openapi.json' })).json() as { paths: Record<string, unknown> };
    assert.deepEqual(Object.keys(openapi.paths).filter((p) => !p.startsWith('/api/v1/')), [], 'console pages are not in the API document');
    const unsigned = await gw.app.inject({ method: 'GET', url: `/console/jobs/scrape/${'A'.repeat(22)}/progress.json` });
    assert.equal(unsigned.statusCode, 401);
    assert.equal(unsigned.json().code, 'UNAUTHORIZED');
  });
});

describe('console accounts: invite and closed sign-up', () => {
  let invite: GatewayHarness;
  let closed: GatewayHarness;
  before(async () => {
    invite = await withEnv({ CONSOLE_SIGNUP: 'invite' }, () => startGateway({ env: { PUBLIC_BASE_URL: 'https://console.example' } }));
    closed = await withEnv({ CONSOLE_SIGNUP: 'closed' }, () => startGateway());
  });
  after(async () => { await invite?.close(); await closed?.close(); });

  test('invite mode: no invite, an unknown one, an expired one are refused; a good one works once, with Secure cookies behind https', async () => {
    const blocked = await openForm(invite, '/console/signup');
    assert.equal(blocked.status, 403);
    assert.match(blocked.body, /needs an invite link/);
    const form = await openForm(invite, '/console/signup?invite=inv_' + 'x'.repeat(32));
    assert.equal(form.status, 404);
    const noInvite = await post(invite, '/console/signup', form, { email: 'd@example.org', password: PASSWORD });
    assert.equal(noInvite.statusCode, 403);
    const old = await createInvite(invite.log, { role: 'member', createdBy: 'operator', now: new Date(Date.now() - 8 * 24 * 3600 * 1000) });
    assert.equal((await openForm(invite, `/console/signup?invite=${old.token}`)).status, 403);
    const made = await createInvite(invite.log, { role: 'member', createdBy: 'operator' });
    const good = await openForm(invite, `/console/signup?invite=${made.token}`);
    assert.equal(good.status, 200);
    const res = await post(invite, '/console/signup', good, { email: 'd@example.org', password: PASSWORD, invite: made.token });
    assert.equal(res.statusCode, 303);
    assert.match(cookiesOf(res).find((c) => c.startsWith('trawl_session='))!, /; Secure$/);
    const again = await post(invite, '/console/signup', good, { email: 'e@example.org', password: PASSWORD, invite: made.token });
    assert.equal(again.statusCode, 403);
    assert.match(again.body, /used already/);
  });

  test('closed mode: only an admin invite makes an account', async () => {
    const member = await createInvite(closed.log, { role: 'member', createdBy: 'operator' });
    const form = await openForm(closed, `/console/signup?invite=${member.token}`);
    const refused = await post(closed, '/console/signup', form, { email: 'f@example.org', password: PASSWORD, invite: member.token });
    assert.equal(refused.statusCode, 403);
    assert.match(refused.body, /closed/);
    const admin = await createInvite(closed.log, { role: 'admin', createdBy: 'operator', bootstrap: true });
    const ok = await post(closed, '/console/signup', await openForm(closed, `/console/signup?invite=${admin.token}`), { email: 'g@example.org', password: PASSWORD, invite: admin.token });
    assert.equal(ok.statusCode, 303);
    assert.equal((await closed.store.accounts.get(accountIdOf('g@example.org')))?.role, 'admin');
    // npm start's bootstrap invites stop working once an admin exists.
    const late = await createInvite(closed.log, { role: 'admin', createdBy: 'operator', bootstrap: true });
    const superseded = await openForm(closed, `/console/signup?invite=${late.token}`);
    assert.equal(superseded.status, 403);
    assert.match(superseded.body, /an admin exists now/);
  });
});
