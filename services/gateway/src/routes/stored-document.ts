// GET of a document page's stored bytes (docs/api.md "Documents"): the scrape and batch
// routes find the page, this sends what the fetcher stored, as served. Always as an
// attachment with nosniff: the bytes are someone else's, and must never run as a page of
// the API's origin.
import type { FastifyReply } from 'fastify';
import { NotFoundError } from '../../../../shared/src/errors.js';
import type { DocumentInfo } from '../../../../shared/src/store/index.js';

export async function sendStoredDocument(info: DocumentInfo | undefined, bytesOf: (info: DocumentInfo) => Promise<Uint8Array>, reply: FastifyReply): Promise<FastifyReply> {
  if (!info) throw new NotFoundError('this page is no document (or is not completed)');
  if (Date.parse(info.expiresAt) < Date.now()) throw new NotFoundError(`the document expired at ${info.expiresAt}`);
  let bytes: Uint8Array;
  try {
    bytes = await bytesOf(info);
  } catch {
    throw new NotFoundError('the document is no longer stored');
  }
  return reply
    .type(info.contentType)
    .header('content-disposition', 'attachment')
    .header('x-content-type-options', 'nosniff')
    .header('cache-control', 'private, max-age=3600')
    .send(Buffer.from(bytes));
}
