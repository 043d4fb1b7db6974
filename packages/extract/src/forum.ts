// A forum thread's posts, found by repetition: the posts of a thread are like elements (the
// same tag and first class) that each hold an author mark (a link to a member's profile, or
// an element named author/username) and a time mark (<time>, or an element named date or
// time), and inside each the message body is the like descendant that holds most of the
// post's text without the author mark. Every post comes out as its author line, its time
// line and its body; what else a post holds (the member's avatar, post count and join date,
// the signature, the reply and quote buttons) is the forum's chrome and is left out.
// Engines differ in names (Discourse's crawler view, phpBB, vBulletin, XenForo, Invision,
// Flarum), not in this shape, so no engine is named here.
import { collapsedLength, elementsWhere, textStats, type TextStats } from './text.js';
import { holdsTimestamp } from './timestamps.js';
import { classOf } from './dom.js';

/** A thread has this many posts at least (a lone post is left to the article layout). */
const MIN_POSTS = 2;
/** The posts' bodies hold this much text together at least. */
const MIN_BODY_TEXT = 200;
/** The posts' bodies are prose: at most this share of their text is link text (a thread index's rows are links). */
const MAX_BODY_LINK_DENSITY = 0.5;
/** A body kind appears in at least this share of the posts. */
const MIN_BODY_SHARE = 0.5;
/** An author or time mark is a short line. */
const MAX_MARK_CHARS = 60;
/** An author mark's parent holds a short line at most (the name, a rank, a date), not a sentence. */
const MAX_AUTHOR_LINE_CHARS = 80;
/** Posts held by an element are its posts when they hold this share of its text at least. */
const HELD_POSTS_SHARE = 0.5;
const QUOTE_TOKEN = /quote/i;
const CHROME = 'nav, header, footer, [role="navigation"], [role="banner"], [role="contentinfo"]';
const PROFILE_PATH = /\/(members?|users?|u|profiles?|people|memberlist\.php|member\.php|profile\.php)(\/|\?|$|\.)/i;
const AUTHOR_TOKEN = /^(author|username|user-?name|poster|post-?author|creator|byline|postauthor|message-?author)$/i;
const TIME_TOKEN = /^(date|time|timestamp|post-?date|post-?time|posted|datetime|relative-?date|relative-?time|message-?date)$/i;

export interface ThreadPosts {
  /** The posts, in page order. */
  posts: Element[];
  /** Each post's message body: one element or more (a body of several paragraphs). */
  bodies: Element[][];
  /** Each post's author line and time line, read when the posts were found (before any clean-up of the content). */
  lines: string[][];
  /** Every author mark and time mark of the page: what marks a post built unlike the run's. */
  marks: { authors: Element[]; times: Element[] };
}

/**
 * The thread's posts under `body`, in page order, or undefined when the page has no run of
 * posts (then the caller keeps its other layout). `timestampLines`: on a page known to be a
 * thread, short lines with a year and a clock time count as time marks when the page has no
 * other (timestamps.ts).
 */
export function findPosts(body: Element, options: { timestampLines?: boolean } = {}): ThreadPosts | undefined {
  const stats = textStats(body);
  // One walk for both kinds of mark (a selector walk of the whole page each).
  const candidates = markCandidates(body);
  const authors = candidates.filter((el) => isAuthorMark(el, stats));
  // Most pages have no two author marks: their time marks are not looked for.
  if (authors.length < MIN_POSTS) return undefined;
  let times = candidates.filter((el) => isTimeMark(el, stats));
  // A thread whose engine writes its times as plain text: short lines with a year and a
  // clock time stand for the time marks (only on a page already typed a forum: the option).
  if (options.timestampLines && times.length < MIN_POSTS) times = candidates.filter((el) => shortText(el, stats) && holdsTimestamp(el.textContent ?? ''));
  if (authors.length < MIN_POSTS || times.length < MIN_POSTS) return undefined;
  const withAuthor = ancestors(authors, body);
  const withTime = ancestors(times, body);
  const groups = new Map<string, Element[]>();
  for (const el of withAuthor) {
    if (!withTime.has(el) || el.closest(CHROME)) continue;
    const key = kind(el);
    const group = groups.get(key);
    if (group) group.push(el);
    else groups.set(key, [el]);
  }
  const runs: Run[] = [];
  for (const members of groups.values()) {
    const posts = outermost(members);
    if (posts.length < MIN_POSTS) continue;
    const bodies = postBodies(posts, authors, stats);
    if (!bodies) continue;
    runs.push({ posts, bodies, lines: postLines(posts, bodies, authors, times), marks: { authors, times }, text: posts.reduce((n, p) => n + (stats.get(p)?.text ?? 0), 0), depth: depthOf(posts[0]!) });
  }
  let best: Run | undefined;
  for (const run of runs) {
    if (holdsPosts(run, runs, stats)) continue;
    // The most text; of like runs with the same text (a post and its only child), the innermost.
    if (!best || run.text > best.text || (run.text === best.text && run.depth > best.depth)) best = run;
  }
  return best;
}

