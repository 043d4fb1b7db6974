// Stored payloads served by the API under a result's URL (screenshots, documents): the
// routes find the page, these check its expiry and read the bytes from the Object Store.
// A document is sent as served, always as an attachment with nosniff: the bytes are
// someone else's, and must never run as a page of the API's origin.
import type { FastifyReply } from 'fastify';
import { NotFoundError } from '../../../../shared/src/domain/errors.js';
import type { PayloadStore } from '../../../../shared/src/infra/nats/payloads.js';
import type { DocumentInfo } from '../../../../shared/src/infra/store/index.js';
import { PAYLOAD_BUCKET } from '../../../../shared/src/infra/subjects.js';

/** Reads a result's stored payload (a screenshot, a document) from the payloads bucket. */
export function payloadBytes(payloads: PayloadStore): (stored: { name: string; fileSize: number; contentType?: string }) => Promise<Uint8Array> {
  return (stored) => payloads.getBytes({ bucket: PAYLOAD_BUCKET, name: stored.name, size: stored.fileSize, contentType: stored.contentType ?? '' });
}

/** The bytes of a stored payload still alive; 404 when there is none, it expired or it is gone. */
export async function storedBytes<T extends { expiresAt: string }>(what: string, info: T | undefined, load: (info: T) => Promise<Uint8Array>, missing = `this page has no such ${what}`): Promise<Buffer> {
  if (!info) throw new NotFoundError(missing);
  if (Date.parse(info.expiresAt) < Date.now()) throw new NotFoundError(`the ${what} expired at ${info.expiresAt}`);
  try {
    return Buffer.from(await load(info));
  } catch {
    throw new NotFoundError(`the ${what} is no longer stored`);
  }
}

export async function sendStoredDocument(info: DocumentInfo | undefined, bytesOf: (info: DocumentInfo) => Promise<Uint8Array>, reply: FastifyReply): Promise<FastifyReply> {
  const bytes = await storedBytes('document', info, bytesOf, 'this page is no document (or is not completed)');
  return reply
    .type(info!.contentType)
    .header('content-disposition', 'attachment')
    .header('x-content-type-options', 'nosniff')
    .header('cache-control', 'private, max-age=3600')
    .send(bytes);
}
