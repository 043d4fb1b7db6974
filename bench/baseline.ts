// The naive baseline, run as its own process (`node dist/bench/baseline.js`) so its CPU and
// memory can be read from /proc like the system's: one Chromium launched once (same binary
// and flags as the fetcher), then per page a new context, goto (default waitUntil: load),
// page.content(), and in this process JSDOM + Readability + turndown (with the GFM plugin
// for tables, like the transformer). No queue, no events, no storage.
//
// Input on stdin: {"urls": string[], "concurrency": number, "warmup": number}. The first
// `warmup` URLs are processed and not reported. Output on stdout: one JSON object.
import { Readability } from '@mozilla/readability';
import { gfm } from '@joplin/turndown-plugin-gfm';
import { JSDOM, VirtualConsole } from 'jsdom';
import { chromium, type Browser } from 'playwright-core';
import TurndownService from 'turndown';
import { CHROMIUM_ARGS, resolveChromiumPath } from '../shared/src/infra/chromium.js';

export const BASELINE_READY = 'BASELINE_READY';

export interface BaselineInput {
  urls: string[];
  concurrency: number;
  warmup: number;
}

export interface BaselinePage {
  url: string;
  totalMs: number;
  /** New context, goto, content, context close. */
  browserMs: number;
  /** JSDOM parse, Readability, turndown. */
  transformMs: number;
  markdownBytes: number;
}

export interface BaselineOutput {
  launchMs: number;
  /** From the first reported page's start to the last one's end. */
  wallMs: number;
  pages: BaselinePage[];
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function makeTurndown(): TurndownService {
  const service = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced' });
  service.use(gfm);
  return service;
}

async function scrape(browser: Browser, turndown: TurndownService, url: string): Promise<BaselinePage> {
  const started = performance.now();
  const context = await browser.newContext();
  let html: string;
  try {
    const page = await context.newPage();
    await page.goto(url, { timeout: 30_000 });
    html = await page.content();
  } finally {
    await context.close();
  }
  const fetched = performance.now();
  const dom = new JSDOM(html, { url, virtualConsole: new VirtualConsole() });
  const article = new Readability(dom.window.document).parse();
  const markdown = turndown.turndown(article?.content ?? dom.window.document.body.innerHTML);
  dom.window.close();
  const done = performance.now();
  return { url, totalMs: done - started, browserMs: fetched - started, transformMs: done - fetched, markdownBytes: Buffer.byteLength(markdown) };
}

async function main(): Promise<void> {
  const input = JSON.parse(await readStdin()) as BaselineInput;
  const launchStarted = performance.now();
  const browser = await chromium.launch({ executablePath: resolveChromiumPath(process.env.CHROMIUM_PATH), args: CHROMIUM_ARGS });
  const launchMs = performance.now() - launchStarted;
  const turndown = makeTurndown();
  try {
    for (const url of input.urls.slice(0, input.warmup)) await scrape(browser, turndown, url);
    // The parent starts measuring CPU and memory here, after the launch and the warm-up.
    process.stderr.write(`${BASELINE_READY}\n`);
    const urls = input.urls.slice(input.warmup);
    const pages: BaselinePage[] = new Array(urls.length);
    let next = 0;
    const started = performance.now();
    await Promise.all(Array.from({ length: Math.max(1, input.concurrency) }, async () => {
      while (next < urls.length) {
        const i = next++;
        pages[i] = await scrape(browser, turndown, urls[i]!);
      }
    }));
    const output: BaselineOutput = { launchMs, wallMs: performance.now() - started, pages };
    process.stdout.write(`${JSON.stringify(output)}\n`);
  } finally {
    await browser.close();
  }
}

await main();
