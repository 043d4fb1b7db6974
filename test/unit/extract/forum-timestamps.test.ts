// A thread whose engine writes each post's time as plain text (older phpBB: "by ann » Tue Aug
// 27, 2019 1:47 am", no <time>, no class naming a date): on a page typed a forum, short lines
// with a year and a clock time stand for the time marks, so the posts are found and lose their
// profile cards and signatures. Where it must not fire: the page-type detection does not use it.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { normalizeScrapeOptions } from '../../../shared/src/domain/scrape-options.js';
import { extractPage } from '../../../packages/extract/src/index.js';
import { parseDocument } from '../../../packages/extract/src/dom.js';
import { findPosts } from '../../../packages/extract/src/forum.js';
import { holdsTimestamp } from '../../../packages/extract/src/timestamps.js';

const BODIES = [
  'The new season starts this weekend, and the league added four clubs. Who do you think goes down, and who surprises everyone this year?',
  'My club lost its two best players over the summer, so a quiet mid-table finish would already make me happy this time round.',
  'Please add the lower division tables to the opening post as well, many of us follow the second tier more closely than the first.',
];

function oldBoard(): string {
  const post = (body: string, i: number): string => `
    <div id="p${100 + i}" class="post bg${(i % 2) + 1}"><div class="inner">
      <dl class="postprofile"><dt><a href="./memberlist.php?mode=viewprofile&amp;u=${i}">member${i}</a></dt>
        <dd>Senator</dd><dd><strong>Posts:</strong> ${4000 + i * 13}</dd><dd><strong>Founded:</strong> Dec 11, 2021</dd></dl>
      <div class="postbody">
        <ul class="profile-icons"><li><a href="./posting.php?mode=quote&amp;p=${i}">Reply with quote</a></li></ul>
        <p class="author">by <strong><a href="./memberlist.php?mode=viewprofile&amp;u=${i}">member${i}</a></strong> &raquo; Tue Aug 2${i}, 2019 1:4${i} am</p>
        <div class="content">${body}</div>
        <div id="sig${i}" class="signature">Signature of member${i}: supporter of the local club since the old stadium</div>
      </div></div></div>`;
  return `<html><head><title>Football season - Board</title></head><body>
    <div id="wrap"><h2>Football season</h2>${BODIES.map(post).join('')}</div></body></html>`;
}

describe('a thread with plain-text post times keeps every post without its profile card and signature', () => {
  test('given a board whose posts write their time as text, then each post keeps its author, time and body, and the cards and signatures go', () => {
    const out = extractPage({ html: oldBoard(), url: 'https://forum.example.net/viewtopic.php?f=20&t=487157', options: normalizeScrapeOptions({ formats: ['markdown'], onlyMainContent: true }) });
    const md = out.markdown!;
    assert.equal(out.metadata.pageType, 'forum');
    for (const [i, body] of BODIES.entries()) {
      assert.ok(md.includes(body), md);
      assert.ok(md.includes(`Tue Aug 2${i}, 2019 1:4${i} am`), md);
      assert.ok(!md.includes(`Signature of member${i}`), md);
      assert.ok(!md.includes(`${4000 + i * 13}`), md);
    }
    assert.ok(!md.includes('Reply with quote') && !md.includes('Founded'), md);
  });

  test('given the same board, then the page-type detection (no timestamp lines) finds no posts, and the thread layout does', () => {
    assert.equal(findPosts(parseDocument(oldBoard()).body), undefined);
    assert.equal(findPosts(parseDocument(oldBoard()).body, { timestampLines: true })?.posts.length, 3);
  });
});

describe('a timestamp line holds a year and a clock time', () => {
  test('given dates with and without a clock time, then only those with both count', () => {
    assert.ok(holdsTimestamp('by ann » Tue Aug 27, 2019 1:47 am'));
    assert.ok(holdsTimestamp('03-14-2021, 09:12 PM'));
    assert.ok(!holdsTimestamp('Joined: Mar 2011'));
    assert.ok(!holdsTimestamp('Posts: 4032'));
    assert.ok(!holdsTimestamp('Meet at 10:30 in the hall'));
  });
});
