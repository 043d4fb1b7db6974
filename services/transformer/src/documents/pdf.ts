// PDF bytes -> markdown and metadata through pdf.js (unpdf's build of it, which needs no
// worker or canvas in Node): the text layer of each page (streamTextContent) goes through the
// layout heuristics of pdf-layout.ts (pdf.js's font family marks monospaced runs: code). Runs inside a transformer worker thread
// (transform-thread.ts), where a parse that runs too long is stopped by terminating the thread.
// Every byte pdf.js decodes counts against the document's budget (pdfjs-bounded.ts): a
// compression bomb fails as DOCUMENT_TOO_COMPLEX once it has inflated the budget, whichever
// stream it hides in; pages past maxPages are never read.
import { getDocumentProxy } from 'unpdf';
import { DOCUMENT_LIMITS } from '../../../../shared/src/domain/document-type.js';
import { DocumentEncryptedError, DocumentTooComplexError, DocumentUnreadableError } from '../../../../shared/src/domain/errors.js';
import { InflateBudget } from './budget.js';
import { withPdfjsBudget } from './pdfjs-bounded.js';
import { needsOcr, pagesWithoutText, pdfPagesToMarkdown, type PdfPageText, type PdfTextItem } from './pdf-layout.js';
import type { ParsedDocument } from './types.js';

type PdfDocument = Awaited<ReturnType<typeof getDocumentProxy>>;
interface TextItem { str: string; transform: unknown; width: number; fontName: string }

/** Text of one document (DOCUMENT_LIMITS.maxPdfTextItems, maxTextChars): what its markdown is made of, and held. */
class ItemBudget {
  private items = 0;
  private chars = 0;
  /** Counts one more run of `chars` characters; the error past a budget (returned: the caller decides when to throw). */
  take(chars: number): DocumentTooComplexError | undefined {
    this.items += 1;
    this.chars += chars;
    if (this.items > DOCUMENT_LIMITS.maxPdfTextItems) return new DocumentTooComplexError(`the PDF has more than ${DOCUMENT_LIMITS.maxPdfTextItems} runs of text in the pages parsed`);
    if (this.chars > DOCUMENT_LIMITS.maxTextChars) return new DocumentTooComplexError(`the PDF has more than ${DOCUMENT_LIMITS.maxTextChars} characters of text in the pages parsed`);
    return undefined;
  }
}

/** `budget`: the document's (DOCUMENT_LIMITS.maxInflatedBytes); tests pass their own to read it. */
export function parsePdf(bytes: Uint8Array, maxPages: number, budget = new InflateBudget('PDF')): Promise<ParsedDocument> {
  return withPdfjsBudget(budget, () => parse(bytes, maxPages, budget));
}

async function parse(bytes: Uint8Array, maxPages: number, budget: InflateBudget): Promise<ParsedDocument> {
  const pdf = await open(bytes, budget);
  try {
    // pdf.js reads the XMP /Metadata stream here too: a bomb there spends the budget.
    const info = await pdf.getMetadata().then((m) => m.info as Record<string, unknown>, () => ({} as Record<string, unknown>));
    budget.check();
    const pageCount = pdf.numPages;
    const pagesParsed = Math.min(pageCount, maxPages);
    const pages: PdfPageText[] = [];
    const textItems = new ItemBudget();
    for (let n = 1; n <= pagesParsed; n++) {
      pages.push(await pageText(pdf, n, budget, textItems));
      budget.check(); // pdf.js skips a stream that failed (the budget's throw included) and goes on
    }
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

async function open(bytes: Uint8Array, budget: InflateBudget): Promise<PdfDocument> {
  try {
    // pdf.js takes ownership of (detaches) the buffer it is given: hand it a copy.
    return await getDocumentProxy(new Uint8Array(bytes), { isEvalSupported: false, verbosity: 0, stopAtErrors: false } as Parameters<typeof getDocumentProxy>[1]);
  } catch (err) {
    budget.check();
    const name = (err as { name?: string }).name;
    const message = (err as Error).message ?? String(err);
    if (name === 'PasswordException') throw new DocumentEncryptedError('the PDF is password-protected: its text cannot be read without the password');
    throw new DocumentUnreadableError(`the PDF could not be read (${message})`);
  }
}

async function pageText(pdf: PdfDocument, n: number, budget: InflateBudget, textItems: ItemBudget): Promise<PdfPageText> {
  let page;
  try {
    page = await pdf.getPage(n);
  } catch (err) {
    budget.check();
    throw new DocumentUnreadableError(`page ${n} of the PDF could not be read (${(err as Error).message})`);
  }
  try {
    // Streamed (getTextContent's own loop): a page of a million text runs (1 MB of content
    // stream) is not held whole. Past the item budget the rest of the page is read and
    // dropped, not cancelled: pdf.js's side would enqueue into the cancelled stream and throw
    // where nothing catches it. What that costs in time is bounded by the parse's time cap.
    const items: PdfTextItem[] = [];
    const styles: Record<string, { fontFamily?: string }> = {};
    let over: DocumentTooComplexError | undefined;
    for await (const chunk of page.streamTextContent() as unknown as AsyncIterable<{ items: unknown[]; styles: Record<string, { fontFamily?: string }> }>) {
      if (over) continue;
      Object.assign(styles, chunk.styles);
      for (const item of chunk.items as TextItem[]) {
        if (!('str' in item)) continue;
        over = textItems.take(item.str.length);
        if (over) break;
        const [a, b, , d, e, f] = item.transform as number[];
        // The font size is the text matrix's vertical scale (rotated text: its length).
        const mono = styles[item.fontName]?.fontFamily === 'monospace';
        items.push({ text: item.str, x: e!, y: f!, width: item.width, fontSize: Math.hypot(b!, d!) || Math.abs(a!), ...(mono ? { mono } : {}) });
      }
    }
    if (over) throw over;
    return { items };
  } catch (err) {
    budget.check();
    if (err instanceof DocumentTooComplexError) throw err;
    throw new DocumentUnreadableError(`the text of page ${n} could not be read (${(err as Error).message})`);
  } finally {
    page.cleanup();
  }
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}
