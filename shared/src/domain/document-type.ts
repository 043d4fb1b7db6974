// What a response is: an HTML page, a document Trawl parses (PDF, DOCX) or passes through
// (text, markdown, JSON), or something else. Decided from the response, never from the
// URL's extension (a PDF at /download?id=7 is a PDF; an HTML page at /report.pdf is HTML).
import { Type, type Static } from '@sinclair/typebox';
import { fileTypeFromBuffer } from 'file-type';

export const DOCUMENT_KINDS = ['pdf', 'docx', 'text', 'markdown', 'json'] as const;
export type DocumentKind = (typeof DOCUMENT_KINDS)[number];
export const DocumentKindSchema = Type.Union(DOCUMENT_KINDS.map((k) => Type.Literal(k)));
export type DocumentKindValue = Static<typeof DocumentKindSchema>;

/** What a response holds. */
export type ResponseKind = DocumentKind | 'html' | 'other';

const DOCX_MIME = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
const MIME_KINDS: Record<string, ResponseKind> = {
  'text/html': 'html',
  'application/xhtml+xml': 'html',
  'application/pdf': 'pdf',
  'application/x-pdf': 'pdf',
  [DOCX_MIME]: 'docx',
  'text/plain': 'text',
  'text/markdown': 'markdown',
  'text/x-markdown': 'markdown',
  'application/json': 'json',
};
/** Labels that say nothing about the bytes: the signature decides. */
const GENERIC_MIMES = new Set(['', 'application/octet-stream', 'binary/octet-stream', 'application/download', 'application/x-download', 'application/force-download', 'application/unknown']);

/** The media type of a Content-Type header, lower-cased ("" when absent). */
export function mimeOf(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

/** What the label alone says; `undefined` when only the bytes can tell (generic or absent). */
export function kindFromMime(mime: string): ResponseKind | undefined {
  if (GENERIC_MIMES.has(mime)) return undefined;
  const known = MIME_KINDS[mime];
  if (known) return known;
  if (/^application\/[\w.+-]+\+json$/.test(mime)) return 'json';
  return 'other';
}

/**
 * Whether a response with this Content-Type may be a document, so that its body is worth
 * reading to find out (labelled documents, generic labels, and text a misconfigured server
 * may have put a PDF under). HTML is read anyway; images, video, archives are not.
 */
export function mayBeDocument(contentType: string | undefined): boolean {
  const kind = kindFromMime(mimeOf(contentType));
  return kind === undefined || (kind !== 'html' && kind !== 'other');
}

// Order (docs/api.md "Documents"):
//   1. the bytes' signature for the binary formats (file-type: %PDF- anywhere in the first
//      1024 bytes, as readers accept it; a ZIP holding word/document.xml): a server's label
//      cannot make PDF bytes into text, and misconfigured servers label PDFs
//      application/octet-stream, text/plain or nothing;
//   2. the Content-Type's media type: an explicit document type keeps its type even when
//      the bytes disagree (a corrupt PDF served as application/pdf fails as
//      DOCUMENT_UNREADABLE instead of becoming a page of garbage);
//   3. no or a generic Content-Type (octet-stream): markup is HTML, anything else is not a
//      document (the browser gets it, as before documents).
/** The kind of a response from its Content-Type and its first bytes (at least 4100 for DOCX). */
export async function detectResponseKind(contentType: string | undefined, bytes: Uint8Array): Promise<ResponseKind> {
  const signed = await signatureKind(bytes);
  if (signed) return signed;
  const labelled = kindFromMime(mimeOf(contentType));
  if (labelled) return labelled;
  return looksLikeMarkup(bytes) ? 'html' : 'other';
}

/** Whether the first bytes may be a signed document (PDF, or a ZIP that may be a DOCX). */
export function maySignDocument(bytes: Uint8Array): boolean {
  return hasPdfHeader(bytes) || (bytes[0] === 0x50 && bytes[1] === 0x4b);
}

async function signatureKind(bytes: Uint8Array): Promise<'pdf' | 'docx' | undefined> {
  if (hasPdfHeader(bytes)) return 'pdf';
  if (!maySignDocument(bytes)) return undefined; // not a ZIP: skip the library
  const type = await fileTypeFromBuffer(bytes).catch(() => undefined);
  return type?.ext === 'docx' ? 'docx' : undefined;
}

/** `%PDF-` within the first 1024 bytes (readers tolerate leading junk, and servers add it). */
export function hasPdfHeader(bytes: Uint8Array): boolean {
  return Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 1024)).includes('%PDF-', 0, 'latin1');
}

/** An OLE compound file: how Office stores an encrypted DOCX (and legacy .doc). */
export function isCompoundFile(bytes: Uint8Array): boolean {
  return bytes[0] === 0xd0 && bytes[1] === 0xcf && bytes[2] === 0x11 && bytes[3] === 0xe0;
}

/** Whether an unlabelled body may be HTML: it starts with markup (after a BOM and whitespace). */
export function looksLikeMarkup(bytes: Uint8Array): boolean {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 512)).toString('latin1');
  return /^\s*</.test(head.replace(/^\uFEFF|^\xEF\xBB\xBF/, ''));
}

/** The Content-Type a stored document gets: the served one when it names the kind, else the kind's. */
export function storedContentType(kind: DocumentKind, served: string | undefined): string {
  if (served && kindFromMime(mimeOf(served)) === kind) return served;
  return { pdf: 'application/pdf', docx: DOCX_MIME, text: 'text/plain; charset=utf-8', markdown: 'text/markdown; charset=utf-8', json: 'application/json' }[kind];
}

/**
 * What one document's parse may cost (docs/api.md "Documents"). The download cap
 * (DOCUMENT_MAX_BYTES) bounds the bytes on the wire, not what they inflate to: a 1 MB PDF
 * stream or DOCX entry can inflate to a gigabyte. Past any of these the document fails as
 * DOCUMENT_TOO_COMPLEX (final: the same bytes are as heavy next time).
 */
export const DOCUMENT_LIMITS = {
  /** Bytes decompressed for one document, every PDF stream (content, fonts, metadata, object
   *  and xref streams, each filter stage) and every DOCX ZIP entry together. */
  maxInflatedBytes: 128 * 1024 * 1024,
  /** Runs of text (pdf.js text items) in the pages of one PDF parsed: ~1 KB of memory and
   *  ~10 µs each; a long report has a few hundred a page. */
  maxPdfTextItems: 500_000,
  /** Characters of text in one document (PDF text runs; DOCX text, CDATA and comments):
   *  ~3,000 pages of prose. Text is what every later step copies (HTML, markdown), so it
   *  multiplies in memory (docs/benchmarks.md "Documents (scenario 13)"). */
  maxTextChars: 10_000_000,
  /** XML elements of one DOCX, all its XML parts together (a DOM costs ~0.5 KB each). */
  maxXmlElements: 500_000,
  /** Nesting depth of any XML element in a DOCX (Word's own stays far below). */
  maxXmlDepth: 256,
  /** Entries of one DOCX's ZIP (a Word file has a few dozen). */
  maxZipEntries: 10_000,
} as const;
