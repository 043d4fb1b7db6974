// The HTTP engine: one GET, no browser, through the SSRF-safe client (shared/src/net/safe-http.ts:
// every hop's addresses checked, redirects followed by hand, bodies capped in bytes and
// time). It sends what the browser would (the device preset's user agent, an HTML Accept,
// the request's `headers`) and returns the served HTML decoded by the WHATWG sniffing rules,
// or a document's bytes; anything else is refused before its body is read (NotHtmlError,
// so `auto` sends the page to the browser).
import { pickOutcomeHeaders } from '../../../../shared/src/domain/page-outcome/outcome.js';
import { decodeBuffer } from 'encoding-sniffer';
import { detectResponseKind, kindFromMime, looksLikeMarkup, maySignDocument, mimeOf, type DocumentKind } from '../../../../shared/src/domain/document-type.js';
import { DocumentTooLargeError, NetworkError, PageTimeoutError } from '../../../../shared/src/domain/errors.js';
import { BodyTooLargeError, safeStream, type SafeStreamResponse } from '../../../../shared/src/net/safe-http.js';
import type { ResolvedScrapeOptions } from '../../../../shared/src/domain/scrape-options.js';
import type { CidrRange } from '../../../../shared/src/net/url-safety.js';
import { conditionalHeaders, validatorsOf, type Validators } from '../../../../shared/src/domain/conditional-fetch.js';
import { resolveEmulation } from './device-presets.js';

export const MAX_REDIRECTS = 10;
/**
 * A page that names no encoding anywhere: UTF-8, not the WHATWG fallback windows-1252.
 * Chromium guesses with its content detector, which says UTF-8 for such pages today.
 */
const UNLABELLED_ENCODING = 'utf-8';
const ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

/** A response that is not an HTML page: final for engine http (NETWORK_ERROR), a browser page for auto. */
export class NotHtmlError extends NetworkError {
  constructor(readonly url: string, readonly contentType: string) {
    super(`${url} is ${contentType || 'not HTML'}: the http engine reads only HTML pages (use engine "browser" or "auto")`);
  }
}

export class TooManyRedirectsError extends NetworkError {
  constructor(url: string) {
    super(`${url} redirected more than ${MAX_REDIRECTS} times`);
  }
}

export interface HttpEngineOptions {
  allowCidrs: CidrRange[];
  maxBytes: number;
  /** Documents' bytes at most (DOCUMENT_MAX_BYTES). */
  documentMaxBytes: number;
  /** The Chrome major version the user agent names (the browser's, once it has been launched). */
  chromeVersion: () => string;
  insecureTls?: boolean;
}

export interface HttpFetchResult {
  finalUrl: string;
  statusCode: number;
  contentType?: string;
  /** The served HTML, decoded (the result's rawHtml under this engine); '' for a document. */
  html: string;
  /** Set when the response is a document: its bytes as served and its detected kind. */
  document?: { kind: DocumentKind; bytes: Uint8Array };
  /** An HTML page's response as served, for a browser that renders it next without fetching it again. */
  served?: ServedResponse;
  timings: { fetchMs: number; renderMs: number; screenshotMs: number };
  /** The headers the page outcome reads (shared/src/domain/page-outcome pickOutcomeHeaders). */
  outcomeHeaders?: Record<string, string>;
  /** An HTML page's ETag / Last-Modified, for the next conditional fetch. */
  validators?: Validators;
  /** The server answered a conditional GET with 304: nothing else is set (html is ''). */
  notModified?: true;
}

/**
 * A main document already fetched: what the browser is given instead of requesting it
 * (page-interceptor.ts). `body` is the decompressed bytes in their own charset; `headers`
 * leave out the transfer framing that no longer describes them.
 */
export interface ServedResponse {
  url: string;
  status: number;
  headers: { name: string; value: string }[];
  body: Buffer;
}

/** Headers that described the bytes on the wire (compressed, chunked), not the decoded body. */
const WIRE_HEADERS = new Set(['content-encoding', 'content-length', 'transfer-encoding', 'connection', 'keep-alive']);

function servedHeaders(headers: Record<string, string | string[] | undefined>): ServedResponse['headers'] {
  return Object.entries(headers).flatMap(([name, value]) => WIRE_HEADERS.has(name) || value === undefined ? []
    : (Array.isArray(value) ? value : [value]).map((v) => ({ name, value: v })));
}

export class HttpEngine {
  constructor(private readonly opts: HttpEngineOptions) {}

