// PDF bytes -> markdown and metadata through pdf.js (unpdf's build of it, which needs no
// worker or canvas in Node): the text layer of each page (getTextContent) goes through the
// layout heuristics of pdf-layout.ts (pdf.js's font family marks monospaced runs: code). Runs inside a transformer worker thread
// (transform-thread.ts), where a parse that runs too long is stopped by terminating the thread.
import { getDocumentProxy } from 'unpdf';
import { DocumentEncryptedError, DocumentUnreadableError } from '../../../../shared/src/errors.js';
import { needsOcr, pagesWithoutText, pdfPagesToMarkdown, type PdfPageText, type PdfTextItem } from './pdf-layout.js';
import type { ParsedDocument } from './types.js';

type PdfDocument = Awaited<ReturnType<typeof getDocumentProxy>>;

export async function parsePdf(bytes: Uint8Array, maxPages: number): Promise<ParsedDocument> {
  const pdf = await open(bytes);
  try {
    const info = await pdf.getMetadata().then((m) => m.info as Record<string, unknown>, () => ({} as Record<string, unknown>));
    const pageCount = pdf.numPages;
    const pagesParsed = Math.min(pageCount, maxPages);
    const pages: PdfPageText[] = [];
    for (let n = 1; n <= pagesParsed; n++) pages.push(await pageText(pdf, n));
    const ocr = needsOcr(pages);
    const blank = ocr ? [] : pagesWithoutText(pages);
    return {
      markdown: ocr ? '' : pdfPagesToMarkdown(pages),
      ...(blank.length ? { pagesWithoutText: blank } : {}),
      title: text(info.Title),
      author: text(info.Author),
      pageCount,
      pagesParsed,
      needsOcr: ocr,
    };
  } finally {
    // Frees the document's state (through its loading task in this pdf.js build).
    const handle = pdf as unknown as { destroy?: () => Promise<void>; loadingTask?: { destroy(): Promise<void> } };
    await (handle.destroy?.() ?? handle.loadingTask?.destroy())?.catch(() => undefined);
  }
}

async function open(bytes: Uint8Array): Promise<PdfDocument> {
  try {
    // pdf.js takes ownership of (detaches) the buffer it is given: hand it a copy.
    return await getDocumentProxy(new Uint8Array(bytes), { isEvalSupported: false, verbosity: 0, stopAtErrors: false } as Parameters<typeof getDocumentProxy>[1]);
  } catch (err) {
    const name = (err as { name?: string }).name;
    const message = (err as Error).message ?? String(err);
    if (name === 'PasswordException') throw new DocumentEncryptedError('the PDF is password-protected: its text cannot be read without the password');
    throw new DocumentUnreadableError(`the PDF could not be read (${message})`);
  }
}

async function pageText(pdf: PdfDocument, n: number): Promise<PdfPageText> {
  let page;
  try {
    page = await pdf.getPage(n);
  } catch (err) {
    throw new DocumentUnreadableError(`page ${n} of the PDF could not be read (${(err as Error).message})`);
  }
  try {
    const content = await page.getTextContent();
    const items: PdfTextItem[] = [];
    for (const item of content.items) {
      if (!('str' in item)) continue;
      const [a, b, , d, e, f] = item.transform as number[];
      // The font size is the text matrix's vertical scale (rotated text: its length).
      const mono = content.styles[item.fontName]?.fontFamily === 'monospace';
      items.push({ text: item.str, x: e!, y: f!, width: item.width, fontSize: Math.hypot(b!, d!) || Math.abs(a!), ...(mono ? { mono } : {}) });
    }
    return { items };
  } catch (err) {
    throw new DocumentUnreadableError(`the text of page ${n} could not be read (${(err as Error).message})`);
  } finally {
    page.cleanup();
  }
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}
