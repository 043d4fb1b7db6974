// Utility classes under a variant ("print:break-inside-avoid", "md:hover:opacity-100") style an
// element; they name no role, so the boilerplate names (boilerplate.ts) do not read them.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { normalizeScrapeOptions } from '../../../shared/src/domain/scrape-options.js';
import { extractPage } from '../../../packages/extract/src/index.js';

const PROSE =
  'This guide walks through the functional style in plain JavaScript, one small function at a time, so that every chapter ' +
  'builds on the last and the exercises can be run in the browser or in an editor without any setup.';

function markdown(html: string): string {
  return extractPage({ html, url: 'https://guide.example.org/book/', options: normalizeScrapeOptions({ formats: ['markdown'], onlyMainContent: true }) }).markdown!;
}

describe('utility classes under a variant', () => {
  test('given a docs page whose paragraphs carry print: and md: utility classes, then every paragraph is kept', () => {
    const paragraphs = Array.from({ length: 6 }, (_, i) => `<h3 class="scroll-mt-4 print:break-inside-avoid">Part ${i}</h3><p class="mx-auto print:break-inside-avoid md:max-w-3xl">${PROSE.replace('guide', `guide (part ${i})`)}</p>`).join('');
    const html = `<html><head><title>README</title></head><body><nav><a href="/">Home</a></nav><main><h1>README</h1><p>${PROSE.replace('guide', 'opening guide')}</p>${paragraphs}</main></body></html>`;
    const md = markdown(html);
    for (let i = 0; i < 6; i++) assert.match(md, new RegExp(`guide \\(part ${i}\\)`), md);
  });

  test('given a print button named as such beside the text, then it still goes', () => {
    const html = `<html><head><title>README</title></head><body><main><h1>README</h1><p>${PROSE}</p><p>${PROSE.replace('guide', 'second guide')}</p>
      <div class="print-button"><a href="/print">Print this page now</a></div></main></body></html>`;
    const md = markdown(html);
    assert.match(md, /second guide/);
    assert.ok(!md.includes('Print this page now'), md);
  });
});
