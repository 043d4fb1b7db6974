// Reading a site's robots.txt: the one fetch and the one parser that the crawl's rules and
// map's sitemap discovery share.
import robotsParserModule from 'robots-parser';
import { safeStream } from './safe-http.js';
import type { CidrRange } from './url-safety.js';

// robots-parser is CommonJS typed as an ES default export: under nodenext the default
// import is the function itself at run time but typed as the module record.
export const robotsParser = robotsParserModule as unknown as typeof robotsParserModule.default;

export interface RobotsTxt {
  status: number;
  /** Where it was read from (after redirects). */
  url: string;
  /** The file (a 2xx answer's body, at most `maxBytes`); empty otherwise. */
  text: string;
}

/**
 * An origin's robots.txt through the SSRF-safe client. Throws on a network error or
 * timeout; the callers decide what that means (a crawl disallows the origin, map finds no
 * `Sitemap:` lines).
 */
export async function fetchRobotsTxt(origin: string, opts: { allow: CidrRange[]; timeoutMs: number; maxBytes: number; signal?: AbortSignal | undefined }): Promise<RobotsTxt> {
  const controller = new AbortController();
  const signal = opts.signal ? AbortSignal.any([opts.signal, controller.signal]) : controller.signal;
  try {
    const res = await safeStream(`${origin}/robots.txt`, { allow: opts.allow, signal, timeoutMs: opts.timeoutMs, maxBytes: opts.maxBytes });
    if (res.status < 200 || res.status >= 300) return { status: res.status, url: res.url, text: '' };
    const chunks: Buffer[] = [];
    for await (const chunk of res.body) chunks.push(chunk as Buffer);
    return { status: res.status, url: res.url, text: Buffer.concat(chunks).toString('utf8') };
  } finally {
    // Whatever was not read (a 404 page's body) is dropped with the connection.
    controller.abort();
  }
}
