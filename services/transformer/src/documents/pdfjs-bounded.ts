// pdf.js with a decompression budget: pdf.js has no limit on what a stream may inflate to
// (a 1 MB FlateDecode stream becomes a 1 GiB buffer), so the two places every decoded byte
// goes through report to the budget of the document being parsed (budget.ts).
import fs from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { definePDFJSModule } from 'unpdf';
import type { InflateBudget } from './budget.js';

const HOOK = 'globalThis[Symbol.for("trawl.pdfjs.inflated")]';
const ENSURE_BUFFER = 'ensureBuffer(e){let t=this.buffer;if(e<=t.byteLength)return t;let n=this.minBufferLength;for(;n<e;)n*=2;';
const ASYNC_CHUNKS = 'for await(let e of n)a.push(e),o+=e.byteLength;';
const PATCHES: { at: string; becomes: string }[] = [
  // After the new size `n` is chosen, before `new Uint8Array(n)`.
  { at: ENSURE_BUFFER, becomes: `${ENSURE_BUFFER}${HOOK}?.(n-t.byteLength);` },
  // Each chunk the DecompressionStream gives, before it is kept.
  { at: ASYNC_CHUNKS, becomes: `for await(let e of n)${HOOK}?.(e.byteLength),a.push(e),o+=e.byteLength;` },
];

const active = new Set<InflateBudget>();
(globalThis as Record<symbol, unknown>)[Symbol.for('trawl.pdfjs.inflated')] = (bytes: number): void => {
  for (const budget of active) budget.take(bytes);
};

let loaded: Promise<void> | undefined;

// Every byte pdf.js decodes, whichever filter, stream or object it is (content, /Metadata,
// object streams, fonts; image-labelled and encrypted streams alike), goes through one of:
//   - DecodeStream.ensureBuffer, where every synchronous decoder (Flate, LZW, RunLength,
//     ASCII85/Hex, predictors) grows its output buffer: before the allocation;
//   - asyncGetBytesFromDecompressionStream, where pdf.js inflates with the platform's
//     DecompressionStream: per chunk, before keeping it.
// A budget that throws there stops the decoder before the allocation; pdf.js may catch it
// (a broken stream is skipped), so pdf.ts also checks the budget after each pdf.js call.
//
// How: unpdf's serverless pdf.js bundle is read, the two hooks are inserted at those exact
// places, and the result is loaded as unpdf's pdf.js (definePDFJSModule). The bundle is
// minified, so the places are matched as exact text: an upgrade of unpdf that changes them
// fails loudly here (and in test/unit/documents/document-bombs.test.ts), never silently.
// The hook is a global because pdf.js's "worker" runs in this same thread (unpdf's fake
// worker): one document at a time per transformer thread (transform-pool.ts).
/** Makes unpdf use the bounded pdf.js; once per thread (~0.7 s, the bundle's own load). */
export function loadBoundedPdfjs(): Promise<void> {
  loaded ??= (async () => {
    let source = await fs.readFile(fileURLToPath(import.meta.resolve('unpdf/pdfjs')), 'utf8');
    for (const { at, becomes } of PATCHES) {
      const found = source.split(at).length - 1;
      if (found !== 1) throw new Error(`pdfjs-bounded: expected one "${at}" in unpdf's pdf.js, found ${found}: unpdf changed, update the patch`);
      source = source.replace(at, () => becomes);
    }
    // A data: URL module: nothing written to disk; pdf.js's only import.meta uses are for
    // rendering and wasm image decoders, which text extraction does not reach.
    await definePDFJSModule(() => import(`data:text/javascript;base64,${Buffer.from(source).toString('base64')}`));
  })();
  return loaded;
}

/** Runs `parse` with every byte pdf.js decodes meanwhile counted against `budget`. */
export async function withPdfjsBudget<T>(budget: InflateBudget, parse: () => Promise<T>): Promise<T> {
  await loadBoundedPdfjs();
  active.add(budget);
  try {
    const result = await parse();
    budget.check();
    return result;
  } catch (err) {
    budget.check(); // the budget's error, when it is why pdf.js failed
    throw err;
  } finally {
    active.delete(budget);
  }
}
