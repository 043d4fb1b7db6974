// GFM tables for turndown: the table rules of @joplin/turndown-plugin-gfm, giving the same
// markdown, with what they read about a table taken once per table. The plugin asks, per
// cell, for the cell's index in its row's childNodes, and per heading cell for every row's
// childNodes and alignment; on linkedom each childNodes read builds a new array (and `rows`
// is our getter, dom.ts), so a table of r rows and c columns cost O(r·c²) arrays, the
// plugin's rules about 15% of a crawl page's transform. Here each row's children, each
// column's alignment and the table's facts are read once, in the order the plugin reads them,
// so a cell that would make the plugin throw makes this throw too (the transform's plain-text
// fallback then runs alike). The tree is not changed while turndown converts it, so the
// memos stay true for the whole conversion (they are per converted clone: WeakMaps).
import type TurndownService from 'turndown';

type TNode = TurndownService.Node;
type Options = TurndownService.Options & { preserveNestedTables?: boolean };

const ALIGN_BORDERS: Record<string, string> = { left: ':---', right: '---:', center: ':---:' };
/** Elements that make the plugin keep a table as HTML (markdown.ts flattens such tables first). */
const HTML_TABLE_TAGS = ['UL', 'OL', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6', 'HR', 'BLOCKQUOTE'];

/** nodeName as turndown's filters read it, lower-cased, remembered per localName (linkedom builds nodeName anew per read). */
const lowerNames = new Map<string, string>();
export function lowerName(node: TNode): string {
  const local = (node as Element).localName;
  let lower = lowerNames.get(local);
  if (lower === undefined) lowerNames.set(local, (lower = node.nodeName.toLowerCase()));
  return lower;
}

/** turndown's string or array filter (`names` holds nodeName.toLowerCase()) as a function on the memo. */
export const nameFilter =
  (...names: string[]) =>
  (node: TNode): boolean =>
    node.nodeType === 1 ? names.includes(lowerName(node)) : names.includes(node.nodeName.toLowerCase());

interface TableFacts {
  rows: TNode[];
  colCount?: number;
  alignments: Map<number, string>;
}

const childLists = new WeakMap<Node, ChildNode[]>();
const childIndexes = new WeakMap<Node, Map<Node, number>>();
const skipped = new WeakMap<object, boolean>();
const facts = new WeakMap<Node, TableFacts>();

function childList(node: Node): ChildNode[] {
  let list = childLists.get(node);
  if (!list) childLists.set(node, (list = [...node.childNodes]));
  return list;
}

/** Array.prototype.indexOf of node in its parent's childNodes. */
function childIndex(node: Node): number {
  const parent = node.parentNode!;
  let indexes = childIndexes.get(parent);
  if (!indexes) {
    indexes = new Map();
    const list = childList(parent);
    for (let i = list.length - 1; i >= 0; i--) indexes.set(list[i]!, i);
    childIndexes.set(parent, indexes);
  }
  return indexes.get(node) ?? -1;
}

function tableFacts(table: TNode): TableFacts {
  let f = facts.get(table);
  if (!f) facts.set(table, (f = { rows: (table as unknown as { rows: TNode[] }).rows, alignments: new Map() }));
  return f;
}

function alignmentOf(node: TNode | undefined): string {
  return node ? ((node as Element).getAttribute('align') || (node as unknown as HTMLElement).style.textAlign || '').toLowerCase() : '';
}

function border(alignment: string): string {
  return alignment ? ALIGN_BORDERS[alignment]! : '---';
}

/** The alignment most cells of the column have (the first to lead wins a tie). */
function columnAlignment(table: TNode, column: number): string {
  const f = tableFacts(table);
  let align = f.alignments.get(column);
  if (align !== undefined) return align;
  const votes: Record<string, number> = { left: 0, right: 0, center: 0, '': 0 };
  align = '';
  for (const row of f.rows) {
    const cells = childList(row);
    if (column < cells.length) {
      const cellAlignment = alignmentOf(cells[column] as TNode);
      ++votes[cellAlignment]!;
      if (votes[cellAlignment]! > votes[align]!) align = cellAlignment;
    }
  }
  f.alignments.set(column, align);
  return align;
}

function colCount(table: TNode): number {
  const f = tableFacts(table);
  if (f.colCount === undefined) {
    let max = 0;
    for (const row of f.rows) max = Math.max(max, childList(row).length);
    f.colCount = max;
  }
  return f.colCount;
}

function cell(content: string, node: TNode | null, index?: number): string {
  const i = index ?? childIndex(node!);
  let text = content.trim().replace(/\n\r/g, '<br>').replace(/\n/g, '<br>').replace(/\|+/g, '\\|');
  while (text.length < 3) text += ' ';
  if (node) {
    const colspan = (node as Element).getAttribute('colspan') || 1;
    for (let k = 1; k < (colspan as number); k++) text += ' | ' + '   ';
  }
  return (i === 0 ? '| ' : ' ') + text + ' |';
}

/** Whether some node under `node` (not node itself) passes `test`. */
function someDescendant(node: Node, test: (n: Node) => boolean): boolean {
  for (let child = node.firstChild; child; child = child.nextSibling) {
    if (test(child) || someDescendant(child, test)) return true;
  }
  return false;
}

function parentTable(node: Node): TNode | null {
  let parent = node.parentNode!;
  while (parent.nodeName !== 'TABLE') {
    parent = parent.parentNode!;
    if (!parent) return null;
  }
  return parent as unknown as TNode;
}

function parentDiv(node: Node): Element | null {
  let parent = node.parentNode!;
  while (parent.nodeName !== 'DIV') {
    parent = parent.parentNode!;
    if (!parent) return null;
  }
  return parent as Element;
}

/** A table of one cell, or one holding another table, is written cell after cell as paragraphs. */
function shouldSkip(table: TNode | null): boolean {
  const cached = skipped.get(table as object);
  if (cached !== undefined) return cached;
  let result: boolean;
  const rows = table && tableFacts(table).rows;
  if (!table || !rows) result = true;
  else if (rows.length === 1 && childList(rows[0]!).length <= 1) result = true;
  else result = someDescendant(table, (n) => n.nodeName === 'TABLE');
  skipped.set(table as object, result);
  return result;
}

/**
 * The plugin's tableShouldBeHtml: block content in a cell. Its 'code' test asks turndown's
 * isCodeBlock, which TurndownService does not have, and a nodeName inside "code", which an
 * upper-case nodeName never is: kept as written. preserveTableStyles is not set here.
 */
function shouldBeHtml(table: Node, options: Options): boolean {
  const tags = options.preserveNestedTables ? [...HTML_TABLE_TAGS, 'TABLE'] : HTML_TABLE_TAGS;
  return someDescendant(table, (n) => 'code'.includes(n.nodeName)) || someDescendant(table, (n) => tags.includes(n.nodeName));
}

/** A row is a heading row when in <thead>, or first in the table or its first <tbody>, with only <th> cells. */
function isHeadingRow(tr: TNode): boolean {
  const parent = tr.parentNode as TNode;
  const name = parent.nodeName;
  return name === 'THEAD' || (parent.firstChild === tr && (name === 'TABLE' || isFirstTbody(parent)) && childList(tr).every((n) => n.nodeName === 'TH'));
}

function isFirstTbody(el: TNode): boolean {
  const previous = el.previousSibling;
  return el.nodeName === 'TBODY' && (!previous || (previous.nodeName === 'THEAD' && /^\s*$/i.test(previous.textContent ?? '')));
}

/** Installs the table rules (and the plugin's `keep` of HTML tables), in the plugin's order. */
export function gfmTables(service: TurndownService): void {
  const options = service.options as Options;
  service.keep(((node: TNode) => node.nodeType === 1 && lowerName(node) === 'table' && shouldBeHtml(node, options)) as never);
  service.addRule('tableCell', {
    filter: nameFilter('th', 'td'),
    replacement: (content, node) => (shouldSkip(parentTable(node)) ? content : cell(content, node)),
  });
  service.addRule('tableRow', {
    filter: nameFilter('tr'),
    replacement: (content, node) => {
      const table = parentTable(node);
      if (shouldSkip(table)) return content;
      let borderCells = '';
      if (isHeadingRow(node)) {
        const cells = childList(node);
        const count = colCount(table!);
        for (let i = 0; i < count; i++) borderCells += cell(border(columnAlignment(table!, i)), i < cells.length ? (cells[i] as TNode) : null, i);
      }
      return '\n' + content + (borderCells ? '\n' + borderCells : '');
    },
  });
  service.addRule('table', {
    filter: (node) => node.nodeType === 1 && lowerName(node) === 'table',
    replacement: (content, node) => {
      if (shouldBeHtml(node, options)) {
        const html = node.outerHTML;
        const div = parentDiv(node);
        return div === null || !div.classList.contains('joplin-table-wrapper') ? `\n\n<div class="joplin-table-wrapper">${html}</div>\n\n` : html;
      }
      if (shouldSkip(node)) return content;
      const body = content.replace(/\n+/g, '\n');
      const lines = body.trim().split('\n');
      const secondLine = lines.length >= 2 ? lines[1] : lines;
      const secondLineIsDivider = /\| :?---/.test(secondLine as string);
      const columns = colCount(node);
      let emptyHeader = '';
      if (columns && !secondLineIsDivider) {
        emptyHeader = '|' + '     |'.repeat(columns) + '\n' + '|';
        for (let i = 0; i < columns; ++i) emptyHeader += ' ' + border(columnAlignment(node, i)) + ' |';
      }
      const captionNode = node.querySelector ? node.querySelector('caption') : (node as unknown as HTMLTableElement).caption;
      const captionContent = captionNode ? captionNode.textContent || '' : '';
      const caption = captionContent ? `${captionContent}\n\n` : '';
      return `\n\n${caption}${`${emptyHeader}${body}`.trimStart()}\n\n`;
    },
  });
  service.addRule('tableCaption', { filter: nameFilter('caption'), replacement: () => '' });
  service.addRule('tableColgroup', { filter: nameFilter('colgroup', 'col'), replacement: () => '' });
  service.addRule('tableSection', { filter: nameFilter('thead', 'tbody', 'tfoot'), replacement: (content) => content });
}
