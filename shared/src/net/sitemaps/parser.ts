// Push parser for one sitemap file (pure: text in, URLs out, no IO). It is fed decoded text
// chunk by chunk straight from the HTTP stream, so a 50,000-URL sitemap never exists in
// memory as a whole string or a DOM.
// An entry's <lastmod> comes with its <loc>: the entry is handed on when it closes.
import { SaxesParser } from 'saxes';

export type SitemapLocKind = 'page' | 'sitemap';

export interface SitemapParserEvents {
  /** `lastmod`: the entry's <lastmod> as written (absent when it has none, and in text sitemaps). */
  onLoc(url: string, kind: SitemapLocKind, lastmod?: string): void;
}

const MAX_ERRORS = 100;
/** An `&` that does not start a well-formed entity or character reference. */
const BARE_AMPERSAND = /&(?!(?:#\d{1,7}|#x[0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9._-]{0,31});)/g;
const AMPERSAND_REF = '&#xE000;';
const AMPERSAND_CHAR = '\uE000';
/** Longest entity reference we wait for across a chunk boundary. */
const ENTITY_CARRY = 40;
/** Longest line of a text sitemap we keep (longer lines are not URLs). */
const MAX_TEXT_LINE = 4096;
const MAX_LOC_CHARS = 8192;
/** A W3C datetime is at most ~35 characters; anything much longer is not one. */
const MAX_LASTMOD_CHARS = 64;

function localName(name: string): string {
  const colon = name.indexOf(':');
  return (colon === -1 ? name : name.slice(colon + 1)).toLowerCase();
}

// Formats (sitemaps.org): <urlset> of <url><loc>, <sitemapindex> of <sitemap><loc>, and the
// plain-text form (one URL per line). Only a <loc> whose direct parent is <url> or <sitemap>
// counts, so extension locs (<image:image><image:loc>, <video:...>) are not taken as pages.
//
// Malformed input is tolerated: the parser keeps going after recoverable errors and keeps
// every <loc> it completed; after MAX_ERRORS errors the file is abandoned (an HTML page or
// binary junk served as a sitemap). Bare `&` in URLs, the most common sitemap defect, is
// escaped before parsing, because an XML parser would otherwise swallow everything up to
// the next `;` as an entity name. It is escaped as a private-use character reference and
// turned back into `&` afterwards, which also restores it inside CDATA sections (where a
// reference is not expanded).
export class SitemapParser {
  private mode: 'sniff' | 'xml' | 'text' = 'sniff';
  private xml: SaxesParser | undefined;
  private readonly stack: string[] = [];
  private loc: string | undefined;
  /** The open <url>/<sitemap> entry: its loc and lastmod once read. */
  private entry: { loc?: string; lastmod?: string } | undefined;
  private lastmod: string | undefined;
  private carry = '';
  private errorCount = 0;
  private abandoned = false;

  constructor(private readonly events: SitemapParserEvents) {}

  /** Errors seen so far (the file was malformed when > 0). */
  get errors(): number {
    return this.errorCount;
  }

  /** True when the file was given up as not a sitemap; further writes are ignored. */
  get gaveUp(): boolean {
    return this.abandoned;
  }

  write(chunk: string): void {
    if (this.abandoned) return;
    let text = this.carry + chunk;
    this.carry = '';
    if (this.mode === 'sniff') {
      text = text.replace(/^\uFEFF/, '');
      const first = text.search(/\S/);
      if (first === -1) { this.carry = text; return; }
      this.mode = text[first] === '<' ? 'xml' : 'text';
      if (this.mode === 'xml') this.xml = this.createXmlParser();
    }
    if (this.mode === 'text') return this.writeText(text, false);
    // Hold back a trailing `&...` that may be an entity cut by the chunk boundary.
    const amp = text.lastIndexOf('&');
    if (amp !== -1 && text.length - amp < ENTITY_CARRY && text.indexOf(';', amp) === -1) {
      this.carry = text.slice(amp);
      text = text.slice(0, amp);
    }
    this.writeXml(text);
  }

  /** End of input (also after a truncated or failed download: keeps what was complete). */
  end(): void {
    if (this.abandoned) return;
    const rest = this.carry;
    this.carry = '';
    if (this.mode === 'text') return this.writeText(rest, true);
    if (this.mode === 'xml') {
      this.writeXml(rest);
      try { this.xml?.close(); } catch { /* unclosed tags at the end: already counted */ }
    }
  }

  private writeXml(text: string): void {
    if (!text || !this.xml) return;
    try {
      this.xml.write(text.replace(BARE_AMPERSAND, AMPERSAND_REF));
    } catch {
      this.abandoned = true;
    }
  }

  private writeText(text: string, final: boolean): void {
    const lines = text.split(/\r?\n/);
    if (!final) this.carry = (lines.pop() ?? '').slice(0, MAX_TEXT_LINE);
    for (const line of lines) {
      const url = line.trim();
      if (/^https?:\/\/\S+$/i.test(url)) this.events.onLoc(url, 'page');
      else if (url) this.countError();
      if (this.abandoned) return;
    }
  }

  private appendLoc(text: string): void {
    if (this.lastmod !== undefined && this.lastmod.length < MAX_LASTMOD_CHARS) this.lastmod += text;
    if (this.loc === undefined) return;
    this.loc += text;
    // A loc longer than any real URL is junk; dropping it keeps memory bounded per loc.
    if (this.loc.length > MAX_LOC_CHARS) { this.loc = undefined; this.countError(); }
  }

  private countError(): void {
    this.errorCount++;
    if (this.errorCount >= MAX_ERRORS) this.abandoned = true;
  }

  private createXmlParser(): SaxesParser {
    const parser = new SaxesParser({ position: false });
    parser.on('opentag', (tag) => {
      const name = localName(tag.name);
      const parent = this.stack[this.stack.length - 1];
      this.stack.push(name);
      if ((name === 'url' || name === 'sitemap') && (parent === 'urlset' || parent === 'sitemapindex' || parent === undefined)) this.entry = {};
      if (name === 'loc' && (parent === 'url' || parent === 'sitemap')) this.loc = '';
      if (name === 'lastmod' && (parent === 'url' || parent === 'sitemap') && this.entry) this.lastmod = '';
    });
    parser.on('text', (text) => this.appendLoc(text.replaceAll(AMPERSAND_CHAR, '&')));
    parser.on('cdata', (text) => this.appendLoc(text.replaceAll(AMPERSAND_REF, '&')));
    parser.on('closetag', () => {
      const name = this.stack.pop();
      if (name === 'lastmod' && this.lastmod !== undefined) {
        const lastmod = this.lastmod.trim();
        if (this.entry && lastmod && lastmod.length < MAX_LASTMOD_CHARS) this.entry.lastmod = lastmod;
        this.lastmod = undefined;
        return;
      }
      if ((name === 'url' || name === 'sitemap') && this.entry) {
        const { loc, lastmod } = this.entry;
        this.entry = undefined;
        if (loc) this.events.onLoc(loc, name === 'sitemap' ? 'sitemap' : 'page', ...(lastmod ? [lastmod] : []));
        return;
      }
      if (name !== 'loc' || this.loc === undefined) return;
      const url = this.loc.trim();
      this.loc = undefined;
      const parent = this.stack[this.stack.length - 1];
      // Inside an entry the loc waits for the entry's close (its lastmod may follow); a loc
      // whose entry was not opened where the formats allow one is handed on at once.
      if (this.entry && (parent === 'url' || parent === 'sitemap')) this.entry.loc = url || undefined;
      else if (url) this.events.onLoc(url, parent === 'sitemap' ? 'sitemap' : 'page');
    });
    // Keep going after an error: saxes recovers from most of them (a stray `<`, an unknown
    // entity, a mismatched close tag); the loc being read when it happened is dropped.
    parser.on('error', () => {
      this.loc = undefined;
      this.lastmod = undefined;
      this.countError();
      if (this.abandoned) throw new Error('too many errors');
    });
    return parser;
  }
}
