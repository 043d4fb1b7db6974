// The stock phrases of boilerplate lines in the languages of the big European web (en, de,
// fr, es, it, pt, pl, nl): teaser openers, calls to action, prompts, credits, date lines,
// consent notices, disclaimers. Words alone never delete content: prune.ts asks phraseKind()
// only about a block that its structure or position already marks (outside the article's
// prose, mostly link text, a call-out line, a credit next to an image). A phrase is matched
// on a short block's whole text, and mostly at its start: "Read more:" opening a one-line
// teaser is a teaser, the words inside a paragraph are not.
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

/** Headings that announce boilerplate sections (related articles, media on the topic, the author, comments, tags). */
const BOILERPLATE_HEADING =
  /^(related|more (from|stories|articles|news)|recommended|you (may|might) also like|popular|most read|trending|about the author|comments?|leave a (reply|comment)|tags|share|auch interessant|das könnte (sie|dich) auch interessieren|mehr (zum thema|themen)|weitere (artikel|beiträge|themen|nachrichten|meldungen)|empfohlen|ähnliche|meistgelesen|beliebt|über (den|die) autor|kommentare?|schlagwörter|themen im artikel|teilen|à lire|articles? (similaires|liés)|commentaires?|sur le même sujet|noticias relacionadas|más noticias|lo más (leído|visto)|comentarios?|te puede interesar|articoli correlati|commenti|leggi anche|zobacz (też|także)|komentarze|czytaj (też|także)|gerelateerd|reacties|entdecke (weitere|mehr)|discover more|meist-?(gelesen|diskutiert|kommentiert)|most (discussed|commented)|das thema könnte (sie|dich) auch interessieren|unterstütze|support us|hazte miembro|(audios? (and|et|und|y|e) )?vid[ée]os? (on the (topic|subject)|sur le (même )?sujet|zum thema|sobre el tema)|more on (this|the) (topic|story|subject))/iu;

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

/**
 * Affiliate disclosures: the site or its writer says, in the first person, that it earns
 * from the links ("We may earn a commission", "As an Amazon Associate I earn from qualifying
 * purchases", "This post contains affiliate links", "We are a reader-supported site").
 * Anywhere in the block: they often open with "Disclosure:" or a sentence about the site. An
 * article about affiliate marketing speaks of others ("bloggers earn a commission").
 */
const AFFILIATE_DISCLOSURE =
  /\b((we|i)( may| might| will| can| could)? (also )?(earn|receive|get|make)( a| an)?( small| affiliate)? (commissions?|compensation|kickback)|(this|our|the) (post|article|page|site|website|blog|content) (may )?(contains?|uses?|includes?) (some )?affiliate links|as an amazon associate|earn from qualifying purchases|(we are|is) a reader-supported|(buying|purchasing|buy|purchase) through (our |the )?links (on|in) (our|this) (site|article|page|post)|wir erhalten (eine|ggf\. eine) provision|(sind|enthält) (sog\. )?affiliate-links)/iu;
const MAX_DISCLOSURE_LENGTH = 400;

/** An advertising label opening a line ("ANZEIGE - ...", "Advertisement: ..."): the line is the ad. */
const AD_LABEL = /^(anzeige|werbung|advertisement|sponsored|publicidad|publicité|pubblicità|reklama)\s*[-–—:|]/iu;

/** A byline label left alone when its name was a link that went ("Von:", "By:"). */
const LONE_LABEL = /^(von|by|autor(in)?|author|par|por|di|od)\s*:$/iu;

/**
 * A byline written as a line of its own ("Written by Jane Doe", "Posted by David at
 * December 16, 2025"): the author is metadata. Not "Published by", which names a game's or a
 * book's publisher on a product card.
 */
const BYLINE = /^(written|posted|geschrieben|verfasst|écrit|escrito) (by|von|par|por)\b/iu;
const MAX_BYLINE_LENGTH = 80;

