// DOCX bytes -> HTML through mammoth (headings, lists, tables and links from the document's
// styles), then the same markdown conversion as web pages (transform.ts), so tables come
// out as GFM. Title, author and page count come from the package's core and app properties.
// Nothing reads the package before docx-guard.ts has: every entry inflated within the
// document's budget, every XML part within its element and depth limits and without a DTD.
import JSZip from 'jszip';
import mammoth from 'mammoth';
import { DOMParser } from 'linkedom';
import { isCompoundFile } from '../../../../shared/src/domain/document-type.js';
import { DocumentEncryptedError, DocumentUnreadableError } from '../../../../shared/src/domain/errors.js';
import { InflateBudget } from './budget.js';
import { checkZipEntries, guardDocx } from './docx-guard.js';
import type { ParsedDocument } from './types.js';

/** `budget`: the document's (DOCUMENT_LIMITS.maxInflatedBytes); tests pass their own to read it. */
export async function parseDocx(bytes: Uint8Array, budget = new InflateBudget('DOCX')): Promise<Omit<ParsedDocument, 'markdown'> & { html: string }> {
  // Office encrypts a DOCX by wrapping it in an OLE compound file (so does legacy .doc).
  if (isCompoundFile(bytes)) throw new DocumentEncryptedError('the document is an encrypted (password-protected) Office file or a legacy .doc, not a readable DOCX');
  checkZipEntries(bytes);
  let zip: JSZip;
  try {
    zip = await JSZip.loadAsync(bytes);
  } catch (err) {
    throw new DocumentUnreadableError(`the DOCX is not a readable ZIP package (${(err as Error).message})`);
  }
  if (!zip.file('word/document.xml')) throw new DocumentUnreadableError('the DOCX has no word/document.xml');
  await guardDocx(zip, budget);
  let html: string;
  try {
    // Embedded images have no URL: not base64-encoded into the HTML (tidy() keeps their alt text).
    const convertImage = mammoth.images.imgElement(() => Promise.resolve({ src: '' }));
    html = (await mammoth.convertToHtml({ buffer: Buffer.from(bytes) }, { convertImage })).value;
  } catch (err) {
    throw new DocumentUnreadableError(`the DOCX could not be converted (${(err as Error).message})`);
  }
  html = tidy(html);
  const core = await xml(zip, 'docProps/core.xml');
  const app = await xml(zip, 'docProps/app.xml');
  const pages = Number.parseInt(app?.pick('Pages') ?? '', 10);
  return {
    html,
    ...optional('title', core?.pick('dc:title')),
    ...optional('author', core?.pick('dc:creator')),
    ...(Number.isInteger(pages) && pages > 0 ? { pageCount: pages } : {}),
  };
}

/**
 * mammoth's HTML made ready for the page pipeline:
 *   - Word tables rarely mark a header row, and mammoth only emits <th> for rows that do; a
 *     GFM table needs one, so a table without any gets its first row as the header (as a
 *     reader would take it) instead of an empty header above the data;
 *   - an embedded image (no URL to point to) becomes its alt text, or nothing.
 */
function tidy(html: string): string {
  if (!html.includes('<table') && !html.includes('<img')) return html;
  const doc = new DOMParser().parseFromString(`<!doctype html><html><body>${html}</body></html>`, 'text/html');
  for (const img of [...doc.querySelectorAll('img')]) {
    const alt = img.getAttribute('alt')?.trim();
    if (alt) img.replaceWith(doc.createTextNode(alt));
    else img.remove();
  }
  for (const table of doc.querySelectorAll('table')) {
    if (table.querySelector('th')) continue;
    const first = table.querySelector('tr');
    for (const td of first ? [...first.querySelectorAll('td')] : []) {
      const th = doc.createElement('th', {});
      th.innerHTML = td.innerHTML;
      td.replaceWith(th);
    }
  }
  return doc.body.innerHTML;
}

/** One small XML part of the package, read with a real XML parser (entities, CDATA). */
async function xml(zip: JSZip, name: string): Promise<{ pick(tag: string): string | undefined } | undefined> {
  const source = await zip.file(name)?.async('string').catch(() => undefined);
  if (!source) return undefined;
  const doc = new DOMParser().parseFromString(source, 'text/xml');
  return { pick: (tag) => doc.getElementsByTagName(tag)[0]?.textContent?.trim() || undefined };
}

function optional<K extends string>(key: K, value: string | undefined): Partial<Record<K, string>> {
  return value ? ({ [key]: value } as Record<K, string>) : {};
}
