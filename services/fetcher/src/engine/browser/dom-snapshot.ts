// The DOM as it was at DOMContentLoaded, kept in case the page's own scripts lose it (an
// error shell after failed API calls, a late document.write, an interstitial). Scripts that
// add content make the settled DOM grow, never shrink this much, so a settled DOM that lost
// most of the snapshot's text is a loss and CaptureRun returns the snapshot instead
// (page_fetched `domSnapshot: 'domcontentloaded'`; docs/architecture.md "Pages whose
// scripts misbehave").
import crypto from 'node:crypto';
import type { Page } from 'playwright-core';

/** A document with less text than this has no content worth keeping over a failure. */
export const CONTENT_MIN_CHARS = 200;
/** The settled DOM lost the content when it keeps less than this share of the snapshot's text. */
export const LOST_TEXT_RATIO = 0.5;
/**
 * A settled DOM with less text than this may have lost the served document's content before
 * DOMContentLoaded (a script that replaced the body with a notice or a splash while the page
 * was parsed): the document as served is parsed and compared. Above it, no page is parsed twice.
 */
export const SERVED_CHECK_MAX_CHARS = 1000;

/**
 * Runs in the page: characters of text in a document's body, as the transformer sees them
 * (text nodes outside script, style, noscript and template, trimmed, open shadow roots
 * included: serialize() keeps them; CSS visibility does not matter). Taken by an init script
 * in the main frame's first DOMContentLoaded listener, so no page listener changes the
 * document first; only the count crosses to Node.
 */
function countText(doc: Document): number {
  const skip = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE']);
  let chars = 0;
  if (!doc.body) return 0;
  const scopes: Array<Element | ShadowRoot> = [doc.body];
  while (scopes.length > 0) {
    const walker = doc.createTreeWalker(scopes.pop()!, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (node.nodeType === 1) {
        const shadow = (node as Element).shadowRoot;
        if (shadow) scopes.push(shadow);
      } else if (!skip.has(node.parentNode?.nodeName ?? '')) {
        chars += (node.nodeValue ?? '').trim().length;
      }
    }
  }
  return chars;
}

/**
 * Runs in the page: the document serialized as page.content() does (doctype, root element),
 * except that open shadow roots are kept as declarative ones (`<template shadowrootmode>`):
 * outerHTML drops them, and a page built of web components would read as empty. Pages
 * without a shadow root (most) take the plain outerHTML path.
 */
function serialize(doc: Document): string {
  const doctype = doc.doctype ? new XMLSerializer().serializeToString(doc.doctype) : '';
  const root = doc.documentElement;
  if (!root) return doctype;
  const shadowRoots: ShadowRoot[] = [];
  const scopes: Array<Element | ShadowRoot> = [root];
  while (scopes.length > 0) {
    const walker = doc.createTreeWalker(scopes.pop()!, NodeFilter.SHOW_ELEMENT);
    for (let node: Node | null = walker.currentNode; node; node = walker.nextNode()) {
      const shadow = (node as Element).shadowRoot;
      if (shadow) { shadowRoots.push(shadow); scopes.push(shadow); }
    }
  }
  type WithGetHtml = Element & { getHTML?: (options: { shadowRoots: ShadowRoot[] }) => string };
  const getHTML = (root as WithGetHtml).getHTML;
  if (shadowRoots.length === 0 || typeof getHTML !== 'function') return doctype + root.outerHTML;
  const attrs = Array.from(root.attributes, (a) => ` ${a.name}="${a.value.replace(/&/g, '&amp;').replace(/"/g, '&quot;')}"`).join('');
  return `${doctype}<html${attrs}>${getHTML.call(root, { shadowRoots })}</html>`;
}

export interface TextCounts {
  /** Text characters of the DOMContentLoaded snapshot (undefined: none was taken). */
  snapshotChars?: number;
  /** Text characters of the document now. */
  settledChars: number;
}

export class DomSnapshots {
  private readonly key = `__trawl_${crypto.randomBytes(8).toString('hex')}`;

  private constructor(private readonly page: Page) {}

  /** Installs the DOMContentLoaded snapshot on every document the page loads from now on. */
  static async install(page: Page): Promise<DomSnapshots> {
    const snapshots = new DomSnapshots(page);
    await page.addInitScript({
      content: `(() => {
        if (window !== window.top) return;
        const countText = ${countText.toString()};
        const serialize = ${serialize.toString()};
        let snapshot;
        document.addEventListener('DOMContentLoaded', () => {
          snapshot = { chars: countText(document), html: serialize(document) };
        }, { once: true, capture: true });
        Object.defineProperty(window, ${JSON.stringify(snapshots.key)}, {
          value: (part) => (part === 'html' ? snapshot && snapshot.html : snapshot ? snapshot.chars : undefined),
          enumerable: false,
        });
      })();`,
    });
    return snapshots;
  }

  /**
   * The counts and the document now, serialized as page.content() does, in one evaluate:
   * the settled DOM is read once whatever the counts then decide.
   */
  async countsAndHtml(): Promise<TextCounts & { html: string }> {
    return this.page.evaluate(`(() => {
      const read = window[${JSON.stringify(this.key)}];
      const snapshotChars = read ? read('chars') : undefined;
      return { settledChars: (${countText.toString()})(document), html: (${serialize.toString()})(document), ...(snapshotChars === undefined ? {} : { snapshotChars }) };
    })()`);
  }

  async html(): Promise<string | undefined> {
    return this.page.evaluate(`(() => { const read = window[${JSON.stringify(this.key)}]; return read ? read('html') : undefined; })()`);
  }

  /**
   * The document as the server sent it (the main response's bytes), parsed in the page
   * with DOMParser (inert: no script runs, nothing loads) in the document's own encoding
   * and serialized like page.content(). For a document whose parsing stopped when a script
   * navigated away (Chromium stops the parser when a navigation starts) and whose
   * navigation then failed: the page keeps what the site sent.
   */
  async parseServed(body: Buffer): Promise<{ chars: number; html: string } | undefined> {
    return this.page.evaluate(`(() => {
      const bytes = Uint8Array.from(atob(${JSON.stringify(body.toString('base64'))}), (c) => c.charCodeAt(0));
      const doc = new DOMParser().parseFromString(new TextDecoder(document.characterSet).decode(bytes), 'text/html');
      return { chars: (${countText.toString()})(doc), html: (${serialize.toString()})(doc) };
    })()`).then((r) => r as { chars: number; html: string }, () => undefined);
  }
}

/**
 * Whether the document as served should stand for the page: the settled document has no
 * content of its own, or lost most of the served document's text (which counts the
 * <noscript> content a reader without scripts gets: DOMParser parses it as markup).
 */
export function preferServed(settledChars: number, servedChars: number): boolean {
  return servedChars >= CONTENT_MIN_CHARS && (settledChars < CONTENT_MIN_CHARS || settledChars < servedChars * LOST_TEXT_RATIO);
}

/** Whether the snapshot should stand for the page: the settled document lost most of its text. */
export function preferSnapshot(counts: TextCounts): boolean {
  return counts.snapshotChars !== undefined
    && counts.snapshotChars >= CONTENT_MIN_CHARS
    && counts.settledChars < counts.snapshotChars * LOST_TEXT_RATIO;
}
