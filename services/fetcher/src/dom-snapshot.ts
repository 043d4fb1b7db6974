// The DOM as it was at DOMContentLoaded, kept in case the page's own scripts lose it.
//
// Why: at DOMContentLoaded the document is parsed (server-rendered content, deferred
// scripts run), so it holds what the site sent. After that, scripts can still take the
// content away: a client re-render that shows an error or an empty shell when its API
// calls fail (no cookies, blocked trackers, a region check), a `document.write` after load
// (which replaces the whole document), a script that clears the body, an interstitial that
// replaces the article. A settled DOM that lost most of the text the same document had at
// DOMContentLoaded is such a loss, not an update: scripts that add content (lazy parts,
// SPAs rendering after load, consent overlays) make the settled DOM grow, never shrink
// this much. So CaptureRun returns the DOMContentLoaded snapshot then (see preferSnapshot),
// and records it on the page_fetched event as `domSnapshot: 'domcontentloaded'`.
//
// Text is counted as the transformer sees it: text nodes of the body, outside script,
// style, noscript and template, whitespace trimmed; CSS visibility does not matter.
import type { Page } from 'playwright-core';

export interface DomMeasure {
  /** Characters of text in the body (see above). */
  textChars: number;
  /** performance.timeOrigin: the same value means the same document (history changes keep it). */
  timeOrigin: number;
}

export interface DomSnapshot extends DomMeasure {
  html: string;
  url: string;
}

/** A document with less text than this has no content worth keeping over a failure. */
export const CONTENT_MIN_CHARS = 200;
/** The settled DOM lost the content when it keeps less than this share of the snapshot's text. */
export const LOST_TEXT_RATIO = 0.5;

/** Reads a document in the page: the live one, or the served bytes (base64) parsed inertly. */
function readDocument(page: Page, servedBase64: string | null): Promise<DomMeasure & { html?: string }> {
  return page.evaluate((b64) => {
    let doc = document;
    if (b64 !== null) {
      const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      doc = new DOMParser().parseFromString(new TextDecoder(document.characterSet).decode(bytes), 'text/html');
    }
    const skip = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE']);
    let textChars = 0;
    if (doc.body) {
      const walker = doc.createTreeWalker(doc.body, NodeFilter.SHOW_TEXT, {
        acceptNode: (node) => (skip.has(node.parentNode?.nodeName ?? '') ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT),
      });
      while (walker.nextNode()) textChars += (walker.currentNode.nodeValue ?? '').trim().length;
    }
    const measure = { textChars, timeOrigin: performance.timeOrigin };
    if (b64 === null) return measure;
    const doctype = doc.doctype ? new XMLSerializer().serializeToString(doc.doctype) : '';
    return { ...measure, html: doctype + doc.documentElement.outerHTML };
  }, servedBase64);
}

export async function measureDom(page: Page): Promise<DomMeasure> {
  return readDocument(page, null);
}

/** The current document's HTML and measure, or undefined when it cannot be read now (navigating). */
export async function snapshotDom(page: Page): Promise<DomSnapshot | undefined> {
  try {
    const url = page.url();
    if (!/^https?:/.test(url)) return undefined;
    const measure = await measureDom(page);
    return { ...measure, html: await page.content(), url };
  } catch {
    return undefined;
  }
}

/**
 * The document as the server sent it (the main response's bytes), parsed in the page with
 * DOMParser (inert: no script runs, nothing loads) in the document's own encoding and
 * serialized like page.content(). For a document whose parsing stopped when a script
 * navigated away (Chromium stops the parser when a navigation starts) and whose
 * navigation then failed: the page keeps what the site sent.
 */
export async function parseServedDocument(page: Page, body: Buffer, url: string): Promise<DomSnapshot | undefined> {
  try {
    const { html, ...measure } = await readDocument(page, body.toString('base64'));
    return html === undefined ? undefined : { ...measure, html, url };
  } catch {
    return undefined;
  }
}

/** Whether the snapshot should stand for the page: same document, and the settled one lost most of its text. */
export function preferSnapshot(snapshot: DomSnapshot | undefined, settled: DomMeasure): snapshot is DomSnapshot {
  return snapshot !== undefined
    && snapshot.timeOrigin === settled.timeOrigin
    && snapshot.textChars >= CONTENT_MIN_CHARS
    && settled.textChars < snapshot.textChars * LOST_TEXT_RATIO;
}
