// The PDF layout heuristics (services/transformer/src/documents/pdf-layout.ts), as pure
// functions over positioned text items: given items, when converted, then markdown.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  bodySize, dropFurniture, escapeInline, groupLines, headingLevels, intoColumns, needsOcr, pagesWithoutText, pdfPagesToMarkdown, tableAt, type PdfTextItem,
} from '../../../services/transformer/src/documents/pdf-layout.js';

/** A run of text: `w` defaults to a Helvetica-like 0.5 em per character. */
function t(text: string, x: number, y: number, size = 11, w?: number): PdfTextItem {
  return { text, x, y, fontSize: size, width: w ?? text.length * size * 0.5 };
}

/** Lines of body text from the top, one per 13.2 pt, at x = 72. */
function bodyLines(texts: string[], top = 700, size = 11): PdfTextItem[] {
  return texts.map((s, i) => t(s, 72, top - i * 13.2, size));
}

describe('PDF layout: lines and cells', () => {
  test('given items on one baseline with word gaps, then one line; a wide gap splits cells', () => {
    const [line] = groupLines({ items: [t('Region', 72, 600), t('Revenue', 200, 600), t('Growth', 330, 600)] });
    assert.equal(line!.text, 'Region Revenue Growth');
    assert.deepEqual(line!.cells.map((c) => c.text), ['Region', 'Revenue', 'Growth']);
    const [words] = groupLines({ items: [t('Hello', 72, 600), t('world', 72 + 27.5 + 3, 600)] });
    assert.equal(words!.text, 'Hello world');
    assert.equal(words!.cells.length, 1);
  });

  test('given whitespace-only items and a new baseline, then they are gaps and a new line', () => {
    const lines = groupLines({ items: [t('One', 72, 600), t(' ', 90, 600), t('Two', 72, 586)] });
    assert.deepEqual(lines.map((l) => l.text), ['One', 'Two']);
  });

  test('given most characters at 11 pt, then the body size is 11 and larger sizes rank as heading levels', () => {
    const lines = groupLines({ items: [t('Title', 72, 750, 24), t('Section', 72, 700, 16), ...bodyLines(['a long body line of text here', 'another long body line'], 680)] });
    const body = bodySize(lines);
    assert.equal(body, 11);
    assert.deepEqual([...headingLevels(lines, body)], [[24, 1], [16, 2]]);
  });
});

