// RecentTransforms (services/transformer/src/recent-transforms.ts): a verification's transform
// of the rendered page stands for the page's own only when every part of the input is the same.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { normalizeScrapeOptions } from '../../../shared/src/domain/scrape-options.js';
import { RecentTransforms } from '../../../services/transformer/src/recent-transforms.js';
import { transformPage } from '../../../services/transformer/src/transform.js';
import type { TransformInput } from '../../../services/transformer/src/types.js';

const html = '<html><head><title>A page</title></head><body><article><h1>A page</h1><p>Its text, long enough to be the page.</p></article></body></html>';
const input = (over: Partial<TransformInput> = {}): TransformInput =>
  ({ html, url: 'https://example.com/a', statusCode: 200, options: normalizeScrapeOptions({ formats: ['markdown'] }), ...over });

describe('RecentTransforms', () => {
  test('given a transform remembered, when the same input (through JSON, keys in another order) is looked up, then its output is found', () => {
    const recent = new RecentTransforms();
    const output = transformPage(input());
    recent.remember(input(), output);
    const same = JSON.parse(JSON.stringify({ options: input().options, statusCode: 200, url: 'https://example.com/a', html })) as TransformInput;
    assert.equal(recent.find(same), output);
    assert.equal(recent.find({ ...input(), headers: {} }), output, 'empty headers are no headers');
  });

  test('given a transform remembered, when any part of the input differs, then nothing is found', () => {
    const recent = new RecentTransforms();
    recent.remember(input(), transformPage(input()));
    assert.equal(recent.find(input({ html: html.replace('Its text', 'Other text') })), undefined);
    assert.equal(recent.find(input({ url: 'https://example.com/b' })), undefined);
    assert.equal(recent.find(input({ statusCode: 404 })), undefined);
    assert.equal(recent.find(input({ headers: { 'cf-mitigated': 'challenge' } })), undefined);
    assert.equal(recent.find(input({ options: normalizeScrapeOptions({ formats: ['markdown', 'html'] }) })), undefined);
    assert.equal(recent.find(input({ options: normalizeScrapeOptions({ formats: ['markdown'], onlyMainContent: false }) })), undefined);
  });

  test('given a transform remembered, when its time is over or newer ones pushed it out, then nothing is found', async () => {
    const timed = new RecentTransforms({ ttlMs: 30 });
    timed.remember(input(), transformPage(input()));
    await sleep(80);
    assert.equal(timed.find(input()), undefined);
    const small = new RecentTransforms({ max: 2 });
    for (const url of ['https://example.com/1', 'https://example.com/2', 'https://example.com/3']) small.remember(input({ url }), transformPage(input({ url })));
    assert.equal(small.find(input({ url: 'https://example.com/1' })), undefined);
    assert.ok(small.find(input({ url: 'https://example.com/3' })));
  });
});
