// transformDocument (services/transformer/src/documents/transform-document.ts): given a
// document's bytes, kind and the request's options, then the result the API returns.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DocumentEncryptedError, DocumentUnreadableError } from '../../../shared/src/domain/errors.js';
import type { DocumentKind } from '../../../shared/src/domain/document-type.js';
import { normalizeScrapeOptions, type ScrapeOptionsInput } from '../../../shared/src/domain/scrape-options.js';
import { transformDocument } from '../../../services/transformer/src/documents/transform-document.js';
import { REPORT, reportPdf } from '../../support/documents.js';

function run(kind: DocumentKind, bytes: Uint8Array | string, contentType: string, options: ScrapeOptionsInput = {}, url = 'https://example.com/files/notes%20v2.txt') {
  return transformDocument({
    html: '', url, options: normalizeScrapeOptions({ formats: ['markdown', 'html'], ...options }),
    document: { kind, bytes: typeof bytes === 'string' ? Buffer.from(bytes) : bytes, contentType, maxPages: 1000 },
  });
}

describe('transformDocument', () => {
  test('given text in the charset its Content-Type names, then it is decoded and passed through; the title is the file name', async () => {
    const out = await run('text', Buffer.from('caf\xe9 cr\xe8me', 'latin1'), 'text/plain; charset=iso-8859-1');
    assert.equal(out.markdown, 'café crème');
    assert.equal(out.html, '<pre>café crème</pre>');
    assert.deepEqual([out.metadata.title, out.metadata.contentType, out.links], ['notes v2.txt', 'text/plain; charset=iso-8859-1', []]);
  });

  test('given JSON holding a code fence, then a longer fence; given markdown, then as is and rendered for html', async () => {
    const json = await run('json', '{"md":"```js\\nx\\n```"}', 'application/json');
    assert.equal(json.markdown, '````json\n{"md":"```js\\nx\\n```"}\n````');
    const md = await run('markdown', '# Title\n\nSome *text*.', 'text/markdown');
    assert.equal(md.markdown, '# Title\n\nSome *text*.');
    assert.equal(md.html, '<h1>Title</h1>\n<p>Some <em>text</em>.</p>');
  });

  test('given a PDF the request does not parse, then metadata and no content', async () => {
    const out = await run('pdf', await reportPdf(), 'application/pdf', { parsers: ['docx'] });
    assert.equal(out.markdown, undefined);
    assert.equal(out.html, undefined);
    assert.deepEqual([out.metadata.parsed, out.metadata.title, out.metadata.author, out.metadata.pageCount], [false, REPORT.title, REPORT.author, 1]);
  });

  test('given an unparsed PDF that cannot even be opened, then still the link-only result, not a failure', async () => {
    const out = await run('pdf', 'not a pdf', 'application/pdf', { parsers: false }, 'https://example.com/x.pdf');
    assert.deepEqual([out.markdown, out.metadata.parsed, out.metadata.title], [undefined, false, 'x.pdf']);
  });

  test('given an encrypted Office file or a broken ZIP as DOCX, then DOCUMENT_ENCRYPTED or DOCUMENT_UNREADABLE', async () => {
    const cfb = Buffer.concat([Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]), Buffer.alloc(512)]);
    await assert.rejects(run('docx', cfb, 'application/octet-stream'), DocumentEncryptedError);
    await assert.rejects(run('docx', Buffer.from('PK\x03\x04 broken'), 'application/octet-stream'), DocumentUnreadableError);
  });
});
