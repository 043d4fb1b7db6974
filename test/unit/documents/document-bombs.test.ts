// Bounded document parsing (issue 20, item 4): given a compression bomb of each class,
// small on disk and 1.1 GiB inflated (test/support/document-bombs.ts), or a complexity bomb
// within the inflate budget (text runs, text, elements, depth, ZIP entries, entities), then
// the parser refuses it with DOCUMENT_TOO_COMPLEX (final: given up at the first delivery)
// having inflated no more than its budget (DOCUMENT_LIMITS, plus what one decoder asks for
// at once), instead of the whole bomb; ordinary documents still parse; and the same holds
// through the transformer's thread pool, where the error has to cross a thread.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DOCUMENT_LIMITS } from '../../../shared/src/domain/document-type.js';
import { ackDecision, DocumentTooComplexError, toTrawlError } from '../../../shared/src/domain/errors.js';
import { normalizeScrapeOptions } from '../../../shared/src/domain/scrape-options.js';
import { InflateBudget } from '../../../services/transformer/src/documents/budget.js';
import { parseDocx } from '../../../services/transformer/src/documents/docx.js';
import { parsePdf } from '../../../services/transformer/src/documents/pdf.js';
import { parseDocument } from '../../../services/transformer/src/consumer.js';
import { TransformPool, type TransformInput } from '../../../services/transformer/src/index.js';
import {
  contentBombPdf, entityBombDocx, entityXmpPdf, GIB_1_1, longRunsPdf, manyElementsDocx, manyEntriesDocx, mediaBombDocx, metadataBombPdf, nestedXmlDocx, objectStreamBombPdf, smallPdf, textHeavyDocx, textRunsPdf, zipEntryBombDocx,
} from '../../support/document-bombs.js';
import { memoDocx, reportPdf } from '../../support/documents.js';

const FIRST_DELIVERY = { deliveryCount: 1, maxDeliver: 3 };
/** What one decoder may ask for past the budget in one report (pdf.js doubles its buffer): counted, never allocated. */
const SLACK_BYTES = DOCUMENT_LIMITS.maxInflatedBytes;

async function refused(parse: () => Promise<unknown>, message: RegExp): Promise<void> {
  const err = await parse().then(() => undefined, (e: unknown) => e);
  assert.ok(err instanceof DocumentTooComplexError, `expected DOCUMENT_TOO_COMPLEX, got ${String(err)}`);
  assert.equal(err.code, 'DOCUMENT_TOO_COMPLEX');
  assert.match(err.message, message);
  assert.equal(ackDecision(err, FIRST_DELIVERY).kind, 'giveUp');
}

