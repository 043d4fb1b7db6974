// The thread layout's posts (forum.ts): every post keeps its author line, its time and its
// body; the member's profile card, signature and reply buttons around it go. And where the
// rule must not fire: an article with a comment section, an article about forums, a thread index.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { normalizeScrapeOptions } from '../../../shared/src/domain/scrape-options.js';
import { extractPage } from '../../../packages/extract/src/index.js';
import { parseDocument } from '../../../packages/extract/src/dom.js';
import { findPosts } from '../../../packages/extract/src/forum.js';

function run(html: string, url = 'https://board.example.org/viewtopic.php?t=12') {
  return extractPage({ html, url, options: normalizeScrapeOptions({ formats: ['markdown'], onlyMainContent: true }) });
}

const BODIES = [
  'I have a small workshop and want to build a first bench. Which wood would you use for the top, and how thick should it be for planing on it?',
  'Beech is the classic choice. Three inches thick is plenty, and laminated strips stay flatter than one wide board over the years.',
  'Construction lumber works too if you are on a budget. Let it dry in the shop for a few weeks before you glue up the top.',
];

/** A phpBB-like thread: each post a profile card (name, rank, post count, join date), a byline with a time, the body, a signature and buttons. */
function thread(bodies: readonly string[] = BODIES, extraBody = ''): string {
  const post = (body: string, i: number): string => `
    <div class="post bg${(i % 2) + 1}" id="p${100 + i}">
      <dl class="postprofile"><dt><a class="username" href="/memberlist.php?mode=viewprofile&u=${i}">member${i}</a></dt>
        <dd>Rank: Regular visitor</dd><dd><strong>Posts:</strong> ${1000 + i * 37}</dd><dd><strong>Joined:</strong> Mar 2011</dd></dl>
      <div class="postbody">
        <ul class="post-buttons"><li><a href="/posting.php?mode=quote&p=${i}">Reply with quote</a></li></ul>
        <p class="author">by <a class="username" href="/memberlist.php?mode=viewprofile&u=${i}">member${i}</a> » <time datetime="2024-02-0${i + 1}">Feb ${i + 1}, 2024</time></p>
        <div class="content">${body}${i === 1 ? extraBody : ''}</div>
        <div id="sig${i}" class="signature">Signature line of member${i}: measure twice, cut once since 1987</div>
      </div>
    </div>`;
  return `<html><head><title>First bench - Woodworking board</title></head><body>
    <header><a href="/">Woodworking board</a><nav><a href="/search">Search</a> <a href="/register">Register</a></nav></header>
    <div id="page-body"><h1>First bench</h1>${bodies.map((b, i) => post(`<p>${b}</p>`, i)).join('')}</div>
    <footer>Powered by a board <a href="/faq">FAQ</a></footer></body></html>`;
}

describe('a forum thread keeps every post with its author line, without the forum chrome', () => {
  test('given a thread of three posts with profile cards and signatures, then every body, author and time is kept and the cards, signatures and buttons go', () => {
    const out = run(thread());
    assert.equal(out.metadata.pageType, 'forum');
    const md = out.markdown!;
    for (const body of BODIES) assert.ok(md.includes(body), md);
    for (let i = 0; i < 3; i++) {
      assert.match(md, new RegExp(`member${i}`), md);
      assert.match(md, new RegExp(`Feb ${i + 1}, 2024`), md);
      assert.ok(!md.includes(`Signature line of member${i}`), md);
      assert.ok(!md.includes(`${1000 + i * 37}`), md);
    }
    assert.ok(!md.includes('Reply with quote') && !md.includes('Regular visitor') && !md.includes('Joined'), md);
    // In page order, each author before the body of the post.
    assert.ok(md.indexOf('member0') < md.indexOf(BODIES[0]!) && md.indexOf(BODIES[0]!) < md.indexOf('member1') && md.indexOf('member1') < md.indexOf(BODIES[1]!), md);
  });

  test('given a reply that mentions a member in a sentence and quotes another post, then the whole reply is kept', () => {
    const extra =
      '<p>As <a href="/memberlist.php?mode=viewprofile&u=0">member0</a> said above, the thickness matters more than the species for a bench of this kind.</p>' +
      '<blockquote><cite><a href="/memberlist.php?mode=viewprofile&u=0">member0</a> wrote:</cite>Which wood would you use for the top of it all</blockquote>';
    const md = run(thread(BODIES, extra)).markdown!;
    assert.match(md, /the thickness matters more than the species/, md);
    assert.match(md, /Which wood would you use for the top of it all/, md);
    assert.ok(md.includes(BODIES[1]!), md);
  });
});

