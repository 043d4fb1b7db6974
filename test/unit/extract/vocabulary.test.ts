// Articles about the words of boilerplate: cookies, CAPTCHAs, dates, newsletters, comments,
// credits, disclaimers. Words alone never delete text inside the article (prune.ts reads
// them only on a block that structure or position has marked), so every line of these
// pages survives onlyMainContent, short lines and list items included.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { normalizeScrapeOptions } from '../../../shared/src/domain/scrape-options.js';
import { extractPage } from '../../../packages/extract/src/index.js';

function markdown(title: string, body: string): string {
  const html = `<!DOCTYPE html><html lang="en"><head><title>${title} | Example Blog</title></head><body>
    <header><nav><a href="/">Home</a> <a href="/about">About</a></nav></header>
    <main><article><h1>${title}</h1><div class="post-body">${body}</div></article></main>
    <footer><p>© Example Blog</p></footer></body></html>`;
  return extractPage({ html, url: 'https://blog.example.com/post', options: normalizeScrapeOptions({ formats: ['markdown'] }) }).markdown!;
}

/** Long enough paragraphs around the lines under test, so the page reads as an article. */
const FILLER = [
  'Every modern browser ships with a storage layer that web pages use for sessions, preferences and caches, and most users never look at it.',
  'The rules that govern it were written over two decades, by several standards bodies, and they do not always agree with each other.',
  'What follows is a practical tour, with examples from real sites and the settings that matter most for people who care about privacy.',
];

function article(lines: readonly string[]): string {
  return `<p>${FILLER[0]}</p>${lines.join('')}<p>${FILLER[1]}</p><p>${FILLER[2]}</p>`;
}

function assertKept(md: string, texts: readonly string[]): void {
  for (const text of texts) assert.ok(md.includes(text), `"${text}" was deleted:\n${md}`);
}

describe('articles about boilerplate words keep their text', () => {
  test('an article about cookies keeps its short lines and its list item about cookie banners', () => {
    const md = markdown('How browsers store cookies', article([
      '<p>Cookies are small text files.</p>',
      '<ul><li>Session storage lasts one tab.</li><li>Cookie banners ask before any tracking starts.</li><li>Local storage survives restarts.</li></ul>',
      '<p>A cookie set by another domain is a third-party cookie.</p>',
    ]));
    assertKept(md, ['Cookies are small text files.', 'Cookie banners ask before any tracking starts.', 'third-party cookie']);
  });

  test('a recipe keeps "bake the cookies"', () => {
    const md = markdown('Brown butter cookies', article(['<p>Bake the cookies for twelve minutes.</p>', '<p>Let the cookies cool on the tray.</p>']));
    assertKept(md, ['Bake the cookies for twelve minutes.', 'Let the cookies cool on the tray.']);
  });

  test('an article about CAPTCHAs and consent keeps the sentences that quote them', () => {
    const md = markdown('Why CAPTCHAs keep getting harder', article([
      '<p>"Please verify you are human."</p>',
      '<p>We respect your privacy, the prompt says, but no consent is asked.</p>',
    ]));
    assertKept(md, ['Please verify you are human.', 'no consent is asked']);
  });

  test('a timeline keeps its date lines', () => {
    const md = markdown('A short history of the bridge', article([
      '<p>12 March 2021</p><p>The council votes for the crossing.</p>',
      '<p>Updated: 3 May 2022</p><p>The first pillar is set.</p>',
    ]));
    assertKept(md, ['12 March 2021', 'Updated: 3 May 2022', 'The first pillar is set.']);
  });

  test('an article about newsletters keeps its advice to subscribe and sign up', () => {
    const md = markdown('Fewer, better newsletters', article([
      '<p>Subscribe only to newsletters you read in full.</p>',
      '<p>Sign up with an address you keep for mail lists.</p>',
      '<p>Read more than the subject line before you unsubscribe.</p>',
    ]));
    assertKept(md, ['Subscribe only to newsletters you read in full.', 'Sign up with an address', 'Read more than the subject line']);
  });

  test('a style guide keeps its "Comments" section and the credits it quotes', () => {
    const md = markdown('Writing code for the next reader', article([
      '<h2>Comments</h2><p>Say why, not what: the code already says what.</p>',
      '<p>Source: the team style guide, second edition.</p>',
      '<p>The views expressed in a comment should be the team\'s, not one person\'s.</p>',
    ]));
    assertKept(md, ['## Comments', 'Say why, not what', 'Source: the team style guide', 'The views expressed in a comment']);
  });

  test('an article about affiliate marketing keeps its sentences about commissions and bylines', () => {
    const md = markdown('How affiliate links pay for blogs', [
      '<p>Bloggers earn a commission when a reader buys through affiliate links, and most say so at the top of each post.</p>',
      '<p>We earn a commission too.</p>',
      `<p>${FILLER[1]}</p>`,
      '<p>Written by hand, the first disclosures were short.</p>',
      `<p>${FILLER[2]}</p>`,
    ].join(''));
    assertKept(md, ['Bloggers earn a commission', 'We earn a commission too.', 'Written by hand, the first disclosures were short.']);
  });

  test('a review whose closing section\'s heading mentions a subscription keeps that section', () => {
    const md = markdown('Audiobook services compared', [
      ...FILLER.map((p) => `<p>${p}</p>`),
      '<p>Eleven services were tried for a month each, on the same phone, with the same three books where the catalogue had them.</p>',
      '<p>Prices ranged from a few euros for a small catalogue to more than fifteen for the largest, and most charged by credit, not by hour.</p>',
      '<p>The apps differed more than the catalogues: sleep timers, speed control and offline downloads were where they won or lost.</p>',
      '<h2>Which Is The Best Audiobook Subscription Service?</h2>',
      '<p>After a month with each of them, the largest library is worth its price for most listeners.</p>',
      '<p>Most services offer a trial month, so the choice can wait until you have tried two.</p>',
    ].join(''));
    assertKept(md, ['## Which Is The Best Audiobook Subscription Service?', 'the largest library is worth its price', 'Most services offer a trial month']);
  });
});
