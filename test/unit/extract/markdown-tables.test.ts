import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import TurndownService from 'turndown';
import { tables } from '@joplin/turndown-plugin-gfm';
import { parseDocument } from '../../../packages/extract/src/dom.js';
import { gfmTables } from '../../../packages/extract/src/markdown-tables.js';

// gfmTables must write what the plugin's table rules write (it only reads each table once):
// the same tables through both, on linkedom documents as the transform parses them.
const TABLES: Record<string, string> = {
  'heading row in thead, aligned columns': `<table><thead><tr><th>Name</th><th align="right">Price</th><th style="text-align: center">Kind</th></tr></thead>
    <tbody><tr><td>Apple</td><td align="right">1.20</td><td align="left">fruit</td></tr><tr><td>Pear | green</td><td align="right">0.90</td><td>fruit</td></tr></tbody></table>`,
  'no heading row: an empty header with the columns\' majority alignment': `<table><tr><td align="center">a</td><td>b</td><td>c</td></tr><tr><td align="center">d</td><td align="right">e</td></tr><tr><td>f</td><td align="right">g</td><td>h</td></tr></table>`,
  'first row of th outside thead, a caption, colspan': `<table><caption>Totals by year</caption><tbody><tr><th>Year</th><th>Sum</th><th>Note</th></tr><tr><td colspan="2">2024</td><td>x</td></tr><tr><td>2025</td><td>3</td><td>multi<br>line</td></tr></tbody></table>`,
  'empty thead before the first tbody': `<table><thead></thead><tbody><tr><th>A</th><th>B</th></tr><tr><td>1</td><td>2</td></tr></tbody><tfoot><tr><td>t</td><td>u</td></tr></tfoot></table>`,
  'one cell: cells as paragraphs': `<table><tr><td>only cell</td></tr></table>`,
  'nested table: the outer one as paragraphs': `<table><tr><td>outer</td><td><table><tr><th>i</th><th>j</th></tr><tr><td>1</td><td>2</td></tr></table></td></tr></table>`,
  'a list in a cell: kept as HTML': `<table><tr><td><ul><li>one</li></ul></td><td>b</td></tr><tr><td>c</td><td>d</td></tr></table>`,
  'colgroup and rows of different lengths': `<table><colgroup><col><col></colgroup><tr><th>h1</th><th>h2</th></tr><tr><td>a</td></tr><tr><td>b</td><td>c</td><td>d</td></tr></table>`,
};

function converter(plugin: TurndownService.Plugin): TurndownService {
  const service = new TurndownService({ headingStyle: 'atx' });
  service.use(plugin);
  return service;
}

describe('markdown tables: the gfm plugin\'s markdown, each table read once', () => {
  const plugin = converter(tables);
  const ours = converter(gfmTables);
  for (const [name, table] of Object.entries(TABLES)) {
    test(name, () => {
      const html = `<!DOCTYPE html><html><body><p>Before.</p>${table}<p>After.</p></body></html>`;
      const expected = plugin.turndown(parseDocument(html).body as unknown as HTMLElement);
      const actual = ours.turndown(parseDocument(html).body as unknown as HTMLElement);
      assert.ok(expected.includes('After.'), expected);
      assert.equal(actual, expected);
    });
  }
});