describe('document compression bombs', () => {
  const pdfBombs = { 'content stream': contentBombPdf, '/Metadata stream': metadataBombPdf, 'object stream': objectStreamBombPdf };
  for (const [where, make] of Object.entries(pdfBombs)) {
    test(`given a PDF whose ${where} inflates to 1.1 GiB, then DOCUMENT_TOO_COMPLEX once the budget is spent, not after the whole bomb`, async (t) => {
      const bytes = await make();
      assert.ok(bytes.length < 64 * 1024, `small on disk (${bytes.length} bytes)`);
      const budget = new InflateBudget('PDF');
      const started = performance.now();
      await refused(() => parsePdf(bytes, 1000, budget), /decompresses to more than 134217728 bytes/);
      t.diagnostic(`refused after ${Math.round(performance.now() - started)} ms, ${budget.used} bytes inflated of ${GIB_1_1}`);
      assert.ok(budget.used > budget.limitBytes && budget.used <= budget.limitBytes + SLACK_BYTES, `inflated ${budget.used} bytes`);
    });
  }

  test('given a PDF of 600,000 runs of text on one page (a complexity bomb of 70 KB, within the inflate budget), then refused at the text budget', async () => {
    const bytes = textRunsPdf(600_000);
    assert.ok(bytes.length < 100 * 1024, `small on disk (${bytes.length} bytes)`);
    await refused(() => parsePdf(bytes, 1000), new RegExp(`more than ${DOCUMENT_LIMITS.maxPdfTextItems} runs of text`));
  });

  test('given a PDF of 25,000 runs of 496 letters (12 million characters, a few KB), then refused at the text budget', async () => {
    await refused(() => parsePdf(longRunsPdf(25_000), 1000), new RegExp(`more than ${DOCUMENT_LIMITS.maxTextChars} characters of text`));
  });

  test('given a PDF whose XMP metadata declares the "billion laughs" entities, then it parses: pdf.js expands no declared entity', async () => {
    const out = await parsePdf(entityXmpPdf(), 1000);
    assert.equal(out.markdown, 'Hello from a small page');
  });

  test('given ordinary documents, then they still parse, and what pdf.js and the ZIP reader inflate is counted', async () => {
    const pdfBudget = new InflateBudget('PDF');
    const report = await parsePdf(await reportPdf(), 1000, pdfBudget);
    assert.match(report.markdown, /^# Annual Results$/m);
    assert.ok(pdfBudget.used > 0, 'pdf.js reported its decoding (its hooks are in place)');
    assert.equal((await parsePdf(smallPdf(), 1000)).markdown, 'Hello from a small page');
    const docxBudget = new InflateBudget('DOCX');
    assert.match((await parseDocx(await memoDocx(), docxBudget)).html, /<h1>Launch Plan<\/h1>/);
    assert.ok(docxBudget.used > 1000, `the package's entries were inflated and counted (${docxBudget.used} bytes)`);
    // A budget smaller than an ordinary document needs stops it the same way.
    await refused(async () => parsePdf(await reportPdf(), 1000, new InflateBudget('PDF', 100)), /more than 100 bytes/);
    await refused(async () => parseDocx(await memoDocx(), new InflateBudget('DOCX', 100)), /DOCX declares \d+ bytes uncompressed/);
  });

  test('given a DOCX whose word/document.xml (one run of text) inflates to 1.1 GiB while its ZIP headers say 4 KB, then DOCUMENT_TOO_COMPLEX once the run passes the text budget', async (t) => {
    const bytes = await zipEntryBombDocx();
    assert.ok(bytes.length < 2 * 1024 * 1024, `small on disk (${bytes.length} bytes)`);
    const budget = new InflateBudget('DOCX');
    const started = performance.now();
    await refused(() => parseDocx(bytes, budget), new RegExp(`more than ${DOCUMENT_LIMITS.maxTextChars} characters without markup`));
    t.diagnostic(`refused after ${Math.round(performance.now() - started)} ms, ${budget.used} bytes inflated of ${GIB_1_1}`);
    assert.ok(budget.used <= DOCUMENT_LIMITS.maxTextChars + 1024 * 1024, `inflated ${budget.used} bytes`);
  });

  test('given a DOCX with an entry no one converts (media) inflating to 1.1 GiB, then refused at the budget all the same', async () => {
    const budget = new InflateBudget('DOCX');
    await refused(async () => parseDocx(await mediaBombDocx(), budget), /decompresses to more than 134217728 bytes/);
    assert.ok(budget.used <= budget.limitBytes + 1024 * 1024, `inflated ${budget.used} bytes`);
  });

  test('given a DOCX of 12 million characters of text in paragraphs (within the inflate budget), then refused at the text budget', async () => {
    await refused(async () => parseDocx(await textHeavyDocx(12_000_000)), new RegExp(`more than ${DOCUMENT_LIMITS.maxTextChars} characters of text`));
    assert.match((await parseDocx(await textHeavyDocx(100_000))).html, /^<p>(?:abcdefghij){100}<\/p>/, 'a document under the budget is converted');
  });

  test('given a DOCX that declares its 1.1 GiB honestly, then refused before anything is inflated', async () => {
    const budget = new InflateBudget('DOCX');
    await refused(async () => parseDocx(await zipEntryBombDocx(GIB_1_1, { declaredSize: GIB_1_1 + 200 }), budget), /declares \d+ bytes uncompressed/);
    assert.equal(budget.used, 0);
  });

  test('given a DOCX nesting 200,000 elements, then refused at the depth limit', async () => {
    await refused(async () => parseDocx(await nestedXmlDocx()), new RegExp(`nests XML elements deeper than ${DOCUMENT_LIMITS.maxXmlDepth}`));
  });

  test('given a DOCX of 3 million elements (35 KB on disk), then refused at the element limit, also when its main part is not named .xml', async () => {
    await refused(async () => parseDocx(await manyElementsDocx()), new RegExp(`more than ${DOCUMENT_LIMITS.maxXmlElements} XML elements`));
    await refused(async () => parseDocx(await manyElementsDocx(3_000_000, { asPart: 'word/media/main.bin' })), new RegExp(`more than ${DOCUMENT_LIMITS.maxXmlElements} XML elements`));
  });

  test('given a DOCX with an HTML altChunk and an SVG that are not well-formed XML, then it converts', async () => {
    const memo = await memoDocx();
    const JSZip = (await import('jszip')).default;
    const zip = await JSZip.loadAsync(memo);
    zip.file('word/afchunk.htm', '<html><body><p>an <b>alt chunk<br></body></html>');
    zip.file('word/media/logo.svg', '<?xml version="1.0"?><!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd"><svg><g></svg>');
    const out = await parseDocx(await zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' }));
    assert.match(out.html, /<h1>Launch Plan<\/h1>/);
  });

  test('given a ZIP of 300,000 empty entries (24 MB) as a DOCX, then refused before jszip reads its directory', async () => {
    await refused(() => parseDocx(manyEntriesDocx()), new RegExp(`more than ${DOCUMENT_LIMITS.maxZipEntries} ZIP entries`));
  });

  test('given a DOCX with a "billion laughs" DTD, then refused: no entity is expanded', async () => {
    await refused(async () => parseDocx(await entityBombDocx()), /declares a DTD/);
  });
});

describe('document bombs in the transform pool', () => {
  let pool: TransformPool;
  before(() => {
    pool = new TransformPool({ size: 1 });
  });
  after(async () => {
    await pool.close();
  });

  const input = (kind: 'pdf' | 'docx', bytes: Uint8Array): TransformInput =>
    ({ html: '', url: 'https://example.com/files/x', options: normalizeScrapeOptions({ formats: ['markdown'] }), document: { kind, bytes, contentType: 'application/octet-stream', maxPages: 1000 } });

  test('given a PDF and a DOCX bomb parsed in a thread, then DOCUMENT_TOO_COMPLEX reaches the consumer, final; the thread goes on', async () => {
    for (const [kind, bytes] of [['pdf', await metadataBombPdf()], ['docx', await zipEntryBombDocx()]] as const) {
      const err = await parseDocument(pool, input(kind, bytes), new AbortController().signal, 30_000).then(() => undefined, (e: unknown) => e);
      assert.ok(err instanceof Error, String(err));
      assert.equal(toTrawlError(err).code, 'DOCUMENT_TOO_COMPLEX', String(err));
      assert.equal(ackDecision(err, FIRST_DELIVERY).kind, 'giveUp');
    }
    const next = await parseDocument(pool, input('pdf', await reportPdf()), new AbortController().signal, 30_000);
    assert.match(next.markdown!, /^## Regional Figures$/m);
  });
});
