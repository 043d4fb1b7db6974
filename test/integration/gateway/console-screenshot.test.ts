// A screenshot is served with the media type of its format, by the API and by the console
// alike (both read shared/src/api/media.ts): the console once answered every non-jpeg
// screenshot as image/png, so a webp one was mislabelled. The pipeline is played by
// appending the events the fetcher and transformer would, against a real nats-server.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createKey } from '../../../shared/src/domain/api-keys/admin.js';
import { makeEvent, type AnyEvent } from '../../../shared/src/domain/events/index.js';
import { newId } from '../../../shared/src/infra/ids.js';
import { startGateway, type GatewayHarness } from '../../support/gateway.js';
import { withEnv } from '../../support/env.js';

const KEY = 'console_screenshot_key_00000001';
const PASSWORD = 'a long enough password';
// The first bytes of a WebP file (RIFF....WEBP), enough for a media type to be checked.
const WEBP = new Uint8Array([0x52, 0x49, 0x46, 0x46, 4, 0, 0, 0, 0x57, 0x45, 0x42, 0x50, 1, 2, 3]);

describe('screenshots keep their media type', () => {
  let gw: GatewayHarness;
  let session = '';

  const api = (method: 'GET' | 'POST', url: string, body?: unknown) => gw.app.inject({
    method, url, headers: { authorization: `Bearer ${KEY}`, ...(body ? { 'content-type': 'application/json' } : {}) }, ...(body ? { payload: JSON.stringify(body) } : {}),
  });

  before(async () => {
    gw = await withEnv({ CONSOLE_SIGNUP: 'open' }, () => startGateway({ env: { SSRF_ALLOW_CIDRS: '127.0.0.0/8' } }));
    const form = await gw.app.inject({ method: 'GET', url: '/console/signup' });
    const set = form.headers['set-cookie'];
    const cookie = (Array.isArray(set) ? set : [String(set)]).find((c) => c.startsWith('trawl_csrf='))!.split(';')[0]!;
    const csrf = /name="_csrf" value="([^"]+)"/.exec(form.body)![1]!;
    const res = await gw.app.inject({
      method: 'POST', url: '/console/signup', headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ _csrf: csrf, email: 'shots@example.org', password: PASSWORD }).toString(),
    });
    assert.equal(res.statusCode, 303, res.body);
    session = (res.headers['set-cookie'] as string[]).find((c) => c.startsWith('trawl_session='))!.split(';')[0]!;
    const accountId = (await gw.store.accounts.list({ limit: 10, offset: 0 })).find((a) => a.email === 'shots@example.org')!.id;
    const made = await createKey({ log: gw.log, now: () => new Date() }, 'team', 'test', KEY, accountId);
    await gw.waiter.waitFor(made.seq!);
  });

  after(async () => { await gw?.close(); });

  /** Plays a scrape to COMPLETED with a stored screenshot of `format`. */
  async function scrapedWithScreenshot(format: 'webp' | 'jpeg' | 'png', bytes: Uint8Array): Promise<string> {
    const posted = await api('POST', '/api/v1/scrape', { url: `http://127.0.0.1:9/${format}`, formats: ['screenshot'], screenshotOptions: { format } });
    assert.equal(posted.statusCode, 202, posted.body);
    const id = posted.json().id as string;
    const [requested] = await gw.log.history('scrape', id);
    const at = { kind: 'scrape' as const, id, part: requested!.part };
    const now = new Date();
    const shot = await gw.payloads.putBytes(`scrape/${id}/${at.part}/screenshot.${format}`, bytes, `image/${format}`);
    const result = await gw.payloads.putJson(`scrape/${id}/${at.part}/result.json`, {
      screenshot: { name: shot.name, width: 10, height: 20, format, fileSize: bytes.byteLength },
    });
    const { seq } = await gw.log.append(makeEvent('page_completed', at, {
      result, metadata: { title: 'Shot', description: '' }, links: [], cacheKey: (requested!.data as { cacheKey: string }).cacheKey,
      timings: { queueWaitMs: 0, fetchMs: 1, renderMs: 1, transformMs: 1, screenshotMs: 1, totalMs: 4 }, completedAt: now.toISOString(),
    }, { eventId: newId(), now }) as AnyEvent, { once: true });
    await gw.waiter.waitFor(seq);
    return id;
  }

  test('a webp screenshot is image/webp in the console and in the API', async () => {
    const id = await scrapedWithScreenshot('webp', WEBP);
    const consoleImage = await gw.app.inject({ method: 'GET', url: `/console/jobs/scrape/${id}/screenshot`, headers: { cookie: session } });
    assert.equal(consoleImage.statusCode, 200, consoleImage.body.slice(0, 300));
    assert.equal(consoleImage.headers['content-type'], 'image/webp');
    assert.deepEqual(new Uint8Array(consoleImage.rawPayload), WEBP);
    const apiImage = await api('GET', `/api/v1/scrape/${id}/screenshot`);
    assert.equal(apiImage.statusCode, 200, apiImage.body.slice(0, 300));
    assert.equal(apiImage.headers['content-type'], 'image/webp');
  });

  test('jpeg stays image/jpeg in the console', async () => {
    const id = await scrapedWithScreenshot('jpeg', new Uint8Array([0xff, 0xd8, 0xff, 1]));
    const consoleImage = await gw.app.inject({ method: 'GET', url: `/console/jobs/scrape/${id}/screenshot`, headers: { cookie: session } });
    assert.equal(consoleImage.headers['content-type'], 'image/jpeg');
  });
});
