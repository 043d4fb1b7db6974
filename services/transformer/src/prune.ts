// The final boilerplate pass, on the chosen content tree: what survives every candidate
// extractor because it sits inside the article's own container and carries no telling
// class name. Each rule reads general signals only: how much of a block is link text, how
// short it is, and the stock phrases that announce boilerplate in the languages of the big
// European web (en, de, fr, es, it, pt, pl, nl). A phrase is matched at the start of a short
// block only: "Read more:" opening a one-line teaser is boilerplate, the words inside a
// paragraph are not.
import { collapsedLength, linkDensity, textStats, type TextStats } from './text.js';

/** Openers of teaser lines that point to another article ("Read more: <headline>"). */
const TEASER_OPENER =
  /^(read (more|also|next)|see also|related|more on this|recommended|you (may|might) also like|also read|lesen sie (auch|mehr|hier)|auch lesen|mehr zum thema|mehr (themen|dazu|lesen)|weitere (artikel|beiträge|themen|nachrichten)|weiterlesen|das könnte (sie|dich) auch interessieren|auch interessant|empfohlene (beiträge|artikel)|beiträge zum thema|ähnliche (beiträge|artikel)|verwandte (beiträge|artikel|themen)|à lire (aussi|également)|lire (aussi|la suite)|voir aussi|sur le même sujet|lea (también|más|además)|lea:|vea (también|además)|le puede interesar|te puede interesar|más noticias|noticias relacionadas|leggi anche|potrebbe interessarti|articoli correlati|leia (também|mais)|veja também|zobacz (też|także|również)|czytaj (też|także|również|więcej)|przeczytaj (też|także)|lees ook|meer nieuws)\b/iu;

/** Openers of calls to subscribe, follow or share (newsletters, apps, social accounts, paywalls). */
const CALL_TO_ACTION =
  /^(subscribe|sign up|signing up|follow (us|the)|download (the|our)|get the|never miss|join (us|our)|share (this|on)|abonnieren|abonniere|jetzt (abonnieren|anmelden|registrieren|teilen)|folgen sie|melden sie sich|abonnez|inscrivez|suivez|partagez|suscríbete|suscribete|síguenos|únete|iscriviti|seguici|assine|siga|zapraszamy|subskrybuj|obserwuj|abonneer|volg ons)/iu;

