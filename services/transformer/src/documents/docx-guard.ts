// A DOCX's package checked before mammoth reads it (DOCUMENT_LIMITS, docs/api.md
// "Documents"): mammoth inflates the parts it needs whole and builds a DOM of each with no
// limit, so every entry is inflated here first, streaming and counted, and every XML part is
// read by a streaming parser (saxes) that counts elements and depth and refuses a DTD.
import type JSZip from 'jszip';
import { SaxesParser } from 'saxes';
import { DOCUMENT_LIMITS } from '../../../../shared/src/domain/document-type.js';
import { DocumentTooComplexError, DocumentUnreadableError, TrawlError } from '../../../../shared/src/domain/errors.js';
import { InflateBudget } from './budget.js';

/** A central-directory record's signature ("PK\x01\x02"): one per entry a ZIP reader reads. */
const CENTRAL_RECORD = Buffer.from([0x50, 0x4b, 0x01, 0x02]);

/**
 * Before jszip reads the package: at most DOCUMENT_LIMITS.maxZipEntries entries. jszip reads
 * every central-directory record there is (the count the end record states is only
 * compared afterwards), ~1 KB of objects each, and 32 MiB holds 400,000 of them. Counting
 * the records' signatures anywhere in the file can only count more than jszip would read.
 */
export function checkZipEntries(bytes: Uint8Array): void {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let count = 0;
  for (let at = buf.indexOf(CENTRAL_RECORD); at !== -1; at = buf.indexOf(CENTRAL_RECORD, at + 4)) {
    if (++count > DOCUMENT_LIMITS.maxZipEntries) throw new DocumentTooComplexError(`the DOCX has more than ${DOCUMENT_LIMITS.maxZipEntries} ZIP entries`);
  }
}

/** Parts that must be XML: the package's own parts and relationships. */
const XML_PART = /\.(?:xml|rels)$/i;

// What is checked:
//   - declared sizes (central directory) are summed first: an honest bomb stops before any
//     inflating; a lying one stops when the real bytes pass the budget;
//   - a DTD is refused (OPC, ECMA-376 part 2, forbids them in a package's parts; an internal
//     subset is where entity bombs live, refused in any entry), so no entity is ever
//     expanded by any reader after this;
//   - elements and depth are bounded (mammoth's DOM and its recursion), and so are the
//     characters of text (text, CDATA, comments: what mammoth's DOM and every later copy hold).
//   - ZIP entries are counted before jszip reads its directory (checkZipEntries).
// Past any limit: DocumentTooComplexError, at the first byte that passes it.
export async function guardDocx(zip: JSZip, budget = new InflateBudget('DOCX')): Promise<void> {
  const files = Object.values(zip.files).filter((f) => !f.dir);
  if (files.length > DOCUMENT_LIMITS.maxZipEntries) throw new DocumentTooComplexError(`the DOCX has ${files.length} ZIP entries (at most ${DOCUMENT_LIMITS.maxZipEntries})`);
  const declared = files.reduce((sum, f) => sum + declaredSize(f), 0);
  if (declared > budget.limitBytes) throw new DocumentTooComplexError(`the DOCX declares ${declared} bytes uncompressed (at most ${budget.limitBytes} per document)`);
  const xml = { elements: 0, chars: 0 };
  for (const file of files) await readEntry(file, budget, xml);
}

/** The entry's uncompressed size as its central directory states it (jszip keeps it, untyped). */
function declaredSize(file: JSZip.JSZipObject): number {
  const size = (file as unknown as { _data?: { uncompressedSize?: unknown } })._data?.uncompressedSize;
  return typeof size === 'number' && Number.isFinite(size) ? size : 0;
}

/** jszip's own streaming reader (documented, missing from its typings): pause() stops its inflater. */
interface EntryStream {
  on(event: 'data', listener: (chunk: Uint8Array) => void): EntryStream;
  on(event: 'error', listener: (err: Error) => void): EntryStream;
  on(event: 'end', listener: () => void): EntryStream;
  resume(): EntryStream;
  pause(): EntryStream;
}

/**
 * One entry inflated, counted and dropped. Read as XML: parts named .xml/.rels (strict: not
 * well-formed is DOCUMENT_UNREADABLE, as Word says), and any other entry that starts like
 * XML, since a relationship may point mammoth at any name (lenient: an SVG or an HTML
 * altChunk that is not well-formed XML is just not scanned further; the limits still hold
 * for what was read).
 */
