// Link lines at the end of the content (tail-lines.ts, prune.ts trimTail) and one-item link
// lists (prune.ts): by structure and position, never by their words.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseDocument } from '../../../packages/extract/src/dom.js';
import { pruneBoilerplate } from '../../../packages/extract/src/prune.js';

/** The prune pass on a hand-made article body, as mainContent runs it on an article page; the text left. */
function pruned(body: string): string {
  const document = parseDocument(`<!DOCTYPE html><html><body><div class="entry"><h1>How the harbour ferry came back</h1>${body}</div></body></html>`);
  const root = document.body.firstElementChild!;
  pruneBoilerplate(root, { linkDensity: true, teaserRuns: true });
  return (root.textContent ?? '').replace(/\s+/g, ' ');
}

const PROSE = [
  'The harbour ferry stopped running in the winter of 2009, when the last of the old boats failed its inspection and the council had no money for a new one.',
  'A group of retired sailors raised the money for a second-hand boat over three years, with bake sales, a raffle and a long campaign in the local paper.',
  'The new ferry crosses the harbour every twenty minutes from six in the morning, and the sailors still take turns at the wheel on the quiet Sunday runs.',
].map((p) => `<p>${p}</p>`).join('');

describe('link lines at the end of the content', () => {
  test('a meta line with a link, a "next part" line and a footer row after the last paragraph go', () => {
    const md = pruned(`${PROSE}<p>News date : 04/21/2022 &nbsp; Category : <a href="/cat/10">Press Releases</a></p>`);
    assert.ok(!md.includes('Press Releases'), md);
    assert.ok(md.includes('quiet Sunday runs'), md);
    const next = pruned(`${PROSE}<p>... continue with "<a href="/part-2">the second crossing</a>"</p>`);
    assert.ok(!next.includes('the second crossing'), next);
    const footer = pruned(`${PROSE}<p><a href="/imprint">IMPRINT</a> | <a href="/privacy">PRIVACY POLICY</a> | COPYRIGHT HARBOUR FRIENDS</p>`);
    assert.ok(!footer.includes('IMPRINT') && !footer.includes('HARBOUR FRIENDS'), footer);
  });

  test('a closing line that is one whole link (the story the post points to) stays', () => {
    const md = pruned(`${PROSE}<p><a href="https://news.example/ferry-story">The ferry that a town refused to give up</a></p>`);
    assert.ok(md.includes('The ferry that a town refused to give up'), md);
  });

  test('a closing sentence with a link stays: a sentence is prose', () => {
    const md = pruned(`${PROSE}<p>The full timetable is on <a href="/timetable">the harbour site</a>.</p>`);
    assert.ok(md.includes('The full timetable is on the harbour site.'), md);
  });

  test('the same link line between paragraphs stays (position marks it, not shape)', () => {
    const md = pruned(`<p>Category : <a href="/cat/10">Press Releases</a> and boats</p>${PROSE}`);
    assert.ok(md.includes('Press Releases'), md);
  });
});

describe('one-item link lists inside the article', () => {
  test('a list of one item that is all link (a "see also" line) goes; the prose around it stays', () => {
    const [a, b, c] = PROSE.split('</p>');
    const md = pruned(`${a}</p>${b}</p><ul><li><a href="/timeline"><strong>The latest news about the ferry (free to read)</strong></a></li></ul>${c}</p>`);
    assert.ok(!md.includes('The latest news about the ferry'), md);
    for (const kept of ['stopped running', 'raised the money', 'every twenty minutes']) assert.ok(md.includes(kept), `"${kept}" was deleted:\n${md}`);
  });

  test('a list of one item with its own words beside a link stays', () => {
    const md = pruned(`${PROSE.replace('</p>', '</p><ul><li>Tickets cost two euros, see <a href="/fares">fares</a> for season passes</li></ul>')}`);
    assert.ok(md.includes('Tickets cost two euros'), md);
  });
});
