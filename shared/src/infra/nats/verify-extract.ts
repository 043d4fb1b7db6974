// The auto engine's verification extractions, made by a transformer for the fetcher (core
// NATS request/reply, one queue group): a verified page's two HTMLs (as served over HTTP, as
// rendered) go to a transformer, whose threads already hold the extraction library warm, and
// each one's markdown and links come back for the fetcher to compare. So the fetcher never
// loads the library (tens of MB, and a third copy of its compiled code to warm up) unless no
// transformer answers. Nothing is stored and nothing is decided here: a lost request or reply
// is a fallback, never a lost page (docs/architecture.md "Fetch engines and host profiles").
import type { Msg, NatsConnection, Subscription } from 'nats';
import type { ResolvedScrapeOptions } from '../../domain/scrape-options.js';
import type { Logger } from '../logger.js';

export const VERIFY_EXTRACT_SUBJECT = 'trawl-internal.verify-extract';
/** One transformer of the group answers each request. */
export const VERIFY_EXTRACT_QUEUE = 'transformer';

export interface VerifyExtractPage {
  html: string;
  url: string;
  statusCode: number;
  /** The response headers the page outcome reads, as page_fetched carries them (none when empty). */
  headers?: Record<string, string>;
}

/** A page's extraction as the comparison reads it. */
export interface ExtractedForCompare {
  markdown: string;
  links: string[];
}

export interface VerifyExtractRequest {
  pages: VerifyExtractPage[];
  options: ResolvedScrapeOptions;
  /** The page's API key: the extractions take that key's share of the transformer's threads, as its pages do. */
  apiKeyId?: string | undefined;
}

type VerifyExtractReply = { ok: true; pages: ExtractedForCompare[] } | { ok: false; error: string };

/** One page's extraction (the transformer's pool), under the page's API key when known. */
type Extract = (page: VerifyExtractPage, options: ResolvedScrapeOptions, apiKeyId: string | undefined) => Promise<ExtractedForCompare>;

/** Room left under the server's max_payload for the request's or the reply's envelope. */
const ENVELOPE_BYTES = 4096;

/**
 * Each page's markdown and links, made by a transformer; undefined when none answered in
 * `timeoutMs` (none running, all busy past it), the pages or their results are larger than
 * a NATS message, or the transformer could not make them (stopping, a page past its
 * budget): the caller then extracts them itself (and meets the page's own error, if any).
 */
export async function requestVerifyExtract(nc: NatsConnection, request: VerifyExtractRequest, timeoutMs: number): Promise<ExtractedForCompare[] | undefined> {
  const body = Buffer.from(JSON.stringify(request));
  if (body.byteLength > maxPayload(nc)) return undefined;
  let msg: Msg;
  try {
    msg = await nc.request(VERIFY_EXTRACT_SUBJECT, body, { timeout: timeoutMs });
  } catch {
    // No responders, a timeout, a closed connection: the caller's own extraction stands in.
    return undefined;
  }
  const reply = JSON.parse(Buffer.from(msg.data).toString('utf8')) as VerifyExtractReply;
  return reply.ok ? reply.pages : undefined;
}

/**
 * Answers verification extractions with `extract` (the transformer's pool). Each request
 * is handled as it comes; its pages wait in the pool's queue like any transform.
 */
export function serveVerifyExtract(
  nc: NatsConnection, extract: Extract, logger: Logger,
): Subscription {
  return nc.subscribe(VERIFY_EXTRACT_SUBJECT, {
    queue: VERIFY_EXTRACT_QUEUE,
    callback: (err, msg) => {
      if (err) return;
      void answer(nc, msg, extract).catch((e: unknown) => logger.warn({ err: (e as Error).message }, 'verification extraction not answered'));
    },
  });
}

async function answer(nc: NatsConnection, msg: Msg, extract: Extract): Promise<void> {
  let reply: VerifyExtractReply;
  try {
    const { pages, options, apiKeyId } = JSON.parse(Buffer.from(msg.data).toString('utf8')) as VerifyExtractRequest;
    reply = { ok: true, pages: await Promise.all(pages.map((page) => extract(page, options, apiKeyId))) };
  } catch (err) {
    reply = { ok: false, error: (err as Error).message };
  }
  let body = Buffer.from(JSON.stringify(reply));
  if (body.byteLength > maxPayload(nc)) body = Buffer.from(JSON.stringify({ ok: false, error: 'results larger than a message' } satisfies VerifyExtractReply));
  msg.respond(body);
}

function maxPayload(nc: NatsConnection): number {
  return (nc.info?.max_payload ?? 1024 * 1024) - ENVELOPE_BYTES;
}