describe('PDF layout: blocks', () => {
  test('given a large line, wrapped body lines and a gap, then a heading and two paragraphs', () => {
    const md = pdfPagesToMarkdown([{ items: [
      t('Annual Results', 72, 740, 24),
      ...bodyLines(['Revenue grew in every region this year, led by the', 'northern offices.'], 700),
      ...bodyLines(['A second paragraph starts after a blank line.'], 700 - 13.2 * 3),
    ] }]);
    assert.equal(md, '# Annual Results\n\nRevenue grew in every region this year, led by the northern offices.\n\nA second paragraph starts after a blank line.');
  });

  test('given a word hyphenated at a line end, then it is rejoined', () => {
    const md = pdfPagesToMarkdown([{ items: bodyLines(['the conver-', 'sation went on']) }]);
    assert.equal(md, 'the conversation went on');
  });

  test('given bullet and numbered lines with a hanging continuation, then list items', () => {
    const md = pdfPagesToMarkdown([{ items: [
      t('• First item', 72, 700), t('• Second item that wraps', 72, 686.8), t('onto a second line', 82, 673.6),
      t('1. Step one', 72, 640), t('2. Step two', 72, 626.8),
    ] }]);
    assert.equal(md, '- First item\n- Second item that wraps onto a second line\n\n1. Step one\n2. Step two');
  });

  test('given rows whose cells line up under the first row, then a GFM table (right-aligned numbers too)', () => {
    const rows = [['Region', 'Revenue'], ['North', '1200'], ['South', '900']];
    const items = rows.flatMap((row, r) => [t(row[0]!, 72, 600 - r * 18), t(row[1]!, 200 + (r ? 10 : 0), 600 - r * 18)]);
    assert.equal(pdfPagesToMarkdown([{ items }]), '| Region | Revenue |\n| --- | --- |\n| North | 1200 |\n| South | 900 |');
  });

  test('given a row with a missing cell, then an empty cell in its column', () => {
    assert.deepEqual(intoColumns([{ x: 72, endX: 100, text: 'a' }, { x: 330, endX: 350, text: 'c' }], [72, 200, 330], 11), ['a', '', 'c']);
    assert.equal(intoColumns([{ x: 72, endX: 100, text: 'a' }, { x: 80, endX: 90, text: 'b' }], [72, 200], 11), undefined, 'two cells in one column');
  });

  test('given two columns of long prose side by side, then no table', () => {
    const prose = 'This is a long line of running text in a column';
    const lines = groupLines({ items: [0, 1, 2].flatMap((i) => [t(prose, 72, 700 - i * 13.2, 11, 230), t(prose, 320, 700 - i * 13.2, 11, 230)]) });
    assert.equal(tableAt(lines, 0), undefined);
  });

  test('given markdown characters in the text, then only those that would be syntax are escaped', () => {
    assert.equal(pdfPagesToMarkdown([{ items: [t('# not a heading *nor* _emphasis_', 72, 700)] }]), '\\# not a heading \\*nor\\* \\_emphasis\\_');
    assert.equal(escapeInline('XDG_DATA_HOME [MIME] a < b <MIME> [x](y)'), 'XDG_DATA_HOME [MIME] a < b \\<MIME> [x\\](y)');
  });

  test('given consecutive monospaced lines, then one fenced code block with its indentation', () => {
    const mono = (text: string, x: number, y: number): PdfTextItem => ({ ...t(text, x, y, 10, text.length * 6), mono: true });
    const md = pdfPagesToMarkdown([{ items: [
      ...bodyLines(['The syntax is:']), mono('BEGIN', 72, 680), mono('x ::= INTEGER', 84, 668), mono('END', 72, 656), ...bodyLines(['After the code.'], 630),
    ] }]);
    assert.equal(md, 'The syntax is:\n\n```\nBEGIN\n  x ::= INTEGER\nEND\n```\n\nAfter the code.');
  });

  test('given table-of-contents lines with dot leaders, then list items without leaders and page numbers', () => {
    const md = pdfPagesToMarkdown([{ items: [t('1 Introduction . . . . . . . 1', 72, 700, 12), ...bodyLines(['2.1 Syntax. . . . . . . . . . 2', '2.2 Naming . . . . . . . . . iv'], 686)] }]);
    assert.equal(md, '- 1 Introduction\n- 2.1 Syntax\n- 2.2 Naming');
  });
});

describe('PDF layout: page furniture and OCR', () => {
  test('given page numbers and a running head on every page, then they are dropped; a larger numbered heading stays', () => {
    const pages = [1, 2, 3].map((n) => groupLines({ items: [
      t('Acme Corp annual report', 72, 770, 9), t(`Chapter ${n}`, 72, 740, 20), ...bodyLines([`Body text of page ${n} goes here.`], 700), t(String(n), 300, 40, 9),
    ] }, n - 1));
    const kept = dropFurniture(pages).map((lines) => lines.map((l) => l.text));
    assert.deepEqual(kept, [1, 2, 3].map((n) => [`Chapter ${n}`, `Body text of page ${n} goes here.`]));
  });

  test('given pages with no text, or glyph codes that map to no character, then needsOcr', () => {
    assert.equal(needsOcr([{ items: [] }, { items: [t(' ', 72, 700)] }]), true);
    assert.equal(needsOcr([{ items: [t('\uE001\uE002\uE003'.repeat(20), 72, 700)] }]), true);
    assert.equal(needsOcr([{ items: bodyLines(['Plenty of readable text on this page.']) }]), false);
    assert.equal(needsOcr([]), false);
  });

  test('given a typed document with a scanned page, then not needsOcr but that page named', () => {
    const typed = { items: bodyLines(['Plenty of readable text on this page.']) };
    const pages = [typed, { items: [] }, typed];
    assert.equal(needsOcr(pages), false);
    assert.deepEqual(pagesWithoutText(pages), [2]);
  });
});
