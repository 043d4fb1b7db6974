// Teaser runs (teasers.ts, prune.ts): the "more stories" cards a template puts under an
// article inside its own container go, by structure (like cards, each headed by a link) and
// position (after the prose); cards that are the page's content or part of the prose stay.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseDocument } from '../../../packages/extract/src/dom.js';
import { pruneBoilerplate } from '../../../packages/extract/src/prune.js';

/** The prune pass on a hand-made article body, as mainContent runs it on an article page; the text left. */
function pruned(body: string, teaserRuns = true): string {
  const document = parseDocument(`<!DOCTYPE html><html><body><div class="post__content"><h1>How the valley vineyards came back</h1>${body}</div></body></html>`);
  const root = document.body.firstElementChild!;
  pruneBoilerplate(root, { linkDensity: true, teaserRuns });
  return (root.textContent ?? '').replace(/\s+/g, ' ');
}

/** Eight paragraphs of prose (over 1,000 characters): an article. */
const PROSE = [
  'The valley lost most of its vines to frost in the spring of 1987, and for a decade the slopes were left to grass and sheep.',
  'A cooperative of eleven families bought the terraces back in 1998, replanted them with old local varieties and rebuilt the stone walls by hand.',
  'Their first vintage was small and sold only in the village, but a regional fair gave it a prize and buyers from the cities began to call.',
  'Today the cooperative farms ninety hectares, employs forty people through the harvest and exports a third of its wine to neighbouring countries.',
  'The families still share one press house, and every member takes a turn at the night shift when the grapes come in during the autumn weeks.',
  'Young growers from other valleys now visit each winter to learn how the walls were rebuilt and how the old varieties were brought back to life.',
  'The next test for the cooperative is the climate: the harvest now starts three weeks earlier than it did when the first vines were replanted.',
  'Some families have begun to plant higher on the slopes, where the nights are cooler, and the council has promised water for the new terraces.',
].map((p) => `<p>${p}</p>`).join('');

function card(n: number, headline: string, blurb: string): string {
  return `<div class="slide"><div class="teaser"><a href="/story-${n}"><img src="/img/${n}.jpg" alt=""></a>
    <div class="kicker">News</div><h3 class="title"><a href="/story-${n}">${headline}</a></h3>
    <p>${blurb}</p></div></div>`;
}

const CARDS = [
  card(1, 'Ten wineries to visit this autumn', 'Our editors picked the cellars that open their doors to visitors during the harvest weeks this year.'),
  card(2, 'The sheep that keep the slopes clean', 'Grazing between the rows saves mowing and fuel, and the growers say the soil is better for it too.'),
  card(3, 'A night at the press house', 'We spent a harvest night with the growers to see how the grapes are pressed before the sun comes up.'),
  card(4, 'Stone walls, built by hand', 'How a dry stone wall is built, and why the terraces of the valley would slide without them after rain.'),
  card(5, 'The cellar cats of the valley', 'Every press house keeps a cat or two, and the growers swear the mice would take the corks without them.'),
  card(6, 'What the frost of 1987 left', 'Photographs from the spring the vines died, lent to us by the families who stayed in the valley after it.'),
].join('');

describe('teaser runs after the article', () => {
  test('a run of like cards with linked headlines after the prose goes, with its heading', () => {
    const page = `${PROSE}<div class="block panel"><h2 class="heading">More on this</h2><div class="slider">${CARDS}</div></div>`;
    assert.ok(pruned(page, false).includes('A night at the press house'), 'the option is what removes them');
    const md = pruned(page);
    assert.ok(md.includes('press house'), md);
    assert.ok(md.includes('brought back to life'), md);
    for (const gone of ['Ten wineries to visit', 'Our editors picked', 'A night at the press house', 'Stone walls, built by hand', 'The cellar cats', 'What the frost of 1987 left', 'More on this']) {
      assert.ok(!md.includes(gone), `"${gone}" was kept:\n${md}`);
    }
  });

  test('the same cards between paragraphs of the prose stay (position, not shape, marks a teaser run)', () => {
    const md = pruned(`${PROSE}<div class="slider">${CARDS}</div>${PROSE.replace(/valley/g, 'region')}`);
    for (const kept of ['Ten wineries to visit', 'Grazing between the rows', 'A night at the press house', 'Stone walls, built by hand', 'The cellar cats']) assert.ok(md.includes(kept), `"${kept}" was deleted:\n${md}`);
  });

  test('steps whose headings are not links stay after the prose (a how-to, a FAQ)', () => {
    const steps = [1, 2, 3, 4].map((n) => `<div class="step"><h3>Step ${n}: prune the vine</h3><p>Cut back the cane to two buds, and keep the strongest shoot of the year for step ${n}.</p></div>`).join('');
    const md = pruned(`${PROSE}${steps}`);
    for (const n of [1, 2, 3, 4]) assert.ok(md.includes(`Step ${n}: prune the vine`), md);
  });

  test('an article about related posts and "more stories" boxes keeps its text', () => {
    const about = [
      '<p>Related posts are the boxes of links under an article.</p>',
      '<h2>More stories</h2><p>Editors call the box "more stories", and readers click it more than any other link on the page, by far.</p>',
      '<ul><li>Read more links</li><li>Related articles</li><li>Most read lists</li></ul>',
    ].join('');
    const md = pruned(`${PROSE}${about}${PROSE.replace(/valley/g, 'site')}`);
    for (const kept of ['Related posts are the boxes of links', 'Editors call the box', 'Read more links', 'Related articles', 'Most read lists']) {
      assert.ok(md.includes(kept), `"${kept}" was deleted:\n${md}`);
    }
  });

  test('a short intro over a run of cards keeps the cards (an index page, not an article)', () => {
    const md = pruned(`<p>Everything we wrote about the valley and its wine, newest first.</p><div class="slider">${CARDS}</div>`);
    for (const kept of ['Ten wineries to visit', 'A night at the press house', 'Stone walls, built by hand', 'The cellar cats', 'What the frost of 1987 left']) {
      assert.ok(md.includes(kept), `"${kept}" was deleted:\n${md}`);
    }
  });
});
