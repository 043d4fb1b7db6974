// A PDF's text layer -> markdown: pure functions over the lines of pdf-lines.ts, so that each
// heuristic has given/when/then tests. A PDF has only runs of glyphs at positions; headings
// (larger sizes, one level each), lists, tables (cells in the first row's columns), code
// (monospaced runs), contents entries, paragraphs and page furniture are recovered from
// positions and font sizes, as layout-aware converters (pymupdf4llm, marker) do; each rule
// is described where it is applied.
import { bodySize, groupLines, type Cell, type Line, type PdfPageText } from './pdf-lines.js';

export { bodySize, CELL_GAP_EM, groupLines, type Cell, type Line, type PdfPageText, type PdfTextItem } from './pdf-lines.js';
/** A line this much larger than the body text may be a heading. */
export const HEADING_RATIO = 1.15;
/** Headings longer than this are emphasized text, not headings. */
const HEADING_MAX_CHARS = 200;
/** A vertical gap above this many times the usual line spacing starts a new paragraph. */
const PARAGRAPH_GAP = 1.3;
const LIST_MARKER = /^(?:[•◦▪▫●○■□‣⁃∙·–—*-]|\(?(?:\d{1,3}|[a-z])[.)])\s+/;
/** A table-of-contents entry: text, a dot leader, a page number. */
const TOC_ENTRY = /^(.*?\S)\s*(?:\.\s*){3,}(?:\d{1,5}|[ivxlc]{1,7})$/i;
const BULLET = /^[•◦▪▫●○■□‣⁃∙·–—*-]$/;
const PAGE_NUMBER = /^(?:(?:page\s+)?\d{1,5}(?:\s*(?:of|\/)\s*\d{1,5})?|[ivxlc]{1,7})$/i;

/** Heading level per font size: each distinct size HEADING_RATIO above the body, largest first. */
export function headingLevels(lines: Line[], body: number): Map<number, number> {
  const sizes = [...new Set(lines.filter((l) => isHeadingCandidate(l, body)).map((l) => l.fontSize))].sort((a, b) => b - a);
  return new Map(sizes.map((size, i) => [size, Math.min(6, i + 1)]));
}

function isHeadingCandidate(line: Line, body: number): boolean {
  return line.fontSize >= body * HEADING_RATIO && line.text.length <= HEADING_MAX_CHARS && /\p{L}/u.test(line.text);
}

/**
 * Page numbers, and lines no larger than the body text repeated (digits aside) as the first
 * or last line of most pages: running heads and footers. A numbered heading starting each
 * page ("Chapter 3") is larger than the body and stays.
 */
export function dropFurniture(pages: Line[][], body = bodySize(pages.flat())): Line[][] {
  const edgeText = (l: Line): string => l.text.replace(/\d+/g, '#').toLowerCase();
  const counts = new Map<string, number>();
  for (const lines of pages) {
    for (const l of new Set([lines[0], lines[lines.length - 1]])) if (l) counts.set(edgeText(l), (counts.get(edgeText(l)) ?? 0) + 1);
  }
  const repeated = (l: Line): boolean => pages.length >= 3 && (counts.get(edgeText(l)) ?? 0) >= Math.max(3, pages.length / 2);
  return pages.map((lines) => lines.filter((l, i) => {
    const atEdge = i === 0 || i === lines.length - 1;
    return !(atEdge && (PAGE_NUMBER.test(l.text) || (l.fontSize <= body && repeated(l))));
  }));
}

type Block =
  | { type: 'heading'; level: number; text: string }
  | { type: 'paragraph'; text: string }
  | { type: 'list'; ordered: boolean; items: string[] }
  | { type: 'table'; rows: string[][] }
  | { type: 'code'; lines: string[] };

/** The whole conversion: pages of items -> markdown. */
export function pdfPagesToMarkdown(pages: PdfPageText[]): string {
  const grouped = pages.map((p, i) => groupLines(p, i));
  const body = bodySize(grouped.flat());
  const lines = dropFurniture(grouped, body).flat();
  if (lines.length === 0) return '';
  const levels = headingLevels(lines, body);
  return renderBlocks(toBlocks(lines, body, levels, lineSpacing(lines, body)));
}

/**
 * The distance between consecutive lines of one body paragraph: the lower quartile of body
 * line distances (the median would be a paragraph gap when paragraphs are two lines long),
 * or 1.2 font sizes.
 */
