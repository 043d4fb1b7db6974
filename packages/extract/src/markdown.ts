// HTML -> Markdown with turndown and @joplin/turndown-plugin-gfm, tuned for clean output:
// ATX headings, "-" bullets, fenced code with the language, GFM tables (layout tables are
// flattened first), no empty links or images, no javascript: links, no form controls or
// media players, at most one blank line between blocks (code blocks are left verbatim).
// URLs are already absolute: the transform resolves them in the DOM before conversion.
import TurndownService from 'turndown';
import { highlightedCodeBlock, strikethrough, taskListItems } from '@joplin/turndown-plugin-gfm';
import { gfmTables, nameFilter } from './markdown-tables.js';
import { elementsWhere } from './text.js';
import { classOf } from './dom.js';

type TNode = TurndownService.Node;

const HEADING_NAMES = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6']);

const service = createService();

/** Converts an element's content to Markdown. Mutates `root` (layout tables become divs). */
export function toMarkdown(root: Element): string {
  flattenLayoutTables(root);
  return tidy(service.turndown(root as unknown as HTMLElement));
}

function createService(): TurndownService {
  const td = new TurndownService({
    headingStyle: 'atx',
    hr: '---',
    bulletListMarker: '-',
    codeBlockStyle: 'fenced',
    fence: '```',
    emDelimiter: '*',
    strongDelimiter: '**',
    linkStyle: 'inlined',
  });
  // The gfm plugin with its table rules replaced by the same rules that read each table once (markdown-tables.ts).
  td.use([highlightedCodeBlock, strikethrough, gfmTables, taskListItems]);
  // Rules added later take precedence over earlier ones (turndown unshifts them). Every node
  // is tested against the rules in turn: the filters read localName, which linkedom stores
  // (a string or array filter makes turndown upper-case nodeName and lower-case it again).
  td.remove(['button', 'input', 'select', 'textarea', 'option', 'svg', 'canvas', 'video', 'audio', 'iframe', 'map'] as never);
  td.addRule('heading', {
    filter: (node) => HEADING_NAMES.has(node.localName),
    replacement: (content, node) => {
      // A heading set inside another (an accordion's <h2><button><h3>) is one heading.
      const text = oneLine(content).replace(/^#{1,6} /, '');
      return text ? `\n\n${'#'.repeat(Number(node.nodeName.charAt(1)))} ${text}\n\n` : '';
    },
  });
  td.addRule('listItem', {
    filter: (node) => node.localName === 'li',
    replacement: (content, node) => {
      const parent = node.parentNode as Element | null;
      let prefix = '- ';
      if (parent?.nodeName === 'OL') {
        const start = Number.parseInt(parent.getAttribute('start') ?? '1', 10);
        let index = 0;
        for (let sibling = node.previousElementSibling; sibling; sibling = sibling.previousElementSibling) index++;
        prefix = `${(Number.isFinite(start) ? start : 1) + index}. `;
      }
      const trimmed = content.replace(/^\n+/, '').replace(/\n+$/, '');
      if (!trimmed.trim()) return '';
      const indented = trimmed.replace(/\n(?=.)/g, `\n${' '.repeat(prefix.length)}`);
      return `${prefix}${indented}${node.nextSibling ? '\n' : ''}`;
    },
  });
  td.addRule('fencedCode', {
    filter: (node) => node.localName === 'pre',
    replacement: (_content, node) => {
      const code = preText(node).replace(/^\n+|\s+$/g, '');
      if (!code) return '';
      let fence = '```';
      for (const run of code.match(/^`{3,}/gm) ?? []) if (run.length >= fence.length) fence = '`'.repeat(run.length + 1);
      return `\n\n${fence}${codeLanguage(node)}\n${code}\n${fence}\n\n`;
    },
  });
  td.addRule('link', {
    filter: (node) => node.localName === 'a',
    replacement: (content, node) => {
      const text = linkText(content);
      const href = ((node as Element).getAttribute('href') ?? '').trim();
      if (!text) return '';
      if (!/^(https?|mailto|tel):/i.test(href) || !URL.canParse(href)) return text;
      // title attributes are tooltips (on Wikipedia, the target's name again): not content.
      return `[${text}](${escapeDestination(href)})`;
    },
  });
  // The gfm plugin reads input.checked, which linkedom does not reflect from the attribute.
  td.addRule('taskListItem', {
    filter: (node) => node.localName === 'input' && node.getAttribute('type') === 'checkbox' && !!node.closest('li'),
    replacement: (_content, node) => {
      const box = (node as Element).hasAttribute('checked') ? '[x]' : '[ ]';
      return /^\s/.test(node.nextSibling?.textContent ?? '') ? box : `${box} `;
    },
  });
  td.addRule('image', {
    filter: (node) => node.localName === 'img',
    replacement: (_content, node) => {
      const img = node as Element;
      const src = (img.getAttribute('src') ?? '').trim();
      if (!/^https?:/i.test(src) || !URL.canParse(src) || isTrackingPixel(img)) return '';
      const alt = oneLine(img.getAttribute('alt') ?? '').replace(/([[\]\\])/g, '\\$1');
      return `![${alt}](${escapeDestination(src)})`;
    },
  });
  memoizeNameFilters(td);
  return td;
}

type Rule = TurndownService.Rule;

/**
 * turndown tests every element against the rules in turn, and a string or array filter
 * (turndown's own rules, the gfm plugin's, the remove list) against nodeName.toLowerCase(),
 * which linkedom builds anew per read: a div with no rule of its own made some twenty
 * upper- and lower-cased copies of its name. The same test on a per-name memo, in rule copies
 * (the rule objects are turndown's module-wide ones, shared with other TurndownService users).
 */
function memoizeNameFilters(td: TurndownService): void {
  const rules = (td as unknown as { rules: { array: Rule[]; _remove: Rule[] } }).rules;
  for (const list of [rules.array, rules._remove]) {
    for (const [i, rule] of list.entries()) {
      const filter = rule.filter;
      if (typeof filter === 'string') list[i] = { ...rule, filter: nameFilter(filter) };
      else if (Array.isArray(filter)) list[i] = { ...rule, filter: nameFilter(...(filter as string[])) };
    }
  }
}

/** A link's text on one line: block content inside a link (cards, teasers) cannot span lines in Markdown. */
function linkText(content: string): string {
  if (!content.includes('\n')) return content.trim();
  return content
    .split('\n')
    .map((line) => line.replace(/^\s*(#{1,6}\s+|[-*]\s+|\d+\.\s+|>\s*)/, '').trim())
    .filter(Boolean)
    .join(' ');
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function escapeDestination(url: string): string {
  const escaped = url.replace(/([()<>])/g, '\\$1');
  return /\s/.test(escaped) ? `<${escaped.replace(/\s/g, '%20')}>` : escaped;
}

/** A 1x1 image (width and height attributes both at most 1): a tracker, not content. */
function isTrackingPixel(img: Element): boolean {
  const size = (name: string) => {
    const value = img.getAttribute(name)?.trim() ?? '';
    return /^\d+(\.\d+)?(px)?$/.test(value) ? Number.parseFloat(value) : Number.NaN;
  };
  return size('width') <= 1 && size('height') <= 1;
}

const LANGUAGE_PATTERNS = [
  /(?:^|\s)(?:language|lang)-([\w+#.-]+)/i,
  /(?:^|\s)highlight-(?:source|text)-([\w+#]+)/i,
  /(?:^|\s)brush:\s*([\w+#]+)/i,
  /(?:^|\s)sourceCode\s+([\w+#]+)/,
];

/** The fenced block's info string: class language-x / lang-x / highlight-source-x / brush: x, or data-lang. */
function codeLanguage(pre: TNode): string {
  const code = pre.firstElementChild?.nodeName === 'CODE' ? pre.firstElementChild : undefined;
  const candidates: Array<Element | null | undefined> = [code, pre as unknown as Element, pre.parentElement];
  for (const el of candidates) {
    if (!el) continue;
    const data = el.getAttribute('data-lang') ?? el.getAttribute('data-language');
    if (data && /^[\w+#.-]+$/.test(data)) return data.toLowerCase();
    const className = classOf(el);
    for (const pattern of LANGUAGE_PATTERNS) {
      const match = pattern.exec(className);
      if (match?.[1] && !/^(none|plain|text|plaintext)$/i.test(match[1])) return match[1].toLowerCase();
    }
  }
  return '';
}

const BLOCK_IN_PRE = new Set(['DIV', 'P', 'LI', 'TR']);

/**
 * A <pre>'s text with <br> and line-per-<div> markup (some highlighters) turned into
 * newlines. A <p> inside a <pre> is Readability's rewrite of <br><br>: a blank line.
 */
function preText(node: Node): string {
  let out = '';
  const newline = (count: number) => {
    if (!out) return;
    let have = 0;
    while (have < count && out[out.length - 1 - have] === '\n') have++;
    if (have < count) out += '\n'.repeat(count - have);
  };
  const walk = (n: Node): void => {
    for (const child of n.childNodes) {
      if (child.nodeType === 3 || child.nodeType === 4) out += (child as Text).data;
      else if (child.nodeName === 'BR') out += '\n';
      else if (child.nodeType === 1) {
        const block = BLOCK_IN_PRE.has(child.nodeName) || isLineSpan(child);
        if (block) newline(child.nodeName === 'P' ? 2 : 1);
        walk(child);
        if (block) newline(1);
      }
    }
  };
  walk(node);
  return out;
}

/** A class word that names one line of highlighted code (Shiki "line", "code-line", "ec-line"). */
const LINE_CLASS = /(?:^|[\s_-])line(?:$|[\s_-])/i;

/**
 * A highlighter's per-line <span> (Shiki and the like write `<span class="line">` per line),
 * when the line spans stand side by side with no newline between them (minified HTML): each
 * is a line. Where a newline text separates them, that newline already ends the line.
 */
function isLineSpan(el: Node): boolean {
  if (el.nodeName !== 'SPAN' || !LINE_CLASS.test(classOf(el as Element))) return false;
  const newlineText = (n: Node | null): boolean => n?.nodeType === 3 && (n as Text).data.includes('\n');
  return !newlineText(el.previousSibling) && !newlineText(el.nextSibling);
}

/**
 * Tables used for layout (nested tables, block content such as lists or headings in cells,
 * role=presentation, a single column) would make unreadable GFM tables or be kept as raw
 * HTML by the gfm plugin; they are turned into plain blocks instead.
 */
function flattenLayoutTables(root: Element): void {
  // Table parts outside any table (an includeTags pick, broken markup) would crash the gfm plugin.
  // The selectors 'tr, td, th, thead, tbody, tfoot, caption' and 'table' as walks (text.ts elementsWhere).
  for (const part of elementsWhere(root, isTablePart)) {
    if (!part.closest('table')) rename(part, 'div');
  }
  for (const table of elementsWhere(root, (el) => el.localName.toLowerCase() === 'table')) {
    if (isLayoutTable(table)) {
      for (const part of elementsWhere(table, isTablePart)) {
        if (part.closest('table') === table) rename(part, 'div');
      }
      rename(table, 'div');
    } else {
      fosterStrayRowContent(table);
      expandSpans(table);
    }
  }
}

const TABLE_PARTS = new Set(['tr', 'td', 'th', 'thead', 'tbody', 'tfoot', 'caption']);

function isTablePart(el: Element): boolean {
  return TABLE_PARTS.has(el.localName.toLowerCase());
}

/**
 * A row holds cells only: text or elements written straight into a <tr> (odd markup that
 * a browser's parser would have moved out, before the table) are moved before the table,
 * as the HTML parser's foster parenting does. Left in place, the gfm plugin reads them as
 * cells and crashes on a text node (`node.getAttribute is not a function`).
 */
function fosterStrayRowContent(table: Element): void {
  for (const row of (table as unknown as { rows: Element[] }).rows) {
    for (const child of [...row.childNodes]) {
      if (child.nodeName === 'TD' || child.nodeName === 'TH') continue;
      if (child.nodeType === 1 || (child.nodeType === 3 && (child.textContent ?? '').trim())) table.before(child);
      else child.remove();
    }
  }
}

const MAX_SPAN = 100;

/**
 * GFM has no colspan / rowspan: a spanning cell is followed by empty cells (and rows below
 * get empty cells where a rowspan covered them), so every row has its columns in place.
 */
function expandSpans(table: Element): void {
  const pending: number[] = []; // per column: rows still covered by a rowspan from above
  const rows = (table as unknown as { rows: Element[] }).rows;
  for (const row of rows) {
    const cells = [...row.children].filter((c) => c.nodeName === 'TD' || c.nodeName === 'TH');
    if (!cells.some((c) => c.hasAttribute('colspan') || c.hasAttribute('rowspan')) && !pending.some((n) => n > 0)) continue;
    const out: Element[] = [];
    const blank = (like: string) => row.ownerDocument.createElement(like === 'TH' ? 'th' : 'td');
    let col = 0;
    while (cells.length || pending.some((n, c) => c >= col && n > 0)) {
      if ((pending[col] ?? 0) > 0) {
        pending[col]! -= 1;
        out.push(blank('TD'));
        col++;
        continue;
      }
      const cell = cells.shift();
      if (!cell) {
        out.push(blank('TD'));
        col++;
        continue;
      }
      const colspan = span(cell.getAttribute('colspan'));
      const rowspan = span(cell.getAttribute('rowspan'));
      cell.removeAttribute('colspan');
      cell.removeAttribute('rowspan');
      out.push(cell);
      for (let k = 0; k < colspan; k++) {
        if (rowspan > 1) pending[col + k] = rowspan - 1;
        if (k > 0) out.push(blank(cell.nodeName));
      }
      col += colspan;
    }
    row.replaceChildren(...out);
  }
}

function span(value: string | null): number {
  const n = Number.parseInt(value ?? '1', 10);
  return Number.isFinite(n) && n >= 1 ? Math.min(n, MAX_SPAN) : 1;
}

function isLayoutTable(table: Element): boolean {
  const role = table.getAttribute('role');
  if (role === 'presentation' || role === 'none') return true;
  if (table.querySelector('table, ul, ol, h1, h2, h3, h4, h5, h6, hr, blockquote, pre')) return true;
  const rows = (table as unknown as { rows?: Element[] }).rows ?? [];
  return rows.every((row) => row.children.length <= 1);
}

function rename(el: Element, tagName: string): void {
  const replacement = el.ownerDocument.createElement(tagName);
  while (el.firstChild) replacement.appendChild(el.firstChild);
  el.replaceWith(replacement);
}

/** Trailing spaces go (except Markdown hard breaks), blank-line runs collapse to one; code stays verbatim. */
function tidy(markdown: string): string {
  let out = '';
  let last = 0;
  for (const match of markdown.matchAll(FENCED_BLOCK)) {
    out += tidyProse(markdown.slice(last, match.index)) + match[0];
    last = match.index + match[0].length;
  }
  return (out + tidyProse(markdown.slice(last))).trim();
}

const FENCED_BLOCK = /^(`{3,}|~{3,})[^\n]*\n[\s\S]*?\n\1[ \t]*$/gm;

/**
 * Soft hyphens (U+00AD) are hyphenation hints that a browser shows only at a line break:
 * in Markdown they split a word for every reader that is not a browser ("Mag\u00ADda\u00ADle\u00ADna").
 */
const SOFT_HYPHEN = /\u00AD/g;

function tidyProse(text: string): string {
  return text
    .replace(SOFT_HYPHEN, '')
    .replace(/^[ \t]+$/gm, '')
    .replace(/([^ \t\n])[ \t]$/gm, '$1')
    .replace(/\n{3,}/g, '\n\n');
}