/** A boilerplate section title written as a plain line ("Über den Autor" in a <div>): the whole line only. */
const BOILERPLATE_LINE = /^(about the author|über (den|die) autor(in)?|à propos de l'auteur|sobre el autor|o autorze|share this( article| story| post)?|teilen|partager|compartir)[:.!]?$/iu;

/** Teaser lines and calls to action are short: one sentence, a headline. */
const MAX_TEASER_LENGTH = 200;
/** A credit is a line, not a paragraph. */
const MAX_CREDIT_LENGTH = 120;

/** What a short block's words say it is, when they say it is boilerplate. */
export type PhraseKind = 'teaser' | 'call' | 'prompt' | 'label' | 'control' | 'credit' | 'date' | 'consent' | 'disclaimer';

/**
 * The kind of boilerplate line a block's text reads as, or undefined. `length` is the text's
 * collapsed length. Only the whole text of a short block is matched.
 */
export function phraseKind(text: string, length: number): PhraseKind | undefined {
  if (length <= MAX_TEASER_LENGTH) {
    if (TEASER_OPENER.test(text) || TOC_TITLE.test(text) || BOILERPLATE_LINE.test(text)) return 'teaser';
    if (CALL_TO_ACTION.test(text)) return 'call';
    if (length <= MAX_PROMPT_LENGTH && PROMPT.test(text)) return 'prompt';
    if (AD_LABEL.test(text) || LONE_LABEL.test(text) || (length <= MAX_BYLINE_LENGTH && BYLINE.test(text))) return 'label';
    if (length <= MAX_UI_CONTROL_LENGTH && UI_CONTROL_LINE.test(text)) return 'control';
    if (length <= MAX_CREDIT_LENGTH && (CREDIT_LINE.test(text) || FIGURE_LINE.test(text))) return 'credit';
    if (length <= MAX_DATE_LINE_LENGTH && isDateLine(text)) return 'date';
  }
  if (length <= MAX_COOKIE_NOTICE_LENGTH && COOKIE_NOTICE.test(text)) return 'consent';
  if (length <= MAX_CONSENT_PLACEHOLDER_LENGTH && CONSENT_PLACEHOLDER.test(text)) return 'consent';
  if (length <= MAX_DISCLAIMER_LENGTH && DISCLAIMER.test(text)) return 'disclaimer';
  if (length <= MAX_DISCLOSURE_LENGTH && AFFILIATE_DISCLOSURE.test(text)) return 'disclaimer';
  return undefined;
}

/**
 * Whether a heading announces a boilerplate section ("Related", "Comments", "Subscribe to our
 * newsletter", a TOC title). A prompt must open the heading: a heading that only mentions one
 * ("Which Is The Best Audiobook Subscription Service?") heads the article's own last section.
 */
export function isBoilerplateHeading(text: string, length: number): boolean {
  if (length <= MAX_PROMPT_LENGTH && (CALL_TO_ACTION.test(text) || PROMPT.exec(text.trimStart())?.index === 0)) return true;
  return BOILERPLATE_HEADING.test(text) || TOC_TITLE.test(text);
}

/** Blocks that may be server error output: only their opening words are read first (big blocks are costly to join). */
export const SERVER_ERROR_PREFIX_LENGTH = SERVER_ERROR_PREFIX;

/** The characters SERVER_ERROR_START can begin with (under its flags: "ſ" folds to "s"). */
const SERVER_ERROR_INITIAL = /^[wndfps]/iu;

/**
 * PHP warnings and notices printed into the page: machine output, not prose, wherever they
 * stand. Asked about every block: its first visible character decides first, then its
 * opening words, and only then is its whole text joined.
 */
export function isServerError(initial: string, leading: () => string, whole: () => string): boolean {
  return SERVER_ERROR_INITIAL.test(initial) && SERVER_ERROR_START.test(leading()) && SERVER_ERROR.test(whole());
}

function isDateLine(text: string): boolean {
  const match = DATE.exec(text);
  if (!match) return false;
  const rest = text.replace(match[0], '').replace(TIME, '').replace(/[\s,|:–—-]+/g, ' ').trim();
  return rest.length <= MAX_DATE_LABEL;
}