export function lineSpacing(lines: Line[], body: number): number {
  const gaps: number[] = [];
  for (let i = 1; i < lines.length; i++) {
    const [a, b] = [lines[i - 1]!, lines[i]!];
    if (a.page === b.page && a.fontSize === body && b.fontSize === body && a.y > b.y) gaps.push(a.y - b.y);
  }
  if (gaps.length === 0) return body * 1.2;
  gaps.sort((x, y) => x - y);
  return Math.max(body, gaps[Math.floor(gaps.length / 4)]!);
}

export function toBlocks(lines: Line[], body: number, levels: Map<number, number>, spacing: number): Block[] {
  const blocks: Block[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (line.mono) {
      // Consecutive monospaced lines are one code block, indented as drawn.
      let end = i + 1;
      while (end < lines.length && lines[end]!.mono && follows(lines[end - 1]!, lines[end]!, spacing * 3)) end++;
      const run = lines.slice(i, end);
      const left = Math.min(...run.map((l) => l.x));
      blocks.push({ type: 'code', lines: run.map((l) => ' '.repeat(Math.max(0, Math.round((l.x - left) / (0.6 * l.fontSize)))) + l.raw) });
      i = end;
      continue;
    }
    const table = tableAt(lines, i);
    if (table) {
      blocks.push({ type: 'table', rows: table.rows });
      i = table.next;
      continue;
    }
    const toc = TOC_ENTRY.exec(line.text);
    if (toc) {
      // Each entry is an item, whatever its size; the leader and page number go.
      const last = blocks[blocks.length - 1];
      if (last?.type === 'list' && !last.ordered) last.items.push(toc[1]!);
      else blocks.push({ type: 'list', ordered: false, items: [toc[1]!] });
      i++;
      continue;
    }
    const level = levels.get(line.fontSize);
    if (level !== undefined && isHeadingCandidate(line, body)) {
      let text = line.text;
      while (i + 1 < lines.length && follows(lines[i]!, lines[i + 1]!, spacing * 1.2) && lines[i + 1]!.fontSize === line.fontSize) text += ` ${lines[++i]!.text}`;
      blocks.push({ type: 'heading', level, text });
      i++;
      continue;
    }
    const marker = LIST_MARKER.exec(line.text);
    if (marker) {
      const ordered = !BULLET.test(marker[0].trim());
      let item = line.text.slice(marker[0].length);
      // Continuation lines hang indented under the item's text, right of its marker.
      while (i + 1 < lines.length) {
        const next = lines[i + 1]!;
        if (!follows(lines[i]!, next, spacing * PARAGRAPH_GAP) || LIST_MARKER.test(next.text) || next.fontSize !== line.fontSize || next.x <= line.x + 0.5) break;
        item = joinText(item, next.text);
        i++;
      }
      const last = blocks[blocks.length - 1];
      if (last?.type === 'list' && last.ordered === ordered) last.items.push(item);
      else blocks.push({ type: 'list', ordered, items: [item] });
      i++;
      continue;
    }
    let text = line.text;
    while (i + 1 < lines.length) {
      const next = lines[i + 1]!;
      if (!follows(lines[i]!, next, spacing * PARAGRAPH_GAP) || next.fontSize !== line.fontSize || next.mono || LIST_MARKER.test(next.text) || TOC_ENTRY.test(next.text) || tableAt(lines, i + 1)) break;
      text = joinText(text, next.text);
      i++;
    }
    blocks.push({ type: 'paragraph', text });
    i++;
  }
  return blocks;
}

/** `b` comes right below `a` on the same page, within `maxGap`. */
function follows(a: Line, b: Line, maxGap: number): boolean {
  return a.page === b.page && a.y > b.y && a.y - b.y <= maxGap;
}

function joinText(text: string, next: string): string {
  if (/\p{Ll}-$/u.test(text) && /^\p{Ll}/u.test(next)) return text.slice(0, -1) + next;
  return `${text} ${next}`;
}

/** A table starting at line `start`: its rows (cells by column) and the line after it. */
export function tableAt(lines: Line[], start: number): { rows: string[][]; next: number } | undefined {
  const head = lines[start]!;
  if (head.cells.length < 2) return undefined;
  const columns = head.cells.map((c) => c.x);
  const tolerance = head.fontSize;
  const rows: string[][] = [head.cells.map((c) => c.text)];
  let end = start + 1;
  while (end < lines.length) {
    const line = lines[end]!;
    const prev = lines[end - 1]!;
    if (line.cells.length < 2 || line.page !== prev.page || prev.y - line.y > 3 * head.fontSize || prev.y <= line.y) break;
    const row = intoColumns(line.cells, columns, tolerance);
    if (!row) break;
    rows.push(row);
    end++;
  }
  if (rows.length < 2) return undefined;
  const cells = rows.flat().filter((c) => c !== '');
  const meanLength = cells.reduce((n, c) => n + c.length, 0) / cells.length;
  if (columns.length < 3 && meanLength > 40) return undefined; // two columns of prose
  return { rows, next: end };
}

