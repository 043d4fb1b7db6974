// Sitemap discovery (map, and a recrawl's lastmod skips): /sitemap.xml, /sitemap_index.xml
// and the robots.txt `Sitemap:` lines, then every sitemap an index lists, breadth first.
// Bounded (docs/architecture.md "Map"): SSRF-checked, capped in files, bytes (before and
// after gunzip) and time; files are parsed as they stream in, so memory stays flat.
import { Readable, pipeline } from 'node:stream';
import zlib from 'node:zlib';
import { fetchRobotsTxt, robotsParser } from '../robots-txt.js';
import { safeStream } from '../safe-http.js';
import { normalizeUrl } from '../url-normalize.js';
import type { CidrRange } from '../url-safety.js';
import { SitemapParser } from './parser.js';

export const SITEMAP_DEFAULTS = {
  maxSitemaps: 200,
  /** The sitemaps.org limit for one file, uncompressed. */
  maxBytesPerSitemap: 50 * 1024 * 1024,
  maxRobotsBytes: 512 * 1024,
  fetchTimeoutMs: 15_000,
  concurrency: 4,
} as const;

export interface SitemapDiscoveryOptions {
  allow: CidrRange[];
  /** Bounds the whole discovery (the map budget). */
  signal?: AbortSignal;
  maxSitemaps?: number;
  maxBytesPerSitemap?: number;
  fetchTimeoutMs?: number;
  /** Sitemap files fetched in parallel. */
  concurrency?: number;
  /** Called for every page URL listed (with its <lastmod> as written, if any); return false when no more are wanted (stops discovery). */
  onUrl(url: string, sitemapUrl: string, lastmod?: string): boolean | void;
}

export interface SitemapFileError {
  url: string;
  message: string;
}

export interface SitemapDiscoveryResult {
  /** Sitemap files requested (robots.txt not included). */
  sitemapsFetched: number;
  /** Sitemap files that listed at least one URL or child sitemap. */
  sitemaps: string[];
  /** Page URLs handed to onUrl. */
  urlsFound: number;
  /** True when something was left unread: the deadline, the file bound, a truncated or broken file. */
  partial: boolean;
  /** Why discovery stopped before reading everything, if it did. */
  stoppedBy?: 'deadline' | 'consumer' | 'sitemapLimit';
  errors: SitemapFileError[];
}

/** The well-known sitemap locations of a site, in the order they are tried. */
export function wellKnownSitemaps(siteUrl: string): string[] {
  const { origin } = new URL(siteUrl);
  return [`${origin}/sitemap.xml`, `${origin}/sitemap_index.xml`];
}

/** `Sitemap:` lines of the site's robots.txt; none when it is missing or unreadable. */
export async function robotsSitemaps(siteUrl: string, opts: Pick<SitemapDiscoveryOptions, 'allow' | 'signal' | 'fetchTimeoutMs'>): Promise<string[]> {
  try {
    const robots = await fetchRobotsTxt(new URL(siteUrl).origin, {
      allow: opts.allow, signal: opts.signal, timeoutMs: opts.fetchTimeoutMs ?? SITEMAP_DEFAULTS.fetchTimeoutMs, maxBytes: SITEMAP_DEFAULTS.maxRobotsBytes,
    });
    return robots.status === 200 ? robotsParser(robots.url, robots.text).getSitemaps() : [];
  } catch {
    return [];
  }
}

function isGzip(head: Buffer): boolean {
  return head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b;
}

/**
 * The body as plain bytes: gunzipped when it starts with the gzip magic bytes, whatever
 * the content type or extension says (servers send .xml.gz as application/octet-stream,
 * and some gzip twice: once as the file, once as Content-Encoding, which safeStream undid).
 */