/** Photo credits and sources: "Foto: X", "Photo: AFP", "Bild: dpa", "Quelle: ...", "© 2020 ...". */
const CREDIT_LINE = /^(©|\(c\)|copyright|fotos?|photos?|bild(er)?|image|crédits?( photos?)?|credits?|quelle|source|fuente|fonte|źródło|bron)\s*[:©(/]/iu;

/** Headings that announce boilerplate sections (related articles, the author, comments, tags). */
const BOILERPLATE_HEADING =
  /^(related|more (from|stories|articles|news)|recommended|you (may|might) also like|popular|most read|trending|about the author|comments?|leave a (reply|comment)|tags|share|auch interessant|das könnte (sie|dich) auch interessieren|mehr (zum thema|themen)|weitere (artikel|beiträge|themen|nachrichten|meldungen)|empfohlen|ähnliche|meistgelesen|beliebt|über (den|die) autor|kommentare?|schlagwörter|themen im artikel|teilen|à lire|articles? (similaires|liés)|commentaires?|sur le même sujet|noticias relacionadas|más noticias|lo más (leído|visto)|comentarios?|te puede interesar|articoli correlati|commenti|leggi anche|zobacz (też|także)|komentarze|czytaj (też|także)|gerelateerd|reacties)/iu;

/** Teaser lines and calls to action are short: one sentence, a headline. */
const MAX_TEASER_LENGTH = 200;
/** A credit is a line, not a paragraph. */
const MAX_CREDIT_LENGTH = 120;
/** Lists and blocks mostly made of links are navigation or related links (trafilatura's link-density test). */
const MAX_LIST_LINK_DENSITY = 0.6;
const MAX_BLOCK_LINK_DENSITY = 0.5;
/** ...unless they are long prose with a few links: only blocks up to this length are judged by links. */
const MAX_LINK_BLOCK_TEXT = 1000;

const BLOCKS = 'p, div, section, ul, ol, dl, table, blockquote, h1, h2, h3, h4, h5, h6, li, span, small, strong, em, b, i, a';
const HEADINGS = new Set(['H1', 'H2', 'H3', 'H4', 'H5', 'H6']);

export interface PruneReport {
  removed: number;
}

/** Removes the boilerplate blocks of `root` (in place). The first <h1> (the title) is never touched. */
export function pruneBoilerplate(root: Element): PruneReport {
  const stats = textStats(root);
  const title = root.querySelector('h1');
  let removed = 0;
  const remove = (el: Element): void => {
    el.remove();
    removed++;
  };
  for (const el of [...root.querySelectorAll(BLOCKS)]) {
    if (!root.contains(el) || el === title || el.contains(title)) continue;
    const s = stats.get(el);
    if (!s || s.text === 0) continue;
    if (HEADINGS.has(el.nodeName)) {
      if (BOILERPLATE_HEADING.test(textOf(el))) removeSection(el, stats, remove);
      continue;
    }
    if (isBoilerplateBlock(el, s)) remove(el);
  }
  return { removed };
}

function textOf(el: Element): string {
  return (el.textContent ?? '').replace(/\s+/g, ' ').trim();
}

function isBoilerplateBlock(el: Element, s: TextStats): boolean {
  const name = el.nodeName;
  // Judged as a whole only where a block starts: inline elements are judged as lines below.
  if (s.text <= MAX_TEASER_LENGTH) {
    const text = textOf(el);
    if (TEASER_OPENER.test(text) || CALL_TO_ACTION.test(text)) return isLine(el);
    if (s.text <= MAX_CREDIT_LENGTH && CREDIT_LINE.test(text)) return isLine(el);
  }
  if (name === 'UL' || name === 'OL' || name === 'DL') {
    return s.text <= MAX_LINK_BLOCK_TEXT && linkDensity(s) > MAX_LIST_LINK_DENSITY && itemCount(el) >= 2;
  }
  if (name === 'DIV' || name === 'SECTION' || name === 'P') {
    return s.text <= MAX_LINK_BLOCK_TEXT && linkDensity(s) > MAX_BLOCK_LINK_DENSITY && collapsedLength(el.textContent ?? '') > 0 && hasSeveralLinks(el);
  }
  return false;
}

/**
 * An inline element (a <strong>, a <span>) is a line of its own when nothing but whitespace
 * stands beside it in its parent block: then removing it removes the line, not part of a sentence.
 */
function isLine(el: Element): boolean {
  if (!['SPAN', 'SMALL', 'STRONG', 'EM', 'B', 'I', 'A'].includes(el.nodeName)) return true;
  const parent = el.parentElement;
  return !!parent && textOf(parent) === textOf(el);
}

function itemCount(list: Element): number {
  let n = 0;
  for (const child of list.children) if (child.nodeName === 'LI' || child.nodeName === 'DT' || child.nodeName === 'DD') n++;
  return n;
}

function hasSeveralLinks(el: Element): boolean {
  return el.querySelectorAll('a').length >= 2;
}

/**
 * A boilerplate heading takes its section along: the siblings after it up to the next
 * heading of the same or a higher level, as long as they are link lists, short blocks or
 * link-heavy (a "Related" heading over prose would be odd; the prose stays).
 */
function removeSection(heading: Element, stats: Map<Element, TextStats>, remove: (el: Element) => void): void {
  const level = Number(heading.nodeName.charAt(1));
  let next = heading.nextElementSibling;
  while (next) {
    if (HEADINGS.has(next.nodeName) && Number(next.nodeName.charAt(1)) <= level) break;
    const s = stats.get(next);
    const linky = linkDensity(s) > MAX_BLOCK_LINK_DENSITY || (s?.text ?? 0) <= MAX_TEASER_LENGTH;
    if (!linky) break;
    const after = next.nextElementSibling;
    remove(next);
    next = after;
  }
  remove(heading);
}