/**
 * Each post of `run` that lies in `root` is replaced by its author line, its time line and
 * its body: the rest of the post (avatar, member's post count and join date, signature,
 * reply and quote buttons) goes. What `root` holds outside the posts stays as it is (a
 * thread's opening post is often built unlike its replies).
 */
export function keepPostBodies(root: Element, run: ThreadPosts): number {
  const document = root.ownerDocument;
  let kept = 0;
  for (const [i, post] of run.posts.entries()) {
    // A post whose body was not found (an unlike post, a deleted one) stays as it is.
    if (!root.contains(post) || post === root || !run.bodies[i]!.some((b) => post.contains(b))) continue;
    const div = document.createElement('div');
    for (const line of run.lines[i]!) {
      const p = document.createElement('p');
      p.textContent = line;
      div.append(p);
    }
    div.append(...run.bodies[i]!.filter((b) => post.contains(b)));
    post.replaceWith(div);
    kept++;
  }
  return kept;
}

/**
 * Cuts `root` down to the thread: what follows its last post (the reply form, pagination,
 * "similar threads", the sidebar's widgets) goes, and so does what precedes the thread's
 * heading when the heading comes before the first post (an app-install banner, the
 * breadcrumb, the login prompt). What lies between the heading and the first post stays: a
 * thread's opening post is often built unlike its replies. Position alone decides: the
 * posts are the thread, found by their repeated shape. A thread whose posts were not found
 * (`run` undefined) loses what precedes its heading only. Returns how many nodes went.
 */
export function trimToThread(root: Element, run: ThreadPosts | undefined): number {
  const inRoot = run ? run.posts.filter((p) => root.contains(p) && p !== root) : [];
  let removed = 0;
  if (run && inRoot.length >= MIN_POSTS) {
    for (let at: Element = inRoot[inRoot.length - 1]!; at !== root; at = at.parentElement!) {
      for (let next = at.nextSibling; next; ) {
        const following = next.nextSibling;
        if (!(next.nodeType === 1 && isMissedPost(next as Element, kind(at), run.marks))) {
          next.remove();
          removed++;
        }
        next = following;
      }
    }
  }
  // Without posts found, the thread's heading still opens it: what precedes it is the
  // forum's chrome (the posts follow their title).
  const first = inRoot[0];
  const heading = root.querySelector('h1');
  if (heading && (!first || (!first.contains(heading) && (heading.compareDocumentPosition(first) & 4) !== 0))) {
    for (let at: Element = heading; at !== root; at = at.parentElement!) {
      while (at.previousSibling) {
        at.previousSibling.remove();
        removed++;
      }
    }
  }
  return removed;
}

/**
 * The thread around `root` when its opening post stands before it: a question-and-answer
 * engine (Stack Exchange's, and others) builds the question unlike the answers and puts the
 * answers in a block of their own, which then holds most of the prose and is the container
 * found. An element before `root`, beside it, with an author mark, a time mark and a post's
 * worth of prose (not a list of links) is that opening post, and the thread is their parent.
 * Position and marks decide; the page's words are not read.
 */
export function withOpeningPost(root: Element, run: ThreadPosts | undefined): Element {
  const parent = root.parentElement;
  if (!run || !parent || parent.localName === 'body' || !run.posts.some((p) => root.contains(p))) return root;
  for (let el = root.previousElementSibling; el; el = el.previousElementSibling) {
    if (!el.matches(CHROME) && isMissedPost(el, '', run.marks)) return parent;
  }
  return root;
}

/**
 * A post the run missed after its last one: like the last post or the wrapper that holds it
 * (`holderKind`: its time line unmarked), or built unlike it (a last reply in another
 * template) with an author mark, a time mark and a post's worth of text; either way its text
 * is prose, not a list of links (a "similar threads" list names each topic's starter and
 * time too).
 */
