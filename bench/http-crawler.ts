// The no-browser HTTP crawler baseline (CheerioCrawler-style), run as its own process
// (`node dist/bench/http-crawler.js`) so its CPU and memory are read from /proc like the
// system's: a breadth-first crawl of one site with `concurrency` plain fetch() GETs at once,
// each page put through the transformer's own extraction (transformPage, markdown) in this
// process, its links followed within the site's origin. URLs are told apart without their
// #fragment and trailing slash, as a crawler's request queue does. No queue service, no
// events, no storage, no browser.
//
// Input on stdin: {"startUrl": string, "concurrency": number, "limit": number, "warmupUrls": string[]}.
// The warm-up URLs are fetched and transformed first and not reported. Output on stdout: one JSON object.
import { normalizeScrapeOptions } from '../shared/src/domain/scrape-options.js';
import { transformPage } from '../services/transformer/src/transform.js';

export const HTTP_CRAWLER_READY = 'HTTP_CRAWLER_READY';

export interface HttpCrawlerInput {
  startUrl: string;
  concurrency: number;
  limit: number;
  warmupUrls: string[];
}

export interface HttpCrawlerOutput {
  /** From the first page's request to the last page's markdown. */
  wallMs: number;
  /** Paths of the pages crawled. */
  crawled: string[];
  failed: number;
  markdownBytes: number;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** The request queue's key: no fragment, no trailing slash (the root aside). */
function queueKey(url: URL): string {
  const u = new URL(url);
  u.hash = '';
  if (u.pathname.length > 1) u.pathname = u.pathname.replace(/\/+$/, '');
  return u.href;
}

const options = normalizeScrapeOptions({ formats: ['markdown'] });

async function page(url: string): Promise<{ links: string[]; markdownBytes: number }> {
  const res = await fetch(url, { redirect: 'follow' });
  const html = await res.text();
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
  const out = transformPage({ html, url: res.url, options, statusCode: res.status });
  return { links: out.links, markdownBytes: Buffer.byteLength(out.markdown ?? '') };
}

async function main(): Promise<void> {
  const input = JSON.parse(await readStdin()) as HttpCrawlerInput;
  for (const url of input.warmupUrls) await page(url);
  // The parent starts measuring CPU and memory here, after the warm-up.
  process.stderr.write(`${HTTP_CRAWLER_READY}\n`);
  const origin = new URL(input.startUrl).origin;
  const seen = new Set<string>([queueKey(new URL(input.startUrl))]);
  const queue = [input.startUrl];
  const crawled: string[] = [];
  let failed = 0;
  let markdownBytes = 0;
  let active = 0;
  const started = performance.now();
  await new Promise<void>((resolve) => {
    const pump = (): void => {
      if (queue.length === 0 && active === 0) { resolve(); return; }
      while (active < input.concurrency && queue.length > 0) {
        const url = queue.shift()!;
        active++;
        page(url).then((got) => {
          crawled.push(new URL(url).pathname);
          markdownBytes += got.markdownBytes;
          for (const link of got.links) {
            let target: URL;
            try { target = new URL(link, url); } catch { continue; }
            if (target.origin !== origin) continue;
            const key = queueKey(target);
            if (seen.has(key) || seen.size >= input.limit) continue;
            seen.add(key);
            queue.push(key);
          }
        }, () => { failed++; }).finally(() => { active--; pump(); });
      }
    };
    pump();
  });
  const output: HttpCrawlerOutput = { wallMs: performance.now() - started, crawled, failed, markdownBytes };
  process.stdout.write(`${JSON.stringify(output)}\n`);
}

await main();