/** Each cell into the rightmost column starting at or left of it; undefined when two cells share one. */
export function intoColumns(cells: Cell[], columns: number[], tolerance: number): string[] | undefined {
  const row = columns.map(() => '');
  const used = new Set<number>();
  for (const cell of cells) {
    let index = -1;
    for (let c = 0; c < columns.length; c++) if (columns[c]! <= cell.x + tolerance) index = c;
    if (index === -1 || used.has(index)) return undefined;
    used.add(index);
    row[index] = cell.text;
  }
  return row;
}

export function renderBlocks(blocks: Block[]): string {
  return blocks.map(renderBlock).join('\n\n').trim();
}

function renderBlock(block: Block): string {
  switch (block.type) {
    case 'heading':
      return `${'#'.repeat(block.level)} ${escapeInline(block.text)}`;
    case 'paragraph':
      return escapeLineStart(escapeInline(block.text));
    case 'list':
      return block.items.map((item, i) => `${block.ordered ? `${i + 1}.` : '-'} ${escapeInline(item)}`).join('\n');
    case 'code': {
      const body = block.lines.join('\n');
      const fence = '`'.repeat(Math.max(3, ...[...body.matchAll(/`+/g)].map((m) => m[0].length + 1)));
      return `${fence}\n${body}\n${fence}`;
    }
    case 'table': {
      const width = Math.max(...block.rows.map((r) => r.length));
      const cell = (c: string): string => escapeInline(c).replace(/\|/g, '\\|');
      const row = (r: string[]): string => `| ${Array.from({ length: width }, (_, i) => cell(r[i] ?? '')).join(' | ')} |`;
      return [row(block.rows[0]!), `|${' --- |'.repeat(width)}`, ...block.rows.slice(1).map(row)].join('\n');
    }
  }
}

/**
 * Characters that would turn plain PDF text into markdown syntax, and only those: `*`,
 * backticks and backslashes, `_` at a word's edge (intraword underscores are text in
 * GFM: XDG_DATA_HOME stays readable), `<` opening a tag or autolink, `]` closing a link.
 */
export function escapeInline(text: string): string {
  return text
    .replace(/([\\`*])/g, '\\$1')
    .replace(/_/g, (m, at: number, s: string) => (/[\p{L}\p{N}]/u.test(s[at - 1] ?? '') && /[\p{L}\p{N}]/u.test(s[at + 1] ?? '') ? m : '\\_'))
    .replace(/<(?=[A-Za-z/!?])/g, '\\<')
    .replace(/\](?=[([:])/g, '\\]');
}

function escapeLineStart(text: string): string {
  return text.replace(/^(#{1,6}\s|>|[-+]\s)/, '\\$1').replace(/^(\d+)([.)]\s)/, '$1\\$2');
}

/** Characters a text layer without real text is made of: private-use glyph codes, U+FFFD, controls. */
const NOT_TEXT = /[\p{Co}\uFFFD\p{Cc}]/gu;
/** Fewer readable characters than this per page: a scan (or a picture book), not a text document. */
export const OCR_MIN_CHARS_PER_PAGE = 16;

/**
 * Whether the pages have no usable text layer: almost no characters (a scanned PDF), or
 * mostly codes that map to no character (fonts without a Unicode mapping: the "text" would
 * be garbage). Such a PDF gets metadata.needsOcr and no markdown.
 */
export function needsOcr(pages: PdfPageText[]): boolean {
  if (pages.length === 0) return false;
  const { readable, unreadable } = characters(pages);
  return readable < OCR_MIN_CHARS_PER_PAGE * pages.length || unreadable > 0.3 * (readable + unreadable);
}

/**
 * In a document that has a text layer, the pages (1-based, first 100) that have none: scanned
 * pages among typed ones (or blank pages), for a caller that OCRs only what needs it.
 */
export function pagesWithoutText(pages: PdfPageText[]): number[] {
  const out: number[] = [];
  pages.forEach((page, i) => {
    if (out.length < 100 && characters([page]).readable < OCR_MIN_CHARS_PER_PAGE) out.push(i + 1);
  });
  return out;
}

function characters(pages: PdfPageText[]): { readable: number; unreadable: number } {
  const text = pages.flatMap((p) => p.items.map((i) => i.text)).join('').replace(/\s+/g, '');
  const unreadable = text.match(NOT_TEXT)?.length ?? 0;
  return { readable: text.length - unreadable, unreadable };
}