  /** `conditional`: the stored validators to send (conditional-fetch.ts); a 304 then answers `notModified`. */
  async fetch(url: string, options: ResolvedScrapeOptions, signal: AbortSignal, conditional?: Validators): Promise<HttpFetchResult> {
    const started = performance.now();
    const deadline = AbortSignal.timeout(options.timeoutMs);
    const both = AbortSignal.any([signal, deadline]);
    let res: SafeStreamResponse;
    try {
      res = await safeStream(url, {
        allow: this.opts.allowCidrs,
        headers: conditional ? { ...this.headers(options), ...conditionalHeaders(conditional) } : this.headers(options),
        timeoutMs: options.timeoutMs,
        maxBytes: Math.max(this.opts.maxBytes, this.opts.documentMaxBytes),
        maxRedirects: MAX_REDIRECTS,
        signal,
        insecureTls: this.opts.insecureTls ?? true,
      });
    } catch (err) {
      throw this.explain(err, url, options, signal, deadline);
    }
    if (res.status === 304 && conditional) {
      res.body.destroy();
      const timings = { fetchMs: Math.round(performance.now() - started), renderMs: 0, screenshotMs: 0 };
      const fresh = validatorsOf(res.headers);
      return { finalUrl: res.url, statusCode: 304, html: '', timings, notModified: true, ...(fresh ? { validators: { ...conditional, ...fresh } } : { validators: conditional }) };
    }
    if (res.status >= 300 && res.status < 400 && res.headers.location) {
      res.body.destroy();
      throw new TooManyRedirectsError(url);
    }
    const contentType = headerValue(res.headers['content-type']);
    const mime = mimeOf(contentType);
    const labelled = kindFromMime(mime);
    if (labelled === 'other') {
      res.body.destroy();
      throw new NotHtmlError(res.url, mime);
    }
    let body: Buffer;
    try {
      // How much is worth reading is decided on the first bytes: a generic label only while
      // they may be a document or HTML (a zip served as octet-stream is not downloaded to
      // find out); HTML only up to its own cap, unless the bytes are a document's.
      const htmlCap = this.opts.maxBytes;
      body = await readAll(res, both, labelled === undefined
        ? (head) => (mayBeDocumentOrHtml(head) ? Infinity : 0)
        : labelled === 'html' ? (head) => (maySignDocument(head) ? Infinity : htmlCap) : undefined);
    } catch (err) {
      if (err instanceof NotHtmlError) throw new NotHtmlError(res.url, mime);
      if (err instanceof BodyTooLargeError) throw new BodyTooLargeError(this.opts.maxBytes);
      throw this.explain(err, url, options, signal, deadline);
    }
    const kind = await detectResponseKind(contentType, body);
    if (kind === 'other') throw new NotHtmlError(res.url, mime);
    const timings = { fetchMs: Math.round(performance.now() - started), renderMs: 0, screenshotMs: 0 };
    if (kind !== 'html') {
      if (res.truncated() || body.byteLength > this.opts.documentMaxBytes) {
        throw new DocumentTooLargeError(`${res.url} is a ${kind} document over the ${this.opts.documentMaxBytes}-byte limit (DOCUMENT_MAX_BYTES)`);
      }
      return { finalUrl: res.url, statusCode: res.status, ...(contentType ? { contentType } : {}), html: '', document: { kind, bytes: body }, timings };
    }
    if (res.truncated() || body.byteLength > this.opts.maxBytes) throw new BodyTooLargeError(this.opts.maxBytes);
    const charset = charsetOf(contentType);
    const html = decodeBuffer(body, { defaultEncoding: UNLABELLED_ENCODING, ...(charset ? { transportLayerEncodingLabel: charset } : {}) });
    return {
      finalUrl: res.url,
      statusCode: res.status,
      ...(contentType ? { contentType } : {}),
      html,
      served: { url: res.url, status: res.status, headers: servedHeaders(res.headers), body },
      timings,
      outcomeHeaders: pickOutcomeHeaders(res.headers),
      ...withValidators(res.headers),
    };
  }

  /** Request headers: the device preset's user agent and an HTML Accept, the request's headers on top. */
  headers(options: ResolvedScrapeOptions): Record<string, string> {
    const { userAgent } = resolveEmulation(options, this.opts.chromeVersion());
    return { 'user-agent': userAgent, accept: ACCEPT, 'accept-language': 'en-US,en;q=0.9', ...options.headers };
  }

  private explain(err: unknown, url: string, options: ResolvedScrapeOptions, signal: AbortSignal, deadline: AbortSignal): unknown {
    if (signal.aborted) return signal.reason;
    if (deadline.aborted || err instanceof PageTimeoutError) {
      return new PageTimeoutError(`${url} did not answer within ${options.timeoutMs} ms`, { cause: err });
    }
    return err;
  }
}

/**
 * Reads the capped body; gives up when `signal` aborts (a stalled decompressor never ends
 * on its own). `worthReading`, given the first SNIFF_BYTES, says how many bytes the body
 * may have: 0 stops at once (NotHtmlError), past the number it stops (BodyTooLargeError).
 */
async function readAll(res: SafeStreamResponse, signal: AbortSignal, worthReading?: (head: Buffer) => number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let read = 0;
  let limit = Infinity;
  let looked = !worthReading;
  const onAbort = (): void => void res.body.destroy(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
  if (signal.aborted) onAbort();
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    for await (const chunk of res.body) {
      chunks.push(chunk as Buffer);
      read += (chunk as Buffer).length;
      if (!looked && read >= SNIFF_BYTES) {
        looked = true;
        limit = worthReading!(Buffer.concat(chunks));
        if (limit === 0) {
          res.body.destroy();
          throw new NotHtmlError(res.url, '');
        }
      }
      if (read > limit) {
        res.body.destroy();
        throw new BodyTooLargeError(limit);
      }
    }
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
  return Buffer.concat(chunks);
}

/** What a generically labelled body's first bytes must show to be read on: a PDF, a ZIP (DOCX) or markup. */
const SNIFF_BYTES = 1024;
function mayBeDocumentOrHtml(head: Buffer): boolean {
  return maySignDocument(head) || looksLikeMarkup(head);
}

function withValidators(headers: Record<string, string | string[] | undefined>): { validators?: Validators } {
  const validators = validatorsOf(headers);
  return validators ? { validators } : {};
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function charsetOf(contentType: string | undefined): string | undefined {
  return /charset\s*=\s*"?([^";\s]+)/i.exec(contentType ?? '')?.[1];
}
