// Screenshots: each format with its real dimensions (read from the image header here, not
// by the library's reader), full page, clip, hidden excludeTags, and action screenshots.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { SelectorNotFoundError } from '../../../shared/src/domain/errors.js';
import type { PageCapturer } from '../../../services/fetcher/src/engine/browser/page-capturer.js';
import { startSite, type TestSite } from '../../support/site.js';
import { ctx, imageHeaderSize, opts, startCapturer } from './helpers.js';

const page = (ad: string): string => `<!doctype html><html><head><meta name="viewport" content="width=device-width">
  <style>body { margin: 0; background: #fff } #box { width: 200px; height: 100px; background: #06c; margin: 20px }
  .ad { width: 300px; height: 150px; background: #f00 }</style></head>
  <body><div id="box"></div>${ad}<button id="more" onclick="document.getElementById('box').style.background='#0c6'">more</button></body></html>`;

let site: TestSite;
let capturer: PageCapturer;

before(async () => {
  site = await startSite({
    '/': page('<div class="ad">ad</div>'),
    '/hidden-ad': page('<div class="ad" style="visibility:hidden">ad</div>'),
    '/tall': '<!doctype html><html><body style="margin:0"><div style="height:3000px;background:linear-gradient(#fff,#000)">tall</div></body></html>',
  });
  capturer = await startCapturer();
});

after(async () => {
  await capturer.stop();
  await site.close();
});

describe('screenshots', () => {
  for (const format of ['png', 'jpeg', 'webp'] as const) {
    test(`${format}: viewport-sized image in that format with its real dimensions`, async () => {
      const result = await capturer.capture(site.url('/'), opts({
        formats: ['markdown', 'screenshot'],
        viewport: { width: 1024, height: 700 },
        screenshotOptions: { format, quality: 60 },
      }), ctx());
      assert.equal(result.screenshots.length, 1);
      const [shot] = result.screenshots;
      assert.ok(shot);
      assert.equal(shot.role, 'final');
      assert.equal(shot.format, format);
      assert.deepEqual(imageHeaderSize(shot.data), { format, width: 1024, height: 700 });
      assert.equal(shot.width, 1024);
      assert.equal(shot.height, 700);
      assert.ok(result.timings.screenshotMs >= 0);
    });
  }

  test('jpeg quality changes the encoding', async () => {
    const sizes: number[] = [];
    for (const quality of [10, 100]) {
      const result = await capturer.capture(site.url('/tall'), opts({ formats: ['screenshot'], screenshotOptions: { format: 'jpeg', quality } }), ctx());
      sizes.push(result.screenshots[0]?.data.length ?? 0);
    }
    assert.ok(sizes[0]! < sizes[1]!, `quality 10 gave ${sizes[0]} bytes, quality 100 gave ${sizes[1]}`);
  });

  test('fullPage captures the whole height', async () => {
    const result = await capturer.capture(site.url('/tall'), opts({ formats: ['screenshot'], screenshotOptions: { fullPage: true } }), ctx());
    const size = imageHeaderSize(result.screenshots[0]!.data);
    assert.equal(size.width, 1280);
    assert.ok(size.height >= 3000, `full page height ${size.height}`);
    assert.equal(result.screenshots[0]!.height, size.height);
  });

  test('mobile screenshots are in CSS pixels of the mobile viewport', async () => {
    const result = await capturer.capture(site.url('/'), opts({ formats: ['screenshot'], device: 'mobile' }), ctx());
    assert.deepEqual(imageHeaderSize(result.screenshots[0]!.data), { format: 'png', width: 412, height: 915 });
  });

  test('clip screenshots one element', async () => {
    const result = await capturer.capture(site.url('/'), opts({ formats: ['screenshot'], screenshotOptions: { clip: '#box', format: 'webp' } }), ctx());
    assert.deepEqual(imageHeaderSize(result.screenshots[0]!.data), { format: 'webp', width: 200, height: 100 });
  });

  test('clip with a missing selector is SELECTOR_NOT_FOUND', async () => {
    await assert.rejects(capturer.capture(site.url('/'), opts({ formats: ['screenshot'], screenshotOptions: { clip: '#nope' } }), ctx()), (err: unknown) => {
      assert.ok(err instanceof SelectorNotFoundError);
      assert.match(err.message, /screenshotOptions.clip: selector '#nope' not found/);
      return true;
    });
  });

  test('excludeTags are hidden in the screenshot, layout kept', async () => {
    const shoot = async (path: string, excludeTags: string[]): Promise<Buffer> =>
      (await capturer.capture(site.url(path), opts({ formats: ['screenshot'], excludeTags }), ctx())).screenshots[0]!.data;
    const excluded = await shoot('/', ['.ad', 'nav > .missing']);
    const reference = await shoot('/hidden-ad', []);
    const shown = await shoot('/', []);
    assert.ok(excluded.equals(reference), 'hiding .ad gives the same pixels as a page where it is invisible');
    assert.ok(!shown.equals(reference), 'without excludeTags the ad is visible');
  });

  test('action screenshots come first in action order, then the final one', async () => {
    const result = await capturer.capture(site.url('/'), opts({
      formats: ['screenshot'],
      screenshotOptions: { format: 'jpeg', clip: '#box' },
      actions: [{ type: 'screenshot' }, { type: 'click', selector: '#more' }, { type: 'screenshot' }],
    }), ctx());
    assert.deepEqual(result.screenshots.map((s) => [s.role, s.format, s.width, s.height]), [
      ['action', 'jpeg', 1280, 800],
      ['action', 'jpeg', 1280, 800],
      ['final', 'jpeg', 200, 100],
    ]);
    assert.ok(!result.screenshots[0]!.data.equals(result.screenshots[1]!.data), 'the click changed the page between the two');
  });

  test('action screenshots without the screenshot format are PNGs of the viewport, and no final one', async () => {
    const result = await capturer.capture(site.url('/'), opts({ actions: [{ type: 'screenshot' }] }), ctx());
    assert.deepEqual(result.screenshots.map((s) => [s.role, s.format, s.width, s.height]), [['action', 'png', 1280, 800]]);
  });
});