function readEntry(file: JSZip.JSZipObject, budget: InflateBudget, xml: { elements: number; chars: number }): Promise<void> {
  return new Promise((resolve, reject) => {
    const stream = (file as unknown as { internalStream(type: 'uint8array'): EntryStream }).internalStream('uint8array');
    const strict = XML_PART.test(file.name);
    let parser: SaxesParser | undefined;
    let decoder: TextDecoder | undefined;
    let sinceTag = 0;
    let done = false;
    const fail = (err: unknown): void => {
      if (done) return;
      done = true;
      stream.pause(); // no more inflating: the rest of a bomb is never produced
      reject(err instanceof TrawlError ? err : new DocumentUnreadableError(`the DOCX entry ${file.name} could not be read (${(err as Error).message})`));
    };
    /** Feeds text to the parser; a lenient entry that turns out not to be XML stops being scanned. */
    const scan = (text: string, end: boolean): void => {
      if (!parser) return;
      try {
        parser.write(text);
        if (end) parser.close();
      } catch (err) {
        if (strict || err instanceof DocumentTooComplexError) throw err;
        parser = undefined;
      }
    };
    stream.on('data', (chunk) => {
      if (done) return;
      try {
        budget.take(chunk.length);
        if (!decoder) {
          decoder = new TextDecoder(chunk[0] === 0xff && chunk[1] === 0xfe ? 'utf-16le' : chunk[0] === 0xfe && chunk[1] === 0xff ? 'utf-16be' : 'utf-8');
          const head = new TextDecoder(decoder.encoding).decode(chunk.subarray(0, 256));
          if (strict || /^\uFEFF?\s*</.test(head)) parser = xmlLimits(file.name, xml, strict);
        }
        if (!parser) return;
        const text = decoder.decode(chunk, { stream: true });
        // saxes reports a run of text (or a comment) only once it ends, holding it meanwhile:
        // a stretch without markup longer than the document's whole text budget stops here.
        const lastTag = text.lastIndexOf('<');
        sinceTag = lastTag === -1 ? sinceTag + text.length : text.length - lastTag;
        if (sinceTag > DOCUMENT_LIMITS.maxTextChars) throw new DocumentTooComplexError(`the DOCX part ${file.name} has more than ${DOCUMENT_LIMITS.maxTextChars} characters without markup`);
        scan(text, false);
      } catch (err) {
        fail(err);
      }
    });
    stream.on('error', fail);
    stream.on('end', () => {
      if (done) return;
      try {
        if (parser) scan(decoder!.decode(), true);
        done = true;
        resolve();
      } catch (err) {
        fail(err);
      }
    });
    stream.resume();
  });
}

/** A streaming XML reader that only counts: elements and characters (all parts together), depth, no DTD. */
function xmlLimits(name: string, counts: { elements: number; chars: number }, strict: boolean): SaxesParser {
  const parser = new SaxesParser({ position: false });
  let depth = 0;
  parser.on('doctype', (doctype) => {
    // Entities are declared in a DTD's internal subset ([...]); an SVG's reference to the
    // external SVG DTD declares none (and no reader here fetches it).
    if (strict || doctype.includes('[')) {
      throw new DocumentTooComplexError(`the DOCX part ${name} declares a DTD: entity declarations are never expanded, and a package may not have one (ECMA-376 part 2)`);
    }
  });
  parser.on('opentag', (tag) => {
    if (++counts.elements > DOCUMENT_LIMITS.maxXmlElements) throw new DocumentTooComplexError(`the DOCX has more than ${DOCUMENT_LIMITS.maxXmlElements} XML elements`);
    if (tag.isSelfClosing) return; // saxes reports its closetag too
    if (++depth > DOCUMENT_LIMITS.maxXmlDepth) throw new DocumentTooComplexError(`the DOCX part ${name} nests XML elements deeper than ${DOCUMENT_LIMITS.maxXmlDepth}`);
  });
  const text = (value: string): void => {
    counts.chars += value.length;
    if (counts.chars > DOCUMENT_LIMITS.maxTextChars) throw new DocumentTooComplexError(`the DOCX has more than ${DOCUMENT_LIMITS.maxTextChars} characters of text`);
  };
  parser.on('text', text);
  parser.on('cdata', text);
  parser.on('comment', text);
  parser.on('closetag', (tag) => {
    if (!tag.isSelfClosing) depth--;
  });
  parser.on('error', (err) => {
    throw err instanceof TrawlError ? err : new DocumentUnreadableError(`the DOCX part ${name} is not well-formed XML (${err.message})`);
  });
  return parser;
}
