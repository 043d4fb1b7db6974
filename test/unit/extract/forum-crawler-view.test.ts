// A thread served as a script app whose crawler view sits in <noscript> (Discourse and its
// kin): the revealed page is a thread too, so it keeps every post with its author line and
// its whole body (lists included), as a thread served in plain HTML does.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { normalizeScrapeOptions } from '../../../shared/src/domain/scrape-options.js';
import { extractPage } from '../../../packages/extract/src/index.js';

const POSTS = [
  { author: 'amondale', time: 'November 8, 2024, 7:33pm', body: '<p>I am back to containers after some years away, and the resolver puzzles me. Could someone explain a few things?</p><ol><li>Why does resolv.conf point at a private address inside the container?</li><li>Why can one container not resolve the other by name?</li></ol><p>Thanks, any help appreciated!</p>' },
  { author: 'rimelek', time: 'November 8, 2024, 8:42pm', body: '<ol><li>It depends on the network: the host network and the default bridge mount the host resolver file.</li><li>Name resolution between containers works on user-defined networks only, which compose creates for each project.</li></ol>' },
  { author: 'meyay', time: 'November 8, 2024, 9:42pm', body: '<p>What was said above! User-defined networks are made with one command, and containers join one or more of them when they start.</p>' },
];

function crawlerView(): string {
  const post = (p: (typeof POSTS)[number], i: number): string => `
    <div id="post_${i + 1}" class="topic-body crawler-post">
      <div class="crawler-post-meta">
        <span class="creator" itemprop="author"><a href="https://forums.example.com/u/${p.author}"><span>${p.author}</span></a></span>
        <span class="crawler-post-infos"><time datetime="2024-11-08T19:33:12Z" class="post-time">${p.time}</time></span>
      </div>
      <div class="post" itemprop="text">${p.body}</div>
    </div>`;
  return `<html><head><title>Confusing resolver structure - Example Forums</title>
    <meta name="generator" content="Discourse 3.4"></head><body>
    <section id="main"></section>
    <noscript data-path="/t/confusing-resolver-structure/144854">
      <header><a href="/">Example Forums</a></header>
      <div id="main-outlet"><h1>Confusing resolver structure</h1>${POSTS.map(post).join('')}</div>
      <footer><a href="/privacy">Privacy</a> <a href="/tos">Terms</a></footer>
    </noscript></body></html>`;
}

describe('a thread whose posts are in the crawler view (<noscript>) keeps its thread layout', () => {
  test('given a script-built thread with its posts in <noscript>, then every post keeps its author, its time and its lists', () => {
    const out = extractPage({ html: crawlerView(), url: 'https://forums.example.com/t/confusing-resolver-structure/144854', options: normalizeScrapeOptions({ formats: ['markdown'], onlyMainContent: true }) });
    const md = out.markdown!;
    assert.equal(out.metadata.pageType, 'forum');
    for (const p of POSTS) {
      assert.ok(md.includes(p.author), `${p.author} missing:\n${md}`);
      assert.ok(md.includes(p.time), `${p.time} missing:\n${md}`);
    }
    assert.ok(md.includes('Why can one container not resolve the other by name?'), md);
    assert.ok(md.includes('Name resolution between containers works on user-defined networks only'), md);
    assert.ok(md.includes('Thanks, any help appreciated!'), md);
    assert.ok(!md.includes('Privacy') && !md.includes('Terms'), md);
    // In page order: each author before the body of the post.
    assert.ok(md.indexOf('amondale') < md.indexOf('resolver puzzles me') && md.indexOf('rimelek') < md.indexOf('It depends on the network'), md);
  });
});
