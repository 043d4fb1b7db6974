// A PDF page's positioned text items (pdf.js getTextContent, see pdf.ts) -> lines: items on
// one baseline, split into cells at wide gaps, with the font size most characters are set
// in. The first step of pdf-layout.ts; pure, so each rule has given/when/then tests.
export interface PdfTextItem {
  text: string;
  /** Left edge and baseline, PDF user-space units (y grows upwards). */
  x: number;
  y: number;
  width: number;
  fontSize: number;
  /** Set in a monospaced font (pdf.js reports the font family): code. */
  mono?: boolean;
}

export interface PdfPageText {
  items: PdfTextItem[];
}

export interface Cell {
  x: number;
  endX: number;
  text: string;
}

export interface Line {
  page: number;
  x: number;
  y: number;
  fontSize: number;
  text: string;
  cells: Cell[];
  /** Every item monospaced: a line of code. */
  mono: boolean;
  /** The line as drawn, inner spacing kept (for code). */
  raw: string;
}

/** A gap of this many font sizes between two items splits cells (a word space is ~0.25). */
export const CELL_GAP_EM = 1.5;
/** Items of one page -> lines, in drawing order; whitespace-only items only matter as gaps. */
export function groupLines(page: PdfPageText, pageIndex = 0): Line[] {
  const lines: Line[] = [];
  let current: PdfTextItem[] = [];
  const flush = (): void => {
    if (current.length) lines.push(toLine(current, pageIndex));
    current = [];
  };
  for (const item of page.items) {
    if (item.text.trim() === '' || item.fontSize <= 0) continue;
    const last = current[current.length - 1];
    const tolerance = 0.4 * Math.min(item.fontSize, last?.fontSize ?? item.fontSize);
    // Same baseline and not jumping back left of the previous item: the same line.
    if (last && Math.abs(item.y - last.y) <= tolerance && item.x >= last.x + last.width - last.fontSize) current.push(item);
    else {
      flush();
      current.push(item);
    }
  }
  flush();
  return lines;
}

function toLine(items: PdfTextItem[], page: number): Line {
  const sorted = [...items].sort((a, b) => a.x - b.x);
  // Pieces are collected and joined once, and the text's last character is tracked, not
  // read back: a hostile PDF draws 200,000 items on one baseline, and appending to a growing
  // string while testing or trimming it is quadratic (each test flattens the whole string).
  const cells: { x: number; endX: number; parts: string[] }[] = [];
  const parts: string[] = [];
  let endsInSpace = false;
  const append = (piece: string): void => {
    parts.push(piece);
    if (piece !== '') endsInSpace = /\s$/.test(piece);
  };
  for (const [i, item] of sorted.entries()) {
    const prev = sorted[i - 1];
    const piece = item.text.replace(/\s+/g, ' ');
    const gap = prev ? item.x - (prev.x + prev.width) : 0;
    if (!prev || gap >= CELL_GAP_EM * item.fontSize) {
      cells.push({ x: item.x, endX: item.x + item.width, parts: [piece.trim()] });
      append((prev ? ' ' : '') + piece.trimStart());
      continue;
    }
    const cell = cells[cells.length - 1]!;
    const space = gap > 0.15 * item.fontSize && !endsInSpace && !/^\s/.test(piece) ? ' ' : '';
    // A cell's text is trimmed as it grows: a piece's trailing space never reaches the next.
    cell.parts.push(space + piece.trimEnd());
    cell.endX = item.x + item.width;
    append(space + piece);
  }
  const mono = sorted.every((i) => i.mono);
  return {
    page, x: sorted[0]!.x, y: sorted[0]!.y, fontSize: dominantSize(sorted),
    text: parts.join('').trim().replace(/\s+/g, ' '),
    cells: cells.map((c) => ({ x: c.x, endX: c.endX, text: c.parts.join('') })),
    mono, raw: mono ? rawText(sorted) : '',
  };
}

const MAX_CODE_INDENT = 400;

/** Monospaced items with their gaps as spaces (one space is 0.6 font sizes wide). */
function rawText(items: PdfTextItem[]): string {
  let out = '';
  let end = items[0]!.x;
  for (const item of items) {
    // Capped: positions are the PDF's to choose, and a hostile gap is a billion spaces.
    const spaces = Math.min(MAX_CODE_INDENT, Math.round((item.x - end) / (0.6 * item.fontSize)));
    out += ' '.repeat(Math.max(0, spaces)) + item.text;
    end = item.x + item.width;
  }
  return out.trimEnd();
}

function dominantSize(items: PdfTextItem[]): number {
  return mostCharacters(items.map((i) => [round(i.fontSize), i.text.trim().length]));
}

function round(size: number): number {
  return Math.round(size * 2) / 2;
}

function mostCharacters(pairs: [number, number][]): number {
  const weight = new Map<number, number>();
  for (const [size, chars] of pairs) weight.set(size, (weight.get(size) ?? 0) + chars);
  let best = 0;
  let most = -1;
  for (const [size, chars] of weight) if (chars > most || (chars === most && size < best)) [best, most] = [size, chars];
  return best;
}

/** The font size most characters are set in. */
export function bodySize(lines: Line[]): number {
  return mostCharacters(lines.map((l) => [l.fontSize, l.text.length]));
}
