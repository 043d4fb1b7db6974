// Documents in the transformer's worker-thread pool, as the consumer runs them: the thread
// parses asynchronously (pdf.js, mammoth), failures come back as the Document*Error class
// that decides the message's fate (final at the first delivery), and a parse past its time
// cap is stopped by terminating its thread, after which the pool goes on.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ackDecision, DocumentEncryptedError, DocumentParseTimeoutError, DocumentUnreadableError } from '../../../shared/src/domain/errors.js';
import { normalizeScrapeOptions } from '../../../shared/src/domain/scrape-options.js';
import { parseDocument } from '../../../services/transformer/src/consumer.js';
import { TransformPool, type TransformInput } from '../../../services/transformer/src/index.js';
import { corruptPdf, longReportPdf, memoDocx, reportPdf } from '../../support/documents.js';

const options = normalizeScrapeOptions({ formats: ['markdown'] });
const pdf = (bytes: Uint8Array, maxPages = 1000): TransformInput =>
  ({ html: '', url: 'https://example.com/files/x', options, document: { kind: 'pdf', bytes, contentType: 'application/pdf', maxPages } });
const FIRST_DELIVERY = { deliveryCount: 1, maxDeliver: 3 };

describe('documents in the transform pool', () => {
  let pool: TransformPool;
  before(() => {
    pool = new TransformPool({ size: 1 });
  });
  after(async () => {
    await pool.close();
  });

  test('given a PDF and a DOCX, when parsed in a thread, then markdown and metadata come back', async () => {
    const out = await parseDocument(pool, pdf(await reportPdf()), new AbortController().signal, 30_000);
    assert.match(out.markdown!, /^# Annual Results$/m);
    assert.equal(out.metadata.pageCount, 1);
    const docx = await parseDocument(pool, { ...pdf(await memoDocx()), document: { kind: 'docx', bytes: await memoDocx(), contentType: 'x', maxPages: 10 } }, new AbortController().signal, 30_000);
    assert.match(docx.markdown!, /^# Launch Plan$/m);
  });

  test('given an encrypted or corrupt PDF, then its error class, given up at the first delivery', async () => {
    for (const [bytes, ErrorClass, code] of [[await reportPdf({ userPassword: 'x' }), DocumentEncryptedError, 'DOCUMENT_ENCRYPTED'], [corruptPdf(), DocumentUnreadableError, 'DOCUMENT_UNREADABLE']] as const) {
      const err = await parseDocument(pool, pdf(bytes), new AbortController().signal, 30_000).then(() => undefined, (e: unknown) => e);
      assert.ok(err instanceof ErrorClass, String(err));
      assert.equal((err as DocumentEncryptedError).code, code);
      assert.equal(ackDecision(err, FIRST_DELIVERY).kind, 'giveUp');
    }
  });

  test('given a parse longer than its cap, then DOCUMENT_PARSE_TIMEOUT (final), its thread is replaced and the next parse works', async () => {
    const long = await longReportPdf(120);
    const started = performance.now();
    const err = await parseDocument(pool, pdf(long), new AbortController().signal, 50).then(() => undefined, (e: unknown) => e);
    assert.ok(err instanceof DocumentParseTimeoutError, String(err));
    assert.ok(performance.now() - started < 5_000, 'stopped, not run to its end');
    assert.equal(ackDecision(err, FIRST_DELIVERY).kind, 'giveUp');
    const next = await parseDocument(pool, pdf(await reportPdf()), new AbortController().signal, 30_000);
    assert.match(next.markdown!, /^## Regional Figures$/m);
  });

  test('given the message itself is cancelled, then its reason, not a document error', async () => {
    const cancel = new AbortController();
    cancel.abort(new Error('shutting down'));
    await assert.rejects(parseDocument(pool, pdf(await reportPdf()), cancel.signal, 30_000), /shutting down/);
  });
});
