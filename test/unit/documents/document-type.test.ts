// Document type detection (shared/src/domain/document-type.ts): given a response's Content-Type
// and bytes, when detected, then its kind, from the response and never from the URL.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { detectResponseKind, hasPdfHeader, isCompoundFile, mayBeDocument, storedContentType } from '../../../shared/src/domain/document-type.js';
import { memoDocx, reportPdf } from '../../support/documents.js';

const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
const text = (s: string): Uint8Array => new TextEncoder().encode(s);

describe('document type detection', () => {
  test('given PDF bytes, whatever the label (pdf, octet-stream, none, text/plain, even text/html), then pdf', async () => {
    const pdf = await reportPdf();
    for (const label of ['application/pdf', 'application/octet-stream', undefined, 'text/plain', 'text/html; charset=utf-8', 'binary/octet-stream']) {
      assert.equal(await detectResponseKind(label, pdf), 'pdf', String(label));
    }
  });

  test('given a PDF header after leading junk within 1024 bytes, then pdf; after that, not', () => {
    assert.ok(hasPdfHeader(Buffer.concat([Buffer.alloc(100, 0x20), Buffer.from('%PDF-1.4')])));
    assert.ok(!hasPdfHeader(Buffer.concat([Buffer.alloc(1100, 0x20), Buffer.from('%PDF-1.4')])));
  });

  test('given DOCX bytes labelled octet-stream or nothing, then docx (the ZIP is looked into)', async () => {
    const docx = await memoDocx();
    assert.equal(await detectResponseKind(undefined, docx), 'docx');
    assert.equal(await detectResponseKind('application/octet-stream', docx), 'docx');
    assert.equal(await detectResponseKind(DOCX, docx), 'docx');
  });

  test('given an explicit document label and bytes that disagree, then the label (a corrupt file fails as that type)', async () => {
    assert.equal(await detectResponseKind('application/pdf', text('not a pdf at all')), 'pdf');
    assert.equal(await detectResponseKind(DOCX, text('garbage')), 'docx');
  });

  test('given text labels, then text, markdown or json (+json suffixes too)', async () => {
    assert.equal(await detectResponseKind('text/plain; charset=utf-8', text('hello')), 'text');
    assert.equal(await detectResponseKind('text/markdown', text('# hi')), 'markdown');
    assert.equal(await detectResponseKind('text/x-markdown', text('# hi')), 'markdown');
    assert.equal(await detectResponseKind('application/json', text('{}')), 'json');
    assert.equal(await detectResponseKind('application/ld+json', text('{}')), 'json');
  });

  test('given HTML, or no label with markup, then html; no label and unknown bytes, then other', async () => {
    assert.equal(await detectResponseKind('text/html', text('<p>x</p>')), 'html');
    assert.equal(await detectResponseKind(undefined, text('  <!doctype html><p>x</p>')), 'html');
    assert.equal(await detectResponseKind('application/octet-stream', Uint8Array.from([0, 1, 2, 3])), 'other');
    assert.equal(await detectResponseKind('image/png', Uint8Array.from([0x89, 0x50, 0x4e, 0x47])), 'other');
  });

  test('given a Content-Type, then whether the body is worth reading to find a document', () => {
    for (const yes of ['application/pdf', 'application/octet-stream', undefined, '', 'text/plain', 'application/json', DOCX]) assert.ok(mayBeDocument(yes), String(yes));
    for (const no of ['text/html; charset=utf-8', 'image/png', 'video/mp4', 'application/zip']) assert.ok(!mayBeDocument(no), no);
  });

  test('given an OLE compound file (encrypted Office), then it is recognised', () => {
    assert.ok(isCompoundFile(Uint8Array.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1])));
    assert.ok(!isCompoundFile(text('PK')));
  });

  test('given a kind and the served label, then the stored Content-Type keeps a matching label, else names the kind', () => {
    assert.equal(storedContentType('text', 'text/plain; charset=iso-8859-1'), 'text/plain; charset=iso-8859-1');
    assert.equal(storedContentType('pdf', 'application/octet-stream'), 'application/pdf');
    assert.equal(storedContentType('pdf', undefined), 'application/pdf');
  });
});
