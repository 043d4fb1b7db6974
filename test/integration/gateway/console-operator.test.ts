// Operator and console are one world (issue 24, item 2), over HTTP (inject) against a real
// nats-server, store and projector: the first admin, from npm start's invite, gets the top
// plan and the keys npm start made (key_adopted in the log), so those keys' jobs show in
// the console; the next-steps panel; later operator keys are moved in from the Admin page;
// an open invite is revoked; plan changes and sign-out are confirmed.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createInvite } from '../../../shared/src/domain/accounts/commands.js';
import { accountIdOf } from '../../../shared/src/domain/accounts/tokens.js';
import { bootstrapKeys } from '../../../shared/src/domain/api-keys/bootstrap.js';
import { apiKeyId, newApiKey } from '../../../shared/src/infra/ids.js';
import { startGateway, type GatewayHarness } from '../../support/gateway.js';
import { until } from '../../support/wait.js';

const PASSWORD = 'a long enough password';

function cookiesOf(res: { headers: Record<string, unknown> }): string[] {
  const set = res.headers['set-cookie'];
  return Array.isArray(set) ? set as string[] : typeof set === 'string' ? [set] : [];
}

describe('console: the operator\'s keys and the first admin', () => {
  let gw: GatewayHarness;
  const startKey = newApiKey();
  const laterKey = newApiKey();
  let session = '';
  let csrf = '';

  before(async () => { gw = await startGateway(); });
  after(async () => { await gw?.close(); });

  const get = (url: string) => gw.app.inject({ method: 'GET', url, headers: { cookie: session } });
  const post = (url: string, fields: Record<string, string>) => gw.app.inject({
    method: 'POST', url, headers: { cookie: session, 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams({ _csrf: csrf, ...fields }).toString(),
  });

  test('the first admin gets the top plan and npm start\'s key; its jobs show under Jobs; next steps are shown once', async () => {
    await bootstrapKeys(gw.log, [{ key: startKey, plan: 'free' }]);
    // The gateway checks keys against the read model, which the projector writes a moment later.
    await until(async () => Boolean(await gw.store.apiKeys.get(apiKeyId(startKey))));
    const scrape = await gw.app.inject({ method: 'POST', url: '/api/v1/scrape', headers: { authorization: `Bearer ${startKey}` }, payload: { url: 'https://example.com/from-the-cli' } });
    assert.equal(scrape.statusCode, 202);
    const invite = await createInvite(gw.log, { role: 'admin', createdBy: 'operator', bootstrap: true });
    await until(async () => Boolean(await gw.store.invites.get(invite.inviteId)));
    const form = await gw.app.inject({ method: 'GET', url: `/console/signup?invite=${invite.token}` });
    const pre = cookiesOf(form).find((c) => c.startsWith('trawl_csrf='))!.split(';')[0]!;
    const res = await gw.app.inject({
      method: 'POST', url: '/console/signup', headers: { cookie: pre, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ _csrf: /name="_csrf" value="([^"]+)"/.exec(form.body)![1]!, email: 'op@example.org', password: PASSWORD, invite: invite.token }).toString(),
    });
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, '/console/keys?welcome=1');
    session = cookiesOf(res).find((c) => c.startsWith('trawl_session='))!.split(';')[0]!;
    const accountId = accountIdOf('op@example.org');
    assert.equal((await gw.store.accounts.get(accountId))?.plan, 'team', 'the top plan');
    assert.deepEqual((await gw.log.history('apikey', apiKeyId(startKey))).map((e) => e.event), ['key_created', 'key_adopted']);
    assert.equal((await gw.store.apiKeys.get(apiKeyId(startKey)))?.accountId, accountId);

    const welcome = await get('/console/keys?welcome=1');
    assert.equal(welcome.statusCode, 200);
    csrf = /name="_csrf" value="([^"]+)"/.exec(welcome.body)![1]!;
    assert.match(welcome.body, /Welcome: next steps/);
    assert.match(welcome.body, new RegExp(`<span class="mono">${apiKeyId(startKey)}</span>`));
    assert.match(welcome.body, /the <strong>team<\/strong> plan, the largest one/);
    assert.match(welcome.body, /npx trawl login --api-url/);
    const mcp = /<pre id="mcp-config">([\s\S]*?)<\/pre>/.exec(welcome.body)![1]!.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');
    const config = JSON.parse(mcp) as { mcpServers: { trawl: { command: string; args: string[]; env: Record<string, string> } } };
    assert.deepEqual([config.mcpServers.trawl.command, ...config.mcpServers.trawl.args], ['npx', 'trawl', 'mcp']);
    assert.equal(config.mcpServers.trawl.env.TRAWL_API_URL, gw.config.publicBaseUrl);
    assert.ok(!welcome.body.includes(startKey), 'the key itself is never on the page');
    assert.doesNotMatch((await get('/console/keys')).body, /next steps/, 'only right after sign-up');
    const jobs = await get('/console/jobs');
    assert.match(jobs.body, /https:\/\/example\.com\/from-the-cli/, 'the operator key\'s job is the admin\'s');
  });

  test('a key the operator makes later is moved in from the Admin page', async () => {
    await bootstrapKeys(gw.log, [{ key: laterKey, plan: 'pro' }]);
    const admin = await get('/console/admin');
    assert.match(admin.body, /Operator keys/);
    assert.match(admin.body, new RegExp(apiKeyId(laterKey)));
    const moved = await post('/console/admin/operator-keys/adopt', { keyId: apiKeyId(laterKey) });
    assert.equal(moved.statusCode, 303);
    assert.equal(moved.headers.location, '/console/admin?adopted=1');
    const after = await get(String(moved.headers.location));
    assert.match(after.body, /1 operator key moved into your account/);
    assert.doesNotMatch(after.body, /Operator keys/, 'none left');
    assert.equal((await gw.store.apiKeys.get(apiKeyId(laterKey)))?.accountId, accountIdOf('op@example.org'));
  });

  test('an open invite is revoked: its link stops working; plan changes are confirmed', async () => {
    const made = await createInvite(gw.log, { role: 'member', createdBy: accountIdOf('op@example.org') });
    await until(async () => Boolean(await gw.store.invites.get(made.inviteId))); // the Admin page lists the read model
    assert.match((await get('/console/admin')).body, new RegExp(`/console/admin/invites/${made.inviteId}/revoke`));
    const revoked = await post(`/console/admin/invites/${made.inviteId}/revoke`, {});
    assert.equal(revoked.statusCode, 303);
    const page = await get(String(revoked.headers.location));
    assert.match(page.body, /The invite is revoked/);
    assert.match(page.body, /revoked <time/);
    const link = await gw.app.inject({ method: 'GET', url: `/console/signup?invite=${made.token}` });
    assert.equal(link.statusCode, 403);
    assert.match(link.body, /revoked by an admin/);
    assert.equal((await post(`/console/admin/invites/${'0'.repeat(20)}/revoke`, {})).statusCode, 404);

    const plan = await post(`/console/admin/accounts/${accountIdOf('op@example.org')}/plan`, { plan: 'pro' });
    assert.equal(plan.statusCode, 303);
    assert.match((await get(String(plan.headers.location))).body, /op@example\.org is on the pro plan now/);
  });

  test('signing out says so', async () => {
    const out = await post('/console/signout', {});
    assert.equal(out.headers.location, '/console/signin?signedOut=1');
    assert.match((await gw.app.inject({ method: 'GET', url: '/console/signin?signedOut=1' })).body, /You are signed out/);
  });
});
