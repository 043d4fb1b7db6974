// The final boilerplate pass, on the chosen content tree: what survives every candidate
// extractor because it sits inside the article's own container and carries no telling
// class name. Each rule reads general signals only: how much of a block is link text, how
// short it is, and the stock phrases that announce boilerplate in the languages of the big
// European web (en, de, fr, es, it, pt, pl, nl). A phrase is matched at the start of a short
// block only: "Read more:" opening a one-line teaser is boilerplate, the words inside a
// paragraph are not.
import { collapsedLength, hasText, linkDensity, textStats, type TextStats } from './text.js';

/** Openers of teaser lines that point to another article ("Read more: <headline>"). */
const TEASER_OPENER =
  /^(read (more|also|next)|see also|related|more on this|recommended|you (may|might) also like|also read|lesen sie (auch|mehr|hier)|auch lesen|mehr zum thema|mehr (themen|dazu|lesen)|weitere (artikel|beiträge|themen|nachrichten)|weiterlesen|das könnte (sie|dich) auch interessieren|das thema könnte (sie|dich) auch interessieren|entdecke (weitere|mehr)|entdecken sie (weitere|mehr)|discover more|auch interessant|hier geht('s| es) (zu(r|m)?|weiter)|empfohlene (beiträge|artikel)|beiträge zum thema|ähnliche (beiträge|artikel)|verwandte (beiträge|artikel|themen)|à lire (aussi|également)|lire (aussi|la suite)|voir aussi|sur le même sujet|lea (también|más|además)|lea:|vea (también|además)|le puede interesar|te puede interesar|más noticias|noticias relacionadas|leggi anche|potrebbe interessarti|articoli correlati|leia (também|mais)|veja também|zobacz (też|także|również)|czytaj (też|także|również|więcej)|przeczytaj (też|także)|lees ook|meer nieuws)(?![\p{L}])/iu;

/** Openers of calls to subscribe, follow or share (newsletters, apps, social accounts, paywalls). */
const CALL_TO_ACTION =
  /^(subscribe|sign up|signing up|follow (us|the)|download (the|our)|get the|never miss|join (us|our)|share (this|on)|abonnieren|abonniere|jetzt (abonnieren|anmelden|registrieren|teilen)|folgen sie|melden sie sich|abonnez|inscrivez|suivez|partagez|suscríbete|suscribete|síguenos|únete|iscriviti|seguici|assine|siga|zapraszamy|subskrybuj|obserwuj|abonneer|volg ons|support (us|our)|help us (continue|keep)|become a (member|supporter|patron)|donate|unterstütze|unterstützen sie (uns|unsere)|jetzt spenden|werde (mitglied|unterstützer)|soutenez|faites un don|devenez (membre|abonné)|hazte (miembro|socio)|apóyanos|dona ahora|sostienici|wesprzyj)(?![\p{L}])/iu;

/**
 * Prompts that are boilerplate wherever they stand in a short line: subscription and paywall
 * prompts, app promotion, "was this helpful?" and "share this article?" widgets, in the
 * same languages. A line about subscribing in an article body is rare; a prompt is common.
 */
const PROMPT =
  /\b(subscribe|subscribers?|subscription|abonnieren|abonnent(en)?|abonnez|suscr[ií]b\p{L}*|iscriviti|(download|get) (the|our)\b[^.]{0,60}\bapps?|was this (article|page|post) (helpful|useful)|war (der|dieser) (artikel|beitrag) (hilfreich|nützlich)|(möchten sie|willst du) (den|diesen) (artikel|beitrag) teilen|share this (article|story|post)|pour lire la suite|to (continue|keep) reading|um (weiter|den (ganzen|vollständigen) artikel) zu lesen|para (seguir|continuar) leyendo|per continuare a leggere|(telegram|whatsapp)[- ]?(kanal|channel)|(canal|channel|kanal) (de |on |auf |bei )?(telegram|whatsapp)|(teilen sie|teile) uns (ihre|deine) (erfahrung(en)?|meinung)|share your (experience|thoughts)|(sie müssen|du musst) (sich|dich) (einloggen|anmelden)|you (must|need to) (be )?(log(ged)? in|sign(ed)? in)|(log|sign) in to (comment|reply|post)|vous devez (être connecté|vous connecter)|debes (iniciar sesión|estar registrado))\b/iu;
const MAX_PROMPT_LENGTH = 200;

/**
 * Placeholders of embeds that wait for consent ("We respect your privacy and do not connect
 * to Twitter without your consent"): a short block naming both privacy and consent is the
 * placeholder, on any site that embeds social media under the GDPR.
 */
const CONSENT_PLACEHOLDER = /\b(privatsphäre|privacy|datenschutz|vie privée|privacidad)\b.*\b(einverständnis|einwilligung|zustimmung|consent|consentement|consentimiento)/isu;
const MAX_CONSENT_PLACEHOLDER_LENGTH = 300;

/** Server error output printed into the page (PHP warnings and notices), never content. */
const SERVER_ERROR = /^(warning|notice|deprecated|fatal error|parse error|strict standards)\s*:.*\bon line \d+/isu;
/** SERVER_ERROR's opening, tested on the first SERVER_ERROR_PREFIX characters of a block's text. */
const SERVER_ERROR_START = /^(warning|notice|deprecated|fatal error|parse error|strict standards)\s*:/iu;
const SERVER_ERROR_PREFIX = 40;

/** Photo credits and sources: "Foto: X", "Photo: AFP", "Bild: dpa", "Quelle: ...", "© 2020 ...". */
const CREDIT_LINE = /^(©|\(c\)|copyright|fotos?|photos?|bild(er)?|image|crédits?( photos?)?|credits?|quelle|source|fuente|fonte|źródło|bron)\s*[:©(/]/iu;

/** Figure captions written as text: "Abbildung 4: ...", "Fig. 2.", "Foto 3:". */
const FIGURE_LINE = /^(abbildung|abb\.|figure|fig\.|bild|foto|photo|imagen|figura|rysunek|ilustracja)\s*\d+\s*[:.]/iu;

/** Cookie notices: a short block that speaks of cookies is the consent banner, not the article. */
const COOKIE_NOTICE = /\bcookies?\b/iu;
const MAX_COOKIE_NOTICE_LENGTH = 300;

/**
 * A line that is only a date (with an optional label and time): "23.10.2018",
 * "Veröffentlichung: 2. Februar 2022", "Updated March 3, 2021, 10:15". The date is in the
 * metadata (publishedTime); in the text it is page furniture.
 */
const DATE = /(\d{1,4}[./-]\s?\d{1,2}[./-]\s?\d{2,4}|\d{1,2}\.?\s+\p{L}{3,12}\.?\s+\d{4}|\p{L}{3,12}\.?\s+\d{1,2},?\s+\d{4})/u;
const TIME = /\b\d{1,2}[:.h]\d{2}(\s?(am|pm|uhr|h))?\b/giu;
const MAX_DATE_LINE_LENGTH = 60;
/** What may stand beside the date in a date line: a label of up to this many characters. */
const MAX_DATE_LABEL = 25;

/** Headings that announce boilerplate sections (related articles, the author, comments, tags). */
const BOILERPLATE_HEADING =
  /^(related|more (from|stories|articles|news)|recommended|you (may|might) also like|popular|most read|trending|about the author|comments?|leave a (reply|comment)|tags|share|auch interessant|das könnte (sie|dich) auch interessieren|mehr (zum thema|themen)|weitere (artikel|beiträge|themen|nachrichten|meldungen)|empfohlen|ähnliche|meistgelesen|beliebt|über (den|die) autor|kommentare?|schlagwörter|themen im artikel|teilen|à lire|articles? (similaires|liés)|commentaires?|sur le même sujet|noticias relacionadas|más noticias|lo más (leído|visto)|comentarios?|te puede interesar|articoli correlati|commenti|leggi anche|zobacz (też|także)|komentarze|czytaj (też|także)|gerelateerd|reacties|entdecke (weitere|mehr)|discover more|meist-?(gelesen|diskutiert|kommentiert)|most (discussed|commented)|das thema könnte (sie|dich) auch interessieren|unterstütze|support us|hazte miembro)/iu;

/** The title of a table of contents (whose links go with the link-list rule). */
const TOC_TITLE = /^(inhaltsverzeichnis|inhalt|table of contents|contents|sommaire|table des matières|índice|indice|spis treści|inhoud|sisällys)$/iu;

/**
 * Interface controls written into the text: "Load more", "Show sources", "Back to the list",
 * "Permalink" (alone or followed by its URL). Every template with a button or a toggle has one; the whole line only, so a
 * sentence that starts with "Back to..." is untouched.
 */
const UI_CONTROL_LINE =
  /^[«‹<←]?\s*(zurück zu(r|m)?( [\p{L}-]+){0,3}|back to( [\p{L}-]+){0,3}|retour (à|aux?)( [\p{L}'-]+){0,3}|volver a( [\p{L}-]+){0,3}|(lade|mehr|weitere) (weitere )?(inhalte|artikel|beiträge)( laden| anzeigen)?|load more( [\p{L}]+)?|show (more|less|all)|mehr (anzeigen|laden)|weniger anzeigen|alle anzeigen|(quellen|details|mehr|kommentare) (ein|aus)blenden|voir plus|charger plus|ver más|cargar más|mostra (altro|di più)|pokaż więcej|(permalink|permalien|enlace permanente|kurzlink|short ?link)(\s*:?\s*https?:\/\/\S+)?)\s*(\.{3}|…)?$/iu;
const MAX_UI_CONTROL_LENGTH = 60;

/**
 * Disclaimers about the post rather than its subject: "The views expressed are the
 * author's", "Dieser Beitrag gibt die Meinung des Autors wieder", "Bei diesem Beitrag handelt
 * es sich um einen Blog/eine Anzeige". Stock sentences of opinion and community sections.
 */
const DISCLAIMER =
  /^(the (views|opinions) expressed|(dieser|der) (beitrag|artikel|text) gibt (die|ausschließlich die|nur die) meinung|bei (diesem|dem) (beitrag|artikel|text) handelt es sich um (ein|eine|einen) (blog|gastbeitrag|meinungsbeitrag|anzeige|pressemitteilung)|les opinions exprimées|las opiniones expresadas|le opinioni espresse)/iu;
const MAX_DISCLAIMER_LENGTH = 250;

/** An advertising label opening a line ("ANZEIGE - ...", "Advertisement: ..."): the line is the ad. */
const AD_LABEL = /^(anzeige|werbung|advertisement|sponsored|publicidad|publicité|pubblicità|reklama)\s*[-–—:|]/iu;

/** A byline label left alone when its name was a link that went ("Von:", "By:"). */
const LONE_LABEL = /^(von|by|autor(in)?|author|par|por|di|od)\s*:$/iu;

/** A boilerplate section title written as a plain line ("Über den Autor" in a <div>): the whole line only. */
const BOILERPLATE_LINE = /^(about the author|über (den|die) autor(in)?|à propos de l'auteur|sobre el autor|o autorze|share this( article| story| post)?|teilen|partager|compartir)[:.!]?$/iu;

/** Teaser lines and calls to action are short: one sentence, a headline. */
const MAX_TEASER_LENGTH = 200;
/** A credit is a line, not a paragraph. */
const MAX_CREDIT_LENGTH = 120;
/** Lists and blocks mostly made of links are navigation or related links (trafilatura's link-density test). */
const MAX_LIST_LINK_DENSITY = 0.6;
const MAX_BLOCK_LINK_DENSITY = 0.5;
/** ...unless they are long prose with a few links: only blocks up to this length are judged by links. */
const MAX_LINK_BLOCK_TEXT = 1000;
const MAX_LINK_BLOCK_SHARE = 0.5;

const BLOCKS = 'p, div, section, ul, ol, dl, table, blockquote, h1, h2, h3, h4, h5, h6, li, span, small, strong, em, b, i, a';
const HEADINGS = new Set(['H1', 'H2', 'H3', 'H4', 'H5', 'H6']);

export interface PruneReport {
  removed: number;
}

export interface PruneOptions {
  /**
   * Judge lists and blocks by their link text. Off for pages that are not articles
   * (listings, shops, home pages), whose content is links.
   */
  linkDensity: boolean;
}

/** Removes the boilerplate blocks of `root` (in place). The first <h1> (the title) is never touched. */
export function pruneBoilerplate(root: Element, options: PruneOptions = { linkDensity: true }): PruneReport {
  const stats = textStats(root);
  // A link list holding most of the content is the content (a listing, a directory page).
  const maxLinkBlock = Math.min(MAX_LINK_BLOCK_TEXT, MAX_LINK_BLOCK_SHARE * (stats.get(root)?.text ?? 0));
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
      // A heading that is a call or a prompt ("Subscribe to our newsletter", "To continue
      // reading, create an account") heads a boilerplate box just as "Related" does.
      const heading = textOf(el);
      const prompt = s.text <= MAX_PROMPT_LENGTH && (CALL_TO_ACTION.test(heading) || PROMPT.test(heading));
      if (prompt || BOILERPLATE_HEADING.test(heading) || TOC_TITLE.test(heading)) removeSection(el, stats, remove);
      continue;
    }
    if (isBoilerplateBlock(el, s, { ...options, linkDensity: options.linkDensity && s.text <= maxLinkBlock })) remove(el);
  }
  removed += trimTail(root, title);
  return { removed };
}

/** Blocks that hold text directly: the units the tail is made of. */
const LEAF_BLOCKS = new Set(['P', 'H2', 'H3', 'H4', 'H5', 'H6', 'LI', 'DIV', 'BLOCKQUOTE', 'DD', 'DT', 'TD', 'PRE', 'FIGCAPTION', 'SECTION']);
const CONTAINER_CHILDREN = new Set([...LEAF_BLOCKS, 'UL', 'OL', 'DL', 'TABLE', 'H1', 'ARTICLE', 'HEADER', 'FOOTER', 'FORM', 'FIGURE']);
/** A tail block is furniture when it is this short... */
const MAX_TAIL_SHORT = 15;
/** A sentence ends inside the text (and another starts): two sentences are prose, not a label. */
const SENTENCE_END = /[.!?…]["»“”']?\s+["„«“]?\p{Lu}/u;
/** A heading or call-out longer than this that ends like a sentence is a sentence. */
const MAX_TAIL_PHRASE = 60;
/** ...or a one-line call-out (all bold, or an introducer ending in ':') up to this length. */
const MAX_TAIL_CALLOUT = 250;

/**
 * Where the article ends, templates put their furniture: a closing "Follow us", a bold call
 * to subscribe, a lone "Share:", an orphan heading whose section was removed. Walking back
 * from the last block, such blocks are dropped until the first block of prose: a heading
 * with nothing after it, a line ending in ':' with nothing to introduce, a line that is all
 * bold, or a scrap under MAX_TAIL_SHORT characters. Prose ends the walk, so the
 * article body itself is never touched.
 */
function trimTail(root: Element, title: Element | null): number {
  // hasText, not textOf: the walk usually stops at the last block, so only it needs its text.
  const blocks = [...root.querySelectorAll('*')].filter((el) => LEAF_BLOCKS.has(el.nodeName) && !hasContainerChild(el) && hasText(el));
  let removed = 0;
  for (let i = blocks.length - 1; i > 0; i--) {
    const el = blocks[i]!;
    if (el === title || el.contains(title) || !isTailFurniture(el)) break;
    el.remove();
    removed++;
  }
  return removed;
}

function hasContainerChild(el: Element): boolean {
  for (const child of el.children) if (CONTAINER_CHILDREN.has(child.nodeName)) return true;
  return false;
}

/** List items, cells and code are data: a short one ends the walk (a spec table's last row is content). */
const DATA_BLOCKS = new Set(['LI', 'TD', 'DD', 'DT', 'PRE']);

function isTailFurniture(el: Element): boolean {
  if (DATA_BLOCKS.has(el.nodeName)) return false;
  const text = textOf(el);
  if (text.length <= MAX_TAIL_SHORT) return true;
  // Sentences in a heading tag are prose: templates that set a closing paragraph in <h4>
  // are common, and a real heading is a phrase. (Not so for bold: closing calls to follow
  // or write in are bold sentences.)
  const sentences = SENTENCE_END.test(text) || (text.length > MAX_TAIL_PHRASE && /[.!?…]$/u.test(text));
  if (HEADINGS.has(el.nodeName)) return !sentences;
  if (text.length > MAX_TAIL_CALLOUT) return false;
  if (text.endsWith(':')) return true;
  const emphasized = [...el.querySelectorAll('strong, b')].reduce((n, b) => (b.parentElement?.closest('strong, b') ? n : n + collapsedLength(b.textContent ?? '')), 0);
  return emphasized >= 0.9 * text.length;
}

function textOf(el: Element): string {
  return (el.textContent ?? '').replace(/\s+/g, ' ').trim();
}

/**
 * The start of textOf(el), at least `chars` characters of it when it is that long: text
 * nodes are read in document order until enough non-space text is gathered.
 */
function leadingText(el: Element, chars: number): string {
  let raw = '';
  let visible = 0;
  const visit = (node: Node): boolean => {
    for (let child = node.firstChild; child; child = child.nextSibling) {
      if (child.nodeType === 3 || child.nodeType === 4) {
        const data = (child as CharacterData).data;
        raw += data;
        // Non-space characters never exceed the collapsed length: enough of them is enough text.
        visible += collapsedLength(data);
        if (visible >= chars) return true;
      } else if (child.nodeType === 1 && visit(child)) {
        return true;
      }
    }
    return false;
  };
  visit(el);
  return raw.replace(/\s+/g, ' ').trim();
}

function isBoilerplateBlock(el: Element, s: TextStats, options: PruneOptions): boolean {
  const name = el.nodeName;
  // The block's text, built once (textContent of a big block is the costly part).
  let text: string | undefined;
  const textOfEl = (): string => (text ??= textOf(el));
  // Judged as a whole only where a block starts: inline elements are judged as lines below.
  if (s.text <= MAX_TEASER_LENGTH) {
    const text = textOfEl();
    if (TEASER_OPENER.test(text) || CALL_TO_ACTION.test(text) || TOC_TITLE.test(text) || BOILERPLATE_LINE.test(text)) return isLine(el);
    if (s.text <= MAX_PROMPT_LENGTH && PROMPT.test(text)) return isLine(el);
    if (AD_LABEL.test(text) || LONE_LABEL.test(text)) return isLine(el);
    if (s.text <= MAX_UI_CONTROL_LENGTH && UI_CONTROL_LINE.test(text)) return isLine(el);
    if (s.text <= MAX_CREDIT_LENGTH && (CREDIT_LINE.test(text) || FIGURE_LINE.test(text))) return isLine(el);
    if (s.text <= MAX_DATE_LINE_LENGTH && isDateLine(text)) return isLine(el);
  }
  if (s.text <= MAX_COOKIE_NOTICE_LENGTH && COOKIE_NOTICE.test(textOfEl()) && isLine(el)) return true;
  if (s.text <= MAX_DISCLAIMER_LENGTH && DISCLAIMER.test(textOfEl()) && isLine(el)) return true;
  if (s.text <= MAX_CONSENT_PLACEHOLDER_LENGTH && CONSENT_PLACEHOLDER.test(textOfEl()) && isLine(el)) return true;
  // Any length: the opening words decide first, so a big block's whole text is built only
  // when it starts like a server error.
  if (SERVER_ERROR_START.test(leadingText(el, SERVER_ERROR_PREFIX)) && SERVER_ERROR.test(textOfEl()) && isLine(el)) return true;
  if (!options.linkDensity) return false;
  if (name === 'UL' || name === 'OL' || name === 'DL') {
    return linkDensity(s) > MAX_LIST_LINK_DENSITY && itemCount(el) >= 2;
  }
  if (name === 'DIV' || name === 'SECTION' || name === 'P') {
    // A block around a data table (one with header cells) is data even when its rows link
    // their items: test results, product comparisons and timetables name each item by a link.
    return linkDensity(s) > MAX_BLOCK_LINK_DENSITY && hasSeveralLinks(el) && !el.querySelector('th');
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

function isDateLine(text: string): boolean {
  const match = DATE.exec(text);
  if (!match) return false;
  const rest = text.replace(match[0], '').replace(TIME, '').replace(/[\s,|:–—-]+/g, ' ').trim();
  return rest.length <= MAX_DATE_LABEL;
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
    // Links (the related list itself) or nothing to read (its thumbnails); prose ends the section.
    if (!(linkDensity(s) > MAX_BLOCK_LINK_DENSITY || (s?.text ?? 0) === 0)) break;
    const after = next.nextElementSibling;
    remove(next);
    next = after;
  }
  remove(heading);
}
