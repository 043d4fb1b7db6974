// The console's sign-in limits under concurrency (issue 20, item 1): two gateway app
// instances, each on its own NATS connection to one real nats-server, take 100 sign-in
// attempts at once. A 401 is an attempt whose password was checked (wrong), a 303 one that
// was checked and right, a 429 one refused before any check: so the answers count the
// passwords verified. At most 5 per account and 20 per address may be, whatever the
// concurrency, and the right password after the limit is refused.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { connect, type NatsConnection } from 'nats';
import { newId, systemClock } from '../../../shared/src/infra/ids.js';
import { EventLog } from '../../../shared/src/infra/nats/event-log.js';
import { buildApp } from '../../../services/gateway/src/app.js';
import { MAX_FAILURES_PER_ACCOUNT, MAX_FAILURES_PER_ADDRESS } from '../../../services/gateway/src/console/throttle.js';
import { ProjectionWaiter } from '../../../services/gateway/src/projection-wait.js';
import { startGateway, type GatewayApp, type GatewayHarness } from '../../support/gateway.js';
import { withEnv } from '../../support/env.js';

const PASSWORD = 'the right password, long enough';
const EMAIL = 'victim@example.org';

interface Form { cookie: string; csrf: string }

async function openForm(app: GatewayApp): Promise<Form> {
  const res = await app.inject({ method: 'GET', url: '/console/signin' });
  const set = res.headers['set-cookie'];
  const cookie = (Array.isArray(set) ? set : [String(set)]).find((c) => c.startsWith('trawl_csrf='))!.split(';')[0]!;
  return { cookie, csrf: /name="_csrf" value="([^"]+)"/.exec(res.body)![1]! };
}

function signIn(app: GatewayApp, form: Form, email: string, password: string, address: string) {
  return app.inject({
    method: 'POST', url: '/console/signin', remoteAddress: address,
    headers: { cookie: form.cookie, 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ _csrf: form.csrf, email, password }).toString(),
  });
}

function tally(statuses: number[]): Record<number, number> {
  const out: Record<number, number> = {};
  for (const s of statuses) out[s] = (out[s] ?? 0) + 1;
  return out;
}

describe('sign-in limits across two gateways under concurrency', () => {
  let gw: GatewayHarness;
  let nc2: NatsConnection;
  let app2: GatewayApp;
  let waiter2: ProjectionWaiter;
  let forms: [Form, Form];
  let apps: [GatewayApp, GatewayApp];

  before(async () => {
    await withEnv({ CONSOLE_SIGNUP: 'open' }, async () => {
      gw = await startGateway();
      nc2 = await connect({ servers: gw.server.url });
      waiter2 = new ProjectionWaiter(nc2, gw.store);
      await waiter2.start();
      const js2 = nc2.jetstream();
      app2 = await buildApp({ config: gw.config, logger: gw.logger, nc: nc2, log: new EventLog(js2, await nc2.jetstreamManager()), payloads: gw.payloads, store: gw.store, waiter: waiter2, newId, clock: systemClock });
      await app2.ready();
    });
    apps = [gw.app, app2];
    forms = [await openForm(gw.app), await openForm(app2)];
    // The account, made through the first gateway's sign-up form.
    const signup = await gw.app.inject({ method: 'GET', url: '/console/signup' });
    const set = signup.headers['set-cookie'];
    const cookie = (Array.isArray(set) ? set : [String(set)]).find((c) => c.startsWith('trawl_csrf='))!.split(';')[0]!;
    const csrf = /name="_csrf" value="([^"]+)"/.exec(signup.body)![1]!;
    const made = await gw.app.inject({ method: 'POST', url: '/console/signup', headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams({ _csrf: csrf, email: EMAIL, password: PASSWORD }).toString() });
    assert.equal(made.statusCode, 303, made.body);
  });

  after(async () => {
    await app2?.close();
    waiter2?.stop();
    await nc2?.close();
    await gw?.close();
  });

  test('the right password signs in and gives its attempt back', async () => {
    for (let i = 0; i < MAX_FAILURES_PER_ACCOUNT + 2; i++) {
      const res = await signIn(apps[i % 2]!, forms[i % 2]!, EMAIL, PASSWORD, '127.0.0.50');
      assert.equal(res.statusCode, 303, `sign-in ${i + 1}: ${res.body.slice(0, 200)}`);
    }
  });

  test('100 wrong passwords at once on one account: 5 checked, then even the right one is refused', async () => {
    const attempts = Array.from({ length: 100 }, (_, i) => signIn(apps[i % 2]!, forms[i % 2]!, EMAIL, `wrong password ${i}`, `127.0.1.${i}`));
    const counts = tally((await Promise.all(attempts)).map((r) => r.statusCode));
    console.log('100 concurrent wrong attempts on one account:', counts);
    assert.deepEqual(counts, { 401: MAX_FAILURES_PER_ACCOUNT, 429: 100 - MAX_FAILURES_PER_ACCOUNT });
    for (const i of [0, 1]) {
      const right = await signIn(apps[i]!, forms[i]!, EMAIL, PASSWORD, '127.0.2.1');
      assert.equal(right.statusCode, 429, 'the right password after the limit is refused');
      assert.match(right.body, /too many failed sign-ins/);
      assert.equal(right.headers['retry-after'], '900');
    }
  });

  test('100 attempts at once from one address on 100 accounts: 20 checked', async () => {
    const attempts = Array.from({ length: 100 }, (_, i) => signIn(apps[i % 2]!, forms[i % 2]!, `nobody${i}@example.org`, 'some password', '127.0.3.3'));
    const counts = tally((await Promise.all(attempts)).map((r) => r.statusCode));
    console.log('100 concurrent attempts from one address:', counts);
    assert.deepEqual(counts, { 401: MAX_FAILURES_PER_ADDRESS, 429: 100 - MAX_FAILURES_PER_ADDRESS });
  });

  test('99 wrong and the right password at once: at most 5 wrong ones checked', async () => {
    const email = 'second@example.org';
    const signup = await gw.app.inject({ method: 'GET', url: '/console/signup' });
    const set = signup.headers['set-cookie'];
    const cookie = (Array.isArray(set) ? set : [String(set)]).find((c) => c.startsWith('trawl_csrf='))!.split(';')[0]!;
    const csrf = /name="_csrf" value="([^"]+)"/.exec(signup.body)![1]!;
    const made = await gw.app.inject({ method: 'POST', url: '/console/signup', headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams({ _csrf: csrf, email, password: PASSWORD }).toString() });
    assert.equal(made.statusCode, 303);
    const attempts = Array.from({ length: 100 }, (_, i) => signIn(apps[i % 2]!, forms[i % 2]!, email, i === 99 ? PASSWORD : `wrong ${i}`, `127.0.4.${i}`));
    const counts = tally((await Promise.all(attempts)).map((r) => r.statusCode));
    console.log('99 wrong + 1 right at once:', counts);
    // The right one signs in only if it was among the first five to be counted (it gives
    // its slot back, which one more wrong attempt may then take: still five wrong in all).
    assert.equal(counts[401], MAX_FAILURES_PER_ACCOUNT, 'five wrong passwords checked');
    assert.ok((counts[303] ?? 0) <= 1);
    assert.equal((counts[401] ?? 0) + (counts[303] ?? 0) + (counts[429] ?? 0), 100);
  });
});
