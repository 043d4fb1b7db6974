// One document's decompression budget (DOCUMENT_LIMITS.maxInflatedBytes): every decoder
// that inflates bytes for the document (pdf.js's stream filters through pdfjs-bounded.ts,
// the DOCX ZIP entries through docx-guard.ts) counts them here as it produces them, so a
// compression bomb stops at the budget instead of at the machine's memory. Declared sizes
// (ZIP headers, PDF /Length) are never trusted for this: only bytes really produced count.
import { DOCUMENT_LIMITS } from '../../../../shared/src/domain/document-type.js';
import { DocumentTooComplexError } from '../../../../shared/src/domain/errors.js';

export class InflateBudget {
  private usedBytes = 0;
  /** Set once the budget is spent: every later take() throws it again. */
  exceeded: DocumentTooComplexError | undefined;

  constructor(private readonly what: string, readonly limitBytes: number = DOCUMENT_LIMITS.maxInflatedBytes) {}

  get used(): number {
    return this.usedBytes;
  }

  /** Counts `bytes` more inflated; throws DocumentTooComplexError past the budget, and on every call after. */
  take(bytes: number): void {
    if (this.exceeded) throw this.exceeded;
    this.usedBytes += bytes;
    if (this.usedBytes > this.limitBytes) {
      this.exceeded = new DocumentTooComplexError(`the ${this.what} decompresses to more than ${this.limitBytes} bytes (the per-document limit; a compression bomb or an unusually heavy document)`);
      throw this.exceeded;
    }
  }

  /**
   * Throws the budget's error if it was spent. Decoders run inside libraries that may catch
   * what the budget threw (pdf.js skips a broken stream and goes on): this is how the
   * caller finds out after each library call.
   */
  check(): void {
    if (this.exceeded) throw this.exceeded;
  }
}
