// A multi-page job's GET answer written page by page (job-service.ts JobViewParts): a finished
// crawl's first part holds up to JOB_DATA_MAX_BYTES (10 MB) of content, and built whole it
// cost the gateway that much several times over (the entries, the serialized string, its
// bytes). The body is byte for byte what the route's response schema serializes for the
// whole view: the fields around `data` come from the route's own serializer (called with an
// empty `data`), each entry from the entry schema's, compiled by the same serializer compiler.
import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import type { TSchema } from '@sinclair/typebox';
import type { JobViewParts } from '../job-service.js';

/** How an empty `data` reads in the serialized view: its place, where the entries go. */
const EMPTY_DATA = ',"data":[]';

/**
 * Sends `parts` as the 200 answer. The first entry is read before the status is sent, so a
 * read model that fails at once still answers a problem; a failure later cuts the body.
 */
export async function sendStreamedView(reply: FastifyReply, parts: JobViewParts<object>, entrySchema: TSchema): Promise<FastifyReply> {
  const envelope = (next?: string): { before: string; after: string } => {
    const whole = reply.serializeInput({ ...parts.head, data: [], ...(next !== undefined ? { next } : {}) }, '200') as string;
    // A key is never preceded by `,"` inside a JSON string (there a quote is escaped), so the
    // first match is the view's own `data`; the schema puts it after the job's id.
    const at = whole.indexOf(EMPTY_DATA);
    if (at < 0) throw new Error('the view schema serialized no `data` array');
    return { before: whole.slice(0, at), after: whole.slice(at + EMPTY_DATA.length) };
  };
  const serializeEntry = reply.compileSerializationSchema(entrySchema, '200') as (entry: unknown) => string;
  const entries = parts.data[Symbol.asyncIterator]();
  const first = await entries.next();
  async function* body(): AsyncGenerator<string> {
    yield `${envelope().before},"data":[`;
    for (let item = first, comma = ''; !item.done; item = await entries.next(), comma = ',') yield comma + serializeEntry(item.value);
    yield `]${envelope(parts.next()).after}`;
  }
  return reply.type('application/json; charset=utf-8').send(Readable.from(body(), { objectMode: false }));
}