describe('the thread is cut to its posts by position', () => {
  test('given an app banner above the heading and a reply form, a "similar threads" list and a sidebar widget after the last post, then they go and every post stays', () => {
    const banner = '<div class="app-banner"><p>View in the app</p><ol><li>Tap the Share icon</li><li>Tap Add to Home Screen to install this app</li></ol></div>';
    const similar =
      '<div class="similar"><h3>Similar threads</h3><ul>' +
      [0, 1, 2].map((i) => `<li><a href="/viewtopic.php?t=${90 + i}">Other topic ${i} on benches</a> by <a class="username" href="/memberlist.php?u=${i}">someone${i}</a></li>`).join('') +
      '</ul></div><form class="reply"><p>Reply to this topic: be kind and stay on the subject of the thread</p></form>' +
      '<div class="widget"><h3>Top questions about benches</h3><ul><li>Where can I find more vices for a small shop?</li><li>Which glue for a laminated top?</li></ul></div>';
    const html = thread().replace('<div id="page-body"><h1>First bench</h1>', `<div id="page-body">${banner}<h1>First bench</h1>`).replace('</div>\n    <footer>', `${similar}</div>\n    <footer>`);
    assert.ok(html.includes('Top questions') && html.includes('View in the app'));
    const md = run(html).markdown!;
    for (const body of BODIES) assert.ok(md.includes(body), md);
    for (const gone of ['View in the app', 'Add to Home Screen', 'Similar threads', 'Reply to this topic', 'Top questions', 'Which glue']) assert.ok(!md.includes(gone), `${gone}\n${md}`);
  });

  test('given a last reply in the posts\' wrapper whose time line has no mark, then it is kept with the posts', () => {
    const late = 'A late reply: I built mine from an old door and it has served for ten years without a single complaint.';
    const wrapped = (inner: string): string => `<div class="postwrap">${inner}</div>`;
    const html = thread()
      .replace(/(<div class="post bg[\s\S]*?<\/div>\s*<\/div>\s*<\/div>)/g, (m) => wrapped(m))
      .replace('</div>\n    <footer>', `${wrapped(`<div class="late"><span>Feb 9, 2024</span><p>${late}</p></div>`)}<div class="pagination"><a href="?page=2">Next page</a></div></div>\n    <footer>`);
    const md = run(html).markdown!;
    assert.ok(md.includes(late), md);
    for (const body of BODIES) assert.ok(md.includes(body), md);
  });
});

describe('a thread whose posts are not found', () => {
  test('given a login prompt and a breadcrumb above the thread\'s heading and posts without author marks, then the prompt goes and the posts stay', () => {
    const html = `<html><body><div id="page"><div class="prompt"><p>Please create an account or log in to access all these features of the board</p><p>Talk › Workshop</p></div>
      <h1>First bench</h1>${BODIES.map((b) => `<div class="msg"><p>${b}</p></div>`).join('')}</div></body></html>`;
    const md = run(html).markdown!;
    for (const body of BODIES) assert.ok(md.includes(body), md);
    assert.ok(!md.includes('Please create an account'), md);
  });
});

describe('a post whose body is unlike the others', () => {
  test('given a thread where one post holds its text in another element than the rest, then that post is kept whole', () => {
    const odd = 'This reply was written in the old editor, whose text sits in a plain block that the other replies do not have at all.';
    const html = thread().replace(
      /<div class="content"><p>Beech is the classic choice[^<]*<\/p><\/div>/,
      `<blockquote class="legacy">${odd}</blockquote>`,
    );
    assert.ok(html.includes(odd));
    const md = run(html).markdown!;
    assert.ok(md.includes(odd), md);
    assert.ok(md.includes(BODIES[0]!) && md.includes(BODIES[2]!), md);
  });
});

describe('a question-and-answer page', () => {
  const ANSWERS = [
    'How do I make the terminal keep its colours when I run the shell inside the new window manager on this machine?',
    'Set the TERM variable to xterm-256color in your profile, then open a new window: the colours come back at once.',
    'Another way is to start the shell through the bundled wrapper, which sets the variable for you on every launch.',
  ];
  /** Question and answers alike: a user card (name, reputation), a time, the body and a few short comments by others. */
  const page = (): string => {
    const post = (body: string, i: number): string => `
      <div class="${i === 0 ? 'question' : 'answer'}"><div class="post-layout">
        <div class="s-prose">${body}</div>
        <div class="user-info"><span class="relativetime">asked Aug ${i + 1}, 2016</span>
          <a href="/users/${i}/author${i}">author${i}</a><span class="reputation">${9000 + i} gold badges</span></div>
        <ul class="comments">${[0, 1]
          .map((c) => `<li class="comment"><span class="comment-copy">Thanks, that worked ${i}-${c}</span> – <a class="comment-user" href="/users/${50 + c}/other${c}">other${c}</a> <span class="comment-date">Aug ${c + 2}</span></li>`)
          .join('')}</ul>
      </div></div>`;
    return `<html><body itemscope itemtype="https://schema.org/QAPage"><header><a href="/">Q&amp;A site</a></header>
      <div id="mainbar"><h1>Terminal colours</h1>${ANSWERS.map((a, i) => post(`<p>${a}</p>`, i)).join('')}</div></body></html>`;
  };

  test('given a page marked QAPage in microdata whose question and answers each hold comments, then it is a thread and every answer is kept without the user cards', () => {
    const out = run(page(), 'https://qa.example.com/q/1110045/terminal-colours');
    assert.equal(out.metadata.pageType, 'forum');
    const md = out.markdown!;
    for (const a of ANSWERS) assert.ok(md.includes(a), md);
    assert.ok(!md.includes('gold badges'), md);
  });
});

describe('where the posts rule must not fire', () => {
  const paragraph = (i: number): string =>
    `<p>Paragraph ${i} of the article on online forums: the old bulletin boards kept every post, each with its author and a date, long before social networks took the conversation elsewhere.</p>`;

  test('given an article with a comment section, then the article is the content and its comments stay out', () => {
    const comments = [0, 1, 2]
      .map((i) => `<div class="comment"><a class="username" href="/users/reader${i}">reader${i}</a><time>May ${i + 1}</time><p>Nice piece number ${i}, thank you for writing it.</p></div>`)
      .join('');
    const out = run(
      `<html><head><meta property="og:type" content="article"><title>Forums then and now</title></head><body><article><h1>Forums then and now</h1>${[0, 1, 2, 3, 4].map(paragraph).join('')}</article><section id="comments">${comments}</section></body></html>`,
      'https://news.example.com/2024/05/bulletin-boards',
    );
    assert.equal(out.metadata.pageType, 'article');
    assert.match(out.markdown!, /Paragraph 4 of the article/);
  });

  test('given an article about forums (the words, no run of posts), then no posts are found', () => {
    const doc = parseDocument(`<html><body><article><h1>Forums</h1><p class="byline">By <a rel="author" href="/authors/ann">Ann</a> <time>May 1</time></p>${[0, 1, 2, 3].map(paragraph).join('')}</article></body></html>`);
    assert.equal(findPosts(doc.body), undefined);
  });

  test('given a thread index (rows of topic links, each with its starter and a time), then no posts are found', () => {
    const rows = Array.from(
      { length: 12 },
      (_, i) => `<li class="topic"><a class="title" href="/viewtopic.php?t=${i}">Topic number ${i} about benches and vices</a> <span class="starter">by <a class="username" href="/memberlist.php?u=${i}">user${i}</a></span> <time>Feb ${i + 1}</time></li>`,
    ).join('');
    const doc = parseDocument(`<html><body><h1>Woodworking</h1><ul class="topics">${rows}</ul></body></html>`);
    assert.equal(findPosts(doc.body), undefined);
  });
});
