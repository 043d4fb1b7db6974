// When a rendered page has settled (settle-watch.ts): content a page builds after timers of
// 50 ms to 2 s, after chained fetches, after an XHR, in requestIdleCallback or after a
// chain of timers is captured; a page that never stops changing (a clock, a fast ticker,
// an animation loop, a polling loop) still returns, within its timeout. Real Chromium,
// pages served here.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { PageCapturer } from '../../../services/fetcher/src/engine/browser/page-capturer.js';
import { startSite, type TestSite } from '../../support/site.js';
import { ctx, opts, startCapturer } from './helpers.js';

const SERVED = '<h1>Served heading</h1><p>The server sent this paragraph.</p>';
const page = (script: string, body = '') => `<!doctype html><html><head><title>t</title></head><body><main>${SERVED}<div id="late"></div>${body}</main>
<script>
  const build = (what) => { document.getElementById('late').innerHTML = '<p>Built later: ' + what + '.</p>'; };
  ${script}
</script></body></html>`;

describe('settling: waiting for the DOM, not for a quiet network', () => {
  let site: TestSite;
  let capturer: PageCapturer;

  before(async () => {
    site = await startSite({
      '/static': page(''),
      '/data/a.json': { contentType: 'application/json', body: '{"next":"/data/b.json"}' },
      '/data/b.json': { contentType: 'application/json', body: '{"next":"/data/c.json"}', delayMs: 150 },
      '/data/c.json': { contentType: 'application/json', body: '{"what":"three chained fetches"}', delayMs: 150 },
      '/chained-fetch': page(`fetch('/data/a.json').then((r) => r.json()).then((a) => fetch(a.next)).then((r) => r.json())
        .then(async (b) => { const c = await (await fetch(b.next)).json(); build(c.what); });`),
      '/xhr': page(`const x = new XMLHttpRequest(); x.open('GET', '/data/c.json'); x.onload = () => build('xhr ' + JSON.parse(x.responseText).what); x.send();`),
      '/idle': page(`requestIdleCallback(() => build('idle callback'));`),
      '/timer-chain': page(`setTimeout(() => setTimeout(() => setTimeout(() => build('a chain of three timers'), 200), 200), 200);`),
      '/after-load': page(`addEventListener('load', () => setTimeout(() => build('timer after load'), 400));`),
      '/fetch-then-timer': page(`fetch('/data/c.json').then((r) => r.json()).then((d) => setTimeout(() => build('timer after fetch'), 300));`),
      '/clock': page(`build('clock page'); setInterval(() => { document.getElementById('clock').textContent = new Date().toISOString(); }, 1000);`, '<p id="clock"></p>'),
      '/ticker': page(`build('ticker page'); let n = 0; setInterval(() => { document.getElementById('tick').textContent = 'tick ' + (n++); }, 30);`, '<p id="tick"></p>'),
      '/animation': page(`build('animation page'); const step = () => { document.getElementById('frame').textContent = String(performance.now()); requestAnimationFrame(step); }; requestAnimationFrame(step);`, '<p id="frame"></p>'),
      '/polling': page(`build('polling page'); const poll = () => fetch('/data/a.json').then(() => setTimeout(poll, 100)); poll();`),
    });
    for (const ms of [50, 300, 1000, 2000]) site.route(`/timer/${ms}`, page(`setTimeout(() => build('a timer of ${ms} ms'), ${ms});`));
    capturer = await startCapturer({ poolSize: 2 });
  });
  after(async () => {
    await capturer?.stop();
    await site?.close();
  });

  const capture = (path: string, timeout = 15_000) => capturer.capture(site.url(path), opts({ timeout }), ctx());

  test('a served page that needs no script is captured as served', async () => {
    const result = await capture('/static');
    assert.match(result.html, /The server sent this paragraph/);
  });

  for (const ms of [50, 300, 1000, 2000]) {
    test(`content built after a timer of ${ms} ms`, async () => {
      assert.match((await capture(`/timer/${ms}`)).html, new RegExp(`Built later: a timer of ${ms} ms\\.`));
    });
  }

  const built: [string, string][] = [
    ['/chained-fetch', 'three chained fetches'],
    ['/xhr', 'xhr three chained fetches'],
    ['/idle', 'idle callback'],
    ['/timer-chain', 'a chain of three timers'],
    ['/after-load', 'timer after load'],
    ['/fetch-then-timer', 'timer after fetch'],
  ];
  for (const [path, what] of built) {
    test(`content built after ${what} (${path})`, async () => {
      assert.match((await capture(path)).html, new RegExp(`Built later: ${what}\\.`));
    });
  }

  // A page that never stops changing must still return: within a tight page timeout too.
  for (const path of ['/clock', '/ticker', '/animation', '/polling']) {
    test(`a page that never stops changing returns within its timeout (${path})`, async () => {
      const result = await capture(path, 4_000);
      assert.match(result.html, /The server sent this paragraph/);
      assert.match(result.html, /Built later: \w+ page\./);
    });
  }
});