function isMissedPost(el: Element, holderKind: string, marks: ThreadPosts['marks']): boolean {
  // A bare tag (a <div> without class or id) is no template's mark.
  const like = kind(el) === holderKind && /[.#]/.test(holderKind);
  if (!like && !(marks.authors.some((m) => el.contains(m)) && marks.times.some((m) => el.contains(m)))) return false;
  const s = textStats(el).get(el);
  return !!s && s.text >= (like ? 1 : MIN_BODY_TEXT) && s.link <= MAX_BODY_LINK_DENSITY * s.text;
}

interface Run extends ThreadPosts {
  text: number;
  depth: number;
}

/**
 * A run whose elements hold the posts of another run (two or more in one element, most of
 * its text) is a run of blocks of posts (the thread's block beside the sidebar's blocks),
 * not of posts. A post that holds its comments (a question-and-answer site's answer) holds
 * them as a small part of its text.
 */
function holdsPosts(run: Run, runs: readonly Run[], stats: ReadonlyMap<Element, TextStats>): boolean {
  const own = new Set(run.posts);
  for (const other of runs) {
    if (other === run) continue;
    const held = new Map<Element, { posts: number; text: number }>();
    for (const post of other.posts) {
      for (let a = post.parentElement; a; a = a.parentElement) {
        if (!own.has(a)) continue;
        const h = held.get(a) ?? { posts: 0, text: 0 };
        h.posts++;
        h.text += stats.get(post)?.text ?? 0;
        held.set(a, h);
        break;
      }
    }
    for (const [el, h] of held) if (h.posts >= 2 && h.text >= HELD_POSTS_SHARE * (stats.get(el)?.text ?? 0)) return true;
  }
  return false;
}

/**
 * The message body of each post: the descendants of the kind (tag and first class) that is in
 * most posts, holds no author mark and holds the most text over all posts. Undefined when
 * no kind is prose enough.
 */
function postBodies(posts: readonly Element[], authors: readonly Element[], stats: ReadonlyMap<Element, TextStats>): Element[][] | undefined {
  // A post's author lines (its profile, its byline) are not its body; the author marks in the
  // quotes of other posts are.
  const authorHolders = new Set<Element>();
  for (const post of posts) {
    for (const mark of authors) {
      if (!post.contains(mark) || inQuote(mark, post)) continue;
      for (let a: Element | null = mark; a && a !== post && !authorHolders.has(a); a = a.parentElement) authorHolders.add(a);
    }
  }
  const byKind = new Map<string, { text: number; link: number; posts: Set<number> }>();
  for (const [i, post] of posts.entries()) {
    for (const el of post.querySelectorAll('*')) {
      if (authorHolders.has(el)) continue;
      const s = stats.get(el);
      if (!s || s.text === 0) continue;
      const key = kind(el);
      const entry = byKind.get(key) ?? { text: 0, link: 0, posts: new Set<number>() };
      // Only the outermost element of a kind counts within a post (a quote's paragraphs are in its body's).
      if (!hasAncestorOfKind(el, key, post)) {
        entry.text += s.text;
        entry.link += s.link;
      }
      entry.posts.add(i);
      byKind.set(key, entry);
    }
  }
  let bestKey: string | undefined;
  let bestText = 0;
  for (const [key, e] of byKind) {
    if (e.posts.size < MIN_BODY_SHARE * posts.length || e.text < MIN_BODY_TEXT || e.link > MAX_BODY_LINK_DENSITY * e.text) continue;
    if (e.text > bestText) {
      bestKey = key;
      bestText = e.text;
    }
  }
  if (!bestKey) return undefined;
  return posts.map((post) => [...post.querySelectorAll('*')].filter((el) => !authorHolders.has(el) && kind(el) === bestKey && !hasAncestorOfKind(el, bestKey, post)));
}

function inQuote(el: Element, post: Element): boolean {
  for (let a = el.parentElement; a && a !== post; a = a.parentElement) if (a.localName === 'blockquote' || tokens(a).some((t) => QUOTE_TOKEN.test(t))) return true;
  return false;
}

function hasAncestorOfKind(el: Element, key: string, stop: Element): boolean {
  for (let a = el.parentElement; a && a !== stop; a = a.parentElement) if (kind(a) === key) return true;
  return false;
}

function postLines(posts: readonly Element[], bodies: readonly Element[][], authors: readonly Element[], times: readonly Element[]): string[][] {
  return posts.map((post, i) => {
    const inBody = (el: Element): boolean => bodies[i]!.some((b) => b.contains(el));
    const author = firstMarkText(post, authors, inBody);
    const time = firstMarkText(post, times, inBody);
    // One line may be both marks ("by ann » Tue Aug 27, 2019 1:47 am"): written once.
    return (time === author ? [author] : [author, time]).filter((line): line is string => !!line);
  });
}

/** The text of the first mark in `post` outside its body, collapsed. */
function firstMarkText(post: Element, found: readonly Element[], inBody: (el: Element) => boolean): string | undefined {
  for (const mark of found) {
    if (!post.contains(mark) || inBody(mark)) continue;
    const text = (mark.textContent ?? '').replace(/\s+/g, ' ').trim();
    if (text) return text;
  }
  return undefined;
}

/** A link to a member's profile, or an element whose class, itemprop or rel names the author, with a short text. */
function isAuthorMark(el: Element, stats: ReadonlyMap<Element, TextStats>): boolean {
  if (!shortText(el, stats) || inProse(el, stats)) return false;
  if (el.localName === 'a' && PROFILE_PATH.test(el.getAttribute('href') ?? '')) return true;
  if (el.getAttribute('itemprop') === 'author' || el.getAttribute('rel') === 'author') return true;
  return tokens(el).some((t) => AUTHOR_TOKEN.test(t));
}

/** A <time>, or an element whose class names a date or time, with a short text. */
function isTimeMark(el: Element, stats: ReadonlyMap<Element, TextStats>): boolean {
  if (!shortText(el, stats)) return false;
  return el.localName === 'time' || tokens(el).some((t) => TIME_TOKEN.test(t));
}

/** A mention of a member in a sentence ("thanks @ann, ...") is no author line: its parent is a longer text. */
function inProse(el: Element, stats: ReadonlyMap<Element, TextStats>): boolean {
  const parent = el.parentElement;
  if (!parent) return false;
  // The walk's count leaves out the spaces between elements: under it, the text itself is read.
  return (stats.get(parent)?.text ?? 0) > MAX_AUTHOR_LINE_CHARS || collapsedLength(parent.textContent ?? '') > MAX_AUTHOR_LINE_CHARS;
}

function shortText(el: Element, stats: ReadonlyMap<Element, TextStats>): boolean {
  const n = stats.get(el)?.text ?? 0;
  if (n === 0 || n > MAX_MARK_CHARS) return false;
  return collapsedLength(el.textContent ?? '') <= MAX_MARK_CHARS;
}

/**
 * What may be an author or a time mark: links, <time>s and elements with a class or an
 * author attribute. The selector `a[href], time, [class], [itemprop="author"], [rel="author"]`
 * as a walk (text.ts elementsWhere: linkedom compiles a selector on every call, and this one
 * runs on every page, for the page-type detection).
 */
function markCandidates(body: Element): Element[] {
  return elementsWhere(body, isMarkCandidate);
}

function isMarkCandidate(el: Element): boolean {
  // Names as css-select reads them in an HTML document: the tag name and rel's value without case, itemprop's with.
  const name = el.localName.toLowerCase();
  return (name === 'a' && el.hasAttribute('href')) || name === 'time' || el.hasAttribute('class') || el.getAttribute('itemprop') === 'author' || el.getAttribute('rel')?.toLowerCase() === 'author';
}

/** Every element that holds one of `found` (the marks themselves included), up to `top`. */
function ancestors(found: readonly Element[], top: Element): Set<Element> {
  const set = new Set<Element>();
  for (const el of found) for (let a: Element | null = el; a && a !== top && !set.has(a); a = a.parentElement) set.add(a);
  return set;
}

/** Members not inside another member, in page order. */
function outermost(members: readonly Element[]): Element[] {
  const set = new Set(members);
  return members.filter((m) => {
    for (let a = m.parentElement; a; a = a.parentElement) if (set.has(a)) return false;
    return true;
  });
}

/**
 * Tag and first class token without digits: what like elements share (a post's id-like
 * classes differ). An element without a class goes by its id without the digits
 * (post_message_123 and post_message_124 are alike).
 */
function kind(el: Element): string {
  let k = kinds.get(el);
  if (k === undefined) {
    k = kindOf(el);
    kinds.set(el, k);
  }
  return k;
}

/** kind() is asked for the same elements many times (each post's subtree, once per run tried). */
const kinds = new WeakMap<Element, string>();

function kindOf(el: Element): string {
  const first = tokens(el).find((t) => !/\d/.test(t));
  if (first) return `${el.localName}.${first}`;
  const id = el.getAttribute('id');
  return id ? `${el.localName}#${id.replace(/\d+/g, '')}` : el.localName;
}

function tokens(el: Element): string[] {
  const cls = classOf(el);
  return cls ? cls.split(/\s+/).filter(Boolean) : [];
}

function depthOf(el: Element): number {
  let d = 0;
  for (let a = el.parentElement; a; a = a.parentElement) d++;
  return d;
}
