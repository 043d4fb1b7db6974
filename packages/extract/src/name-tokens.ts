// An element's names as words: its id, each class and its microdata property, split at
// '-', '_', spaces and camelCase humps, with the names that say nothing of a role left out
// (utility variants, modifiers, page builders' prefixes). boilerplate.ts judges them; the
// block features and the product pass read them too.
import { classOf } from './dom.js';
import { isHeadingAnchor } from './heading-anchor.js';

/**
 * Page builders (Elementor, WPBakery / Visual Composer, Divi, Beaver Builder, Thrive, Avada)
 * call every block of a page a "widget" or "module" under their own prefix: their classes
 * say nothing about the role of the block.
 */
const PAGE_BUILDERS = ['elementor', 'wpb', 'vc', 'et', 'fl', 'tve', 'thrv', 'siteorigin', 'so', 'fusion', 'avia', 'wp'];

/**
 * A class "hide-from-X" (or "hidden-from-X", "exclude-from-X") says what the element is left
 * out of, not what it is: a docs heading marked "hide-from-toc" is a heading kept out of
 * the table of contents. ("hidden-print", hidden when printed, still names chrome.)
 */
const LEFT_OUT_OF = /^(hide|hidden|exclude|excluded)$/;

/**
 * A class that starts with one of these words describes state or taxonomy, not the role of
 * the element: WordPress writes "tag-<slug>" and "category-<slug>" on a post, themes write
 * "has-ads", "with-sidebar", "non-paywall". Such classes are not read as names.
 */
const MODIFIER_HEADS = new Set(['category', 'tag', 'term', 'has', 'with', 'is', 'no', 'non', 'not', 'format', 'status', 'type', ...PAGE_BUILDERS]);

/**
 * Names of an element: its id, each class and its microdata property (schema.org's names for
 * the role of a part: itemprop="author" is the author box, "articleBody" the article), each
 * split into lower-case words ("postShare-bar" -> post share bar).
 */
export function nameTokens(el: Element): ReadonlyArray<readonly string[]> {
  const raw = `${namingId(el)} ${classOf(el)} ${el.getAttribute('itemprop') ?? ''}`;
  let tokens = tokensByName.get(raw);
  if (!tokens) {
    if (tokensByName.size >= MAX_REMEMBERED_NAMES) tokensByName.clear();
    tokensByName.set(raw, (tokens = splitNames(raw)));
  }
  return tokens;
}

/**
 * nameTokens by the names' string, shared by every element that carries it: a page repeats
 * a few class names on thousands of elements, and the name pass, the block features and
 * the product pass each ask for every element's words. The arrays
 * are shared: callers read them only. Bounded (cleared when full): the names of a page run
 * to a few thousand.
 */
const tokensByName = new Map<string, ReadonlyArray<readonly string[]>>();
export const MAX_REMEMBERED_NAMES = 20_000;
const NO_NAMES: ReadonlyArray<readonly string[]> = [];

function splitNames(raw: string): ReadonlyArray<readonly string[]> {
  if (!raw.trim()) return NO_NAMES;
  const tokens: Array<readonly string[]> = [];
  for (const token of raw.split(/\s+/)) {
    let words = wordsByToken.get(token);
    if (words === undefined) {
      if (wordsByToken.size >= MAX_REMEMBERED_NAMES) wordsByToken.clear();
      wordsByToken.set(token, (words = nameWords(token)));
    }
    if (words) tokens.push(words);
  }
  return tokens;
}

/**
 * One name's words (null when it names no role): each class is split once per page and
 * shared by every name string it stands in (ids make most of those strings unique).
 */
const wordsByToken = new Map<string, readonly string[] | null>();

function nameWords(token: string): readonly string[] | null {
  // A utility class under a variant ("print:break-inside-avoid", "md:hover:opacity-100") styles, it names no role.
  if (token.includes(':')) return null;
  const words = token
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  return words.length && !(words.length > 1 && MODIFIER_HEADS.has(words[0]!)) && !(LEFT_OUT_OF.test(words[0]!) && words[1] === 'from') ? words : null;
}

/** el's id, unless it is its heading's anchor (heading-anchor.ts): then it names a topic, not a role. */
export function namingId(el: Element): string {
  const id = el.getAttribute('id') ?? '';
  return id && isHeadingAnchor(el, id) ? '' : id;
}
