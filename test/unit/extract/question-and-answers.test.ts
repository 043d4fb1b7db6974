// A question-and-answer thread (forum.ts withOpeningPost): the engine builds the question
// unlike the answers and puts the answers in a block of their own, which holds most of the
// prose. The question stands before that block and keeps its place in the thread; a list of
// links before the answers (related questions) does not come along.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { normalizeScrapeOptions } from '../../../shared/src/domain/scrape-options.js';
import { extractPage } from '../../../packages/extract/src/index.js';

function run(html: string, url = 'https://qa.example.org/questions/12/which-wood-for-a-bench') {
  return extractPage({ html, url, options: normalizeScrapeOptions({ formats: ['markdown'], onlyMainContent: true }) });
}

const QUESTION = 'I have a small workshop and want to build a first bench. Which wood would you use for the top, and how thick should it be for planing on it without it moving?';
const ANSWERS = [
  'Beech is the classic choice for a bench top. Three inches thick is plenty, and laminated strips stay flatter than one wide board over the years, even in a damp shop.',
  'Construction lumber works too if you are on a budget. Let it dry in the shop for a few weeks before you glue up the top, and flatten it once it has settled.',
  'Whatever you choose, make the top heavy. A heavy bench does not walk across the floor when you plane, and mass matters more than the species of the wood.',
];

const byline = (i: number) => `<div class="user-info"><a href="/users/${i}/member${i}">member${i}</a> <span class="relativetime" title="2024-02-0${i + 1}">Feb ${i + 1}, 2024 at 7:20</span></div>`;

function page(beforeAnswers: string): string {
  const answers = ANSWERS.map((a, i) => `<div class="answer" id="answer-${i}"><div class="post-body"><p>${a}</p><p>${a}</p><p>${a}</p><p>${a}</p></div>${byline(i + 1)}</div>`).join('');
  return `<html><head><title>Which wood for a bench? - Woodworking Q&A</title><meta name="generator" content="Discourse"></head><body>
    <header><nav><a href="/questions">Questions</a> <a href="/tags">Tags</a></nav></header>
    <div id="content"><h1>Which wood for a bench?</h1>
      <div id="mainbar">${beforeAnswers}<div id="answers"><h2>3 Answers</h2>${answers}</div></div>
      <div id="sidebar"><h4>Hot questions</h4><ul><li><a href="/q/1">How to sharpen a plane?</a></li><li><a href="/q/2">Glue for oak?</a></li></ul></div>
    </div><footer>Site design / logo © Example</footer></body></html>`;
}

describe('a question-and-answer thread keeps its question', () => {
  test('given the question built unlike the answers, before the answers block, with its author and time, then the question and every answer are kept', () => {
    const out = run(page(`<div id="question" class="question"><div class="s-prose"><p>${QUESTION}</p><p>${QUESTION}</p></div>${byline(0)}</div>`));
    assert.equal(out.metadata.pageType, 'forum');
    const md = out.markdown!;
    assert.ok(md.includes(QUESTION), md);
    for (const a of ANSWERS) assert.ok(md.includes(a), md);
    assert.ok(md.indexOf(QUESTION) < md.indexOf(ANSWERS[0]!), md);
    assert.ok(!md.includes('How to sharpen a plane'), md);
  });

  test('given a list of related questions with authors and times before the answers (links, not prose), then it does not come along', () => {
    const related = `<div class="related">${[0, 1, 2].map((i) => `<div><a href="/q/${10 + i}">A related question about benches and tops number ${i} that someone asked here</a> ${byline(i)}</div>`).join('')}</div>`;
    const md = run(page(related)).markdown!;
    for (const a of ANSWERS) assert.ok(md.includes(a), md);
    assert.ok(!md.includes('A related question about benches'), md);
  });
});
