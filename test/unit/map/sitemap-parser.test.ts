import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SitemapParser, type SitemapLocKind } from '../../../shared/src/net/sitemaps/parser.js';

function parse(chunks: string[]): { locs: [string, SitemapLocKind][]; parser: SitemapParser } {
  const locs: [string, SitemapLocKind][] = [];
  const parser = new SitemapParser({ onLoc: (url, kind) => locs.push([url, kind]) });
  for (const c of chunks) parser.write(c);
  parser.end();
  return { locs, parser };
}

/** Every split of the text into two chunks gives the same result as one chunk. */
function assertChunkingInvariant(text: string): void {
  const whole = parse([text]).locs;
  for (let i = 1; i < text.length; i++) {
    assert.deepEqual(parse([text.slice(0, i), text.slice(i)]).locs, whole, `split at ${i}`);
  }
}

describe('sitemap parser', () => {
  test('an entry\'s lastmod comes with it, before or after its loc, in chunks split anywhere', () => {
    const text = `<urlset><url><loc>https://example.com/a</loc><lastmod> 2024-01-01T10:00:00+00:00 </lastmod></url>
      <url><lastmod>2025-02-03</lastmod><loc>https://example.com/b</loc></url>
      <url><loc>https://example.com/c</loc></url></urlset>`;
    const seen = (chunks: string[]): unknown[] => {
      const out: unknown[] = [];
      const parser = new SitemapParser({ onLoc: (url, kind, lastmod) => out.push([url, kind, lastmod]) });
      for (const c of chunks) parser.write(c);
      parser.end();
      return out;
    };
    const whole = seen([text]);
    assert.deepEqual(whole, [
      ['https://example.com/a', 'page', '2024-01-01T10:00:00+00:00'],
      ['https://example.com/b', 'page', '2025-02-03'],
      ['https://example.com/c', 'page', undefined],
    ]);
    for (let i = 1; i < text.length; i += 7) assert.deepEqual(seen([text.slice(0, i), text.slice(i)]), whole, `split at ${i}`);
    const index = seen(['<sitemapindex><sitemap><loc>https://example.com/s.xml</loc><lastmod>2024-05-05</lastmod></sitemap></sitemapindex>']);
    assert.deepEqual(index, [['https://example.com/s.xml', 'sitemap', '2024-05-05']]);
  });

  test('reads urlset and sitemapindex locs, namespaced or not, with whitespace and CDATA', () => {
    const urlset = `\uFEFF<?xml version="1.0" encoding="UTF-8"?>
      <urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">
        <url><loc>
          https://example.com/a
        </loc><lastmod>2024-01-01</lastmod></url>
        <url><loc><![CDATA[https://example.com/b?x=1&y=2]]></loc>
          <image:image><image:loc>https://cdn.example.com/i.png</image:loc></image:image></url>
        <url><loc>https://example.com/c?x=1&amp;y=2</loc></url>
      </urlset>`;
    assert.deepEqual(parse([urlset]).locs, [
      ['https://example.com/a', 'page'],
      ['https://example.com/b?x=1&y=2', 'page'],
      ['https://example.com/c?x=1&y=2', 'page'],
    ]);
    const index = '<sm:sitemapindex xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9"><sm:sitemap><sm:loc>https://example.com/s1.xml</sm:loc></sm:sitemap></sm:sitemapindex>';
    assert.deepEqual(parse([index]).locs, [['https://example.com/s1.xml', 'sitemap']]);
  });

  test('results do not depend on where chunks are cut', () => {
    assertChunkingInvariant('<urlset><url><loc>https://e.com/a?b=1&amp;c=2&d=3</loc></url><url><loc><![CDATA[https://e.com/?q=1&r=2]]></loc></url><url><loc>https://e.com/&#x41;</loc></url></urlset>');
  });

  test('escapes bare ampersands instead of swallowing the rest of the file', () => {
    const { locs } = parse(['<urlset><url><loc>https://e.com/?a=1&b=2</loc></url><url><loc>https://e.com/next</loc></url></urlset>']);
    assert.deepEqual(locs.map(([u]) => u), ['https://e.com/?a=1&b=2', 'https://e.com/next']);
  });

  test('keeps what parsed from malformed or truncated XML', () => {
    const truncated = parse(['<urlset><url><loc>https://e.com/1</loc></url><url><loc>https://e.com/2</loc></url><url><loc>https://e.com/3']);
    assert.deepEqual(truncated.locs.map(([u]) => u), ['https://e.com/1', 'https://e.com/2']);
    assert.ok(truncated.parser.errors > 0);
    const broken = parse(['<urlset><url><loc>https://e.com/1</loc></url><url><loc>https://e.com/2</lo', 'c></url></bogus><url <loc>x</loc></url><url><loc>https://e.com/4</loc></url></urlset>']);
    assert.ok(broken.locs.some(([u]) => u === 'https://e.com/1'));
    assert.ok(broken.locs.some(([u]) => u === 'https://e.com/2'));
    assert.ok(broken.parser.errors > 0);
  });

  test('reads plain-text sitemaps and gives up on junk', () => {
    assert.deepEqual(parse(['https://e.com/a\r\nhttps://e.com/', 'b\n\nhttps://e.com/c']).locs.map(([u]) => u), ['https://e.com/a', 'https://e.com/b', 'https://e.com/c']);
    const junk = parse(['<html><body>' + '<p>&bogus; <b</p>'.repeat(500) + '</body></html>']);
    assert.deepEqual(junk.locs, []);
    assert.equal(junk.parser.gaveUp, true);
  });

  test('drops an absurdly long loc', () => {
    const { locs } = parse([`<urlset><url><loc>https://e.com/${'x'.repeat(10_000)}</loc></url><url><loc>https://e.com/ok</loc></url></urlset>`]);
    assert.deepEqual(locs.map(([u]) => u), ['https://e.com/ok']);
  });
});