async function* plainBytes(body: Readable): AsyncGenerator<Buffer> {
  const it = body[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  let head = Buffer.alloc(0);
  while (head.length < 2) {
    const next = await it.next();
    if (next.done) break;
    head = Buffer.concat([head, next.value]);
  }
  async function* all(): AsyncGenerator<Buffer> {
    if (head.length) yield head;
    for (;;) {
      const next = await it.next();
      if (next.done) return;
      yield next.value;
    }
  }
  if (!isGzip(head)) return yield* all();
  const gunzip = pipeline(Readable.from(all()), zlib.createGunzip(), () => undefined);
  try {
    for await (const chunk of gunzip) yield chunk as Buffer;
  } finally {
    gunzip.destroy();
  }
}

interface FileOutcome {
  listed: number;
  truncated: boolean;
  malformed: boolean;
}

/** Fetches one sitemap file and feeds it to the parser as it streams in. */
async function readSitemap(
  url: string,
  opts: { allow: CidrRange[]; signal: AbortSignal; timeoutMs: number; maxBytes: number },
  onLoc: (loc: string, kind: 'page' | 'sitemap', lastmod?: string) => void,
): Promise<FileOutcome> {
  const outcome: FileOutcome = { listed: 0, truncated: false, malformed: false };
  const parser = new SitemapParser({ onLoc: (loc, kind, lastmod) => { outcome.listed++; onLoc(loc, kind, lastmod); } });
  const res = await safeStream(url, {
    allow: opts.allow, signal: opts.signal, timeoutMs: opts.timeoutMs, maxBytes: opts.maxBytes,
    headers: { accept: 'application/xml, text/xml, text/plain;q=0.9, */*;q=0.8' },
  });
  if (res.status !== 200) {
    res.body.destroy();
    throw new Error(`HTTP ${res.status}`);
  }
  const decoder = new TextDecoder('utf-8');
  let bytes = 0;
  try {
    for await (const chunk of plainBytes(res.body)) {
      const room = opts.maxBytes - bytes;
      if (chunk.length > room) {
        outcome.truncated = true;
        parser.write(decoder.decode(chunk.subarray(0, room), { stream: true }));
        break;
      }
      bytes += chunk.length;
      parser.write(decoder.decode(chunk, { stream: true }));
      if (parser.gaveUp) break;
    }
  } catch (err) {
    // A broken stream (truncated gzip, reset connection): keep what was parsed.
    if (opts.signal.aborted) throw err;
    outcome.truncated = true;
  } finally {
    res.body.destroy();
  }
  parser.write(decoder.decode());
  parser.end();
  outcome.truncated ||= res.truncated();
  outcome.malformed = parser.errors > 0;
  return outcome;
}

/**
 * Discovers page URLs from the site's sitemaps, handing each to `opts.onUrl` as it is
 * parsed. Never throws for a site problem (missing, broken, refused sitemaps are reported
 * in `errors`); resolves when everything reachable within the bounds was read. Bounds: at
 * most `maxSitemaps` files (never one URL twice, so indexes listing themselves or each other
 * end), each capped at `maxBytesPerSitemap` before and after gunzip (the URLs parsed up to
 * the cap are kept), and the caller's signal: on abort the fetches in flight are cancelled
 * and what was found is returned with `partial: true`.
 */
export async function discoverSitemaps(siteUrl: string, opts: SitemapDiscoveryOptions): Promise<SitemapDiscoveryResult> {
  const maxSitemaps = opts.maxSitemaps ?? SITEMAP_DEFAULTS.maxSitemaps;
  const concurrency = opts.concurrency ?? SITEMAP_DEFAULTS.concurrency;
  const timeoutMs = opts.fetchTimeoutMs ?? SITEMAP_DEFAULTS.fetchTimeoutMs;
  const maxBytes = opts.maxBytesPerSitemap ?? SITEMAP_DEFAULTS.maxBytesPerSitemap;
  const stop = new AbortController();
  const signal = opts.signal ? AbortSignal.any([opts.signal, stop.signal]) : stop.signal;
  const result: SitemapDiscoveryResult = { sitemapsFetched: 0, sitemaps: [], urlsFound: 0, partial: false, errors: [] };
  const halt = (why: NonNullable<SitemapDiscoveryResult['stoppedBy']>): void => {
    result.stoppedBy ??= why;
    if (why !== 'consumer') result.partial = true;
    stop.abort();
  };
  const onDeadline = (): void => halt('deadline');
  if (opts.signal?.aborted) onDeadline();
  opts.signal?.addEventListener('abort', onDeadline, { once: true });

  // Cycle guard: a sitemap URL (by normalized key) is queued at most once.
  const seen = new Set<string>();
  const queue: string[] = [];
  const enqueue = (raw: string, base?: string): void => {
    const normalized = normalizeUrl(raw, base);
    if (!normalized || seen.has(normalized.key)) return;
    if (seen.size >= maxSitemaps) { result.partial = true; result.stoppedBy ??= 'sitemapLimit'; return; }
    seen.add(normalized.key);
    queue.push(normalized.url);
  };

  const fetchOne = async (sitemapUrl: string): Promise<void> => {
    const own = new AbortController();
    try {
      const outcome = await readSitemap(sitemapUrl, { allow: opts.allow, signal: AbortSignal.any([signal, own.signal]), timeoutMs, maxBytes }, (loc, kind, lastmod) => {
        if (signal.aborted) return;
        if (kind === 'sitemap') return enqueue(loc, sitemapUrl);
        let absolute: string;
        try { absolute = new URL(loc, sitemapUrl).toString(); } catch { return; }
        result.urlsFound++;
        if (opts.onUrl(absolute, sitemapUrl, lastmod) === false) halt('consumer');
      });
      if (outcome.listed > 0) result.sitemaps.push(sitemapUrl);
      if (outcome.truncated) {
        result.partial = true;
        result.errors.push({ url: sitemapUrl, message: 'truncated at the size limit or by a broken stream' });
      } else if (outcome.malformed) {
        result.errors.push({ url: sitemapUrl, message: 'malformed XML; kept the URLs that parsed' });
      }
    } catch (err) {
      if (!signal.aborted) result.errors.push({ url: sitemapUrl, message: (err as Error).message });
    } finally {
      own.abort();
    }
  };

  try {
    for (const url of wellKnownSitemaps(siteUrl)) enqueue(url);
    await new Promise<void>((resolve) => {
      // robots.txt is read alongside the well-known files, so a slow one holds nothing up;
      // it counts as work in progress until its sitemaps are queued.
      let active = 1;
      const pump = (): void => {
        while (!signal.aborted && active < concurrency && queue.length > 0) {
          const next = queue.shift()!;
          active++;
          result.sitemapsFetched++;
          void fetchOne(next).finally(() => { active--; pump(); });
        }
        if (active === 0) resolve();
      };
      void robotsSitemaps(siteUrl, { allow: opts.allow, signal, fetchTimeoutMs: timeoutMs })
        .then((urls) => { for (const url of urls) enqueue(url); })
        .finally(() => { active--; pump(); });
      pump();
    });
  } finally {
    opts.signal?.removeEventListener('abort', onDeadline);
    stop.abort();
  }
  return result;
}
