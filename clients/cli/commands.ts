// The CLI's commands, each a function of parsed arguments that prints its result and
// returns the exit code. Output goes to stdout (the result; JSON with --json), progress and
// messages to stderr, so `trawl … --json | jq` and `trawl map … > urls.txt` work.
import fs from 'node:fs';
import type { Trawl } from '../sdk/client.js';
import type { BatchHandle, CrawlHandle } from '../sdk/job-handle.js';
import type { EventKind, JobKind, ScrapeJob } from '../sdk/types.js';
import { PageWriter, type PageLike } from './pages-out.js';
import { JobProgress } from './progress.js';

export const EXIT = { ok: 0, failed: 1, usage: 2, auth: 3, limited: 4, interrupted: 130 } as const;

export type Flags = Record<string, string | boolean | string[] | undefined>;
export interface Io { out: (s: string) => void; err: (s: string) => void }

const FORMATS = ['markdown', 'html', 'rawHtml', 'links', 'screenshot', 'changeTracking'] as const;
type Format = (typeof FORMATS)[number];

export class UsageError extends Error {}

const int = (flags: Flags, name: string): number | undefined => {
  const v = flags[name];
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n)) throw new UsageError(`--${name} must be an integer, not "${String(v)}"`);
  return n;
};
const list = (v: string | boolean | string[] | undefined): string[] | undefined => (Array.isArray(v) ? v : typeof v === 'string' ? [v] : undefined);

/** The formats of --format: one, or several comma-separated (then the output is JSON). */
export function parseFormats(flags: Flags): Format[] {
  const raw = typeof flags.format === 'string' ? flags.format : 'markdown';
  const formats = [...new Set(raw.split(',').map((f) => f.trim()).filter(Boolean))];
  const bad = formats.filter((f) => !FORMATS.includes(f as Format));
  if (formats.length === 0 || bad.length) throw new UsageError(`--format takes ${FORMATS.join(', ')} (comma-separated for several), not "${bad.join(',') || raw}"`);
  return formats as Format[];
}

export async function scrape(trawl: Trawl, url: string, flags: Flags, io: Io): Promise<number> {
  const formats = parseFormats(flags);
  const format = formats[0]!;
  const several = formats.length > 1;
  const timeout = int(flags, 'timeout');
  const job = await trawl.scrape(url, {
    // changeTracking is reported beside the markdown it compares (docs/api.md).
    formats: formats.includes('changeTracking') && !formats.includes('markdown') ? [...formats, 'markdown'] : formats,
    ...(flags['full-page'] ? { onlyMainContent: false } : {}),
    ...(typeof flags['wait-for'] === 'string' ? { waitFor: /^\d+$/.test(flags['wait-for']) ? Number(flags['wait-for']) : flags['wait-for'] } : {}),
    ...(timeout !== undefined ? { timeout } : {}),
    ...(formats.includes('screenshot') ? { screenshotOptions: { response: 'base64' as const, fullPage: Boolean(flags['full-page']) } } : {}),
  });
  const file = typeof flags.output === 'string' ? flags.output : undefined;
  const status = httpStatusOf(job);
  const warned = status !== undefined && status >= 400;
  if (warned) io.err(`warning: ${url} answered HTTP ${status}; this is the content of its error page\n`);
  const code = warned ? EXIT.failed : EXIT.ok;
  if (several) {
    const text = `${JSON.stringify(job)}\n`;
    if (file) { fs.writeFileSync(file, text); io.err(`${formats.join(', ')} written to ${file} (JSON)\n`); } else io.out(text);
    return code;
  }
  if (format === 'screenshot') {
    const data = job.screenshot?.data ?? '';
    const target = file ?? `screenshot.${job.screenshot?.format ?? 'png'}`;
    fs.writeFileSync(target, Buffer.from(data.slice(data.indexOf(',') + 1), 'base64'));
    if (flags.json) io.out(JSON.stringify({ ...job, screenshot: { ...job.screenshot, data: undefined, file: target } }));
    else io.err(`screenshot written to ${target}\n`);
    return code;
  }
  const text = contentOf(job, format);
  if (flags.json) io.out(JSON.stringify(job));
  else if (file) { fs.writeFileSync(file, text); io.err(`${format} written to ${file}\n`); } else io.out(text);
  return code;
}

/** The page's HTTP status (`metadata.statusCode`, docs/api.md), when the server gave it. */
function httpStatusOf(page: { metadata?: object }): number | undefined {
  const status = (page.metadata as { statusCode?: unknown } | undefined)?.statusCode;
  return typeof status === 'number' ? status : undefined;
}

function contentOf(job: ScrapeJob, format: Exclude<Format, 'screenshot'>): string {
  if (format === 'changeTracking') return changeReport(job);
  if (format === 'links') return (job.links ?? []).map((l) => `${l}\n`).join('');
  const text = job[format] ?? '';
  return text.endsWith('\n') ? text : `${text}\n`;
}

/** A status line (and what it was compared with), then the unified diff when there is one. */
function changeReport(job: ScrapeJob): string {
  const c = job.changeTracking;
  if (!c) return 'no change report\n';
  const status = c.observed === false ? `not observed (HTTP ${c.statusCode ?? '?'})` : (c.changeStatus ?? 'unknown');
  const since = c.previousScrapeAt ? ` since ${c.previousScrapeAt}` : '';
  const diff = c.diff ? (c.diff.endsWith('\n') ? c.diff : `${c.diff}\n`) : c.diffUnavailable ? `(no diff: ${c.diffUnavailable})\n` : '';
  return `${status}${since}\n${diff}`;
}

/** Runs a crawl or batch to its end with a progress bar, writing its pages; Ctrl-C cancels it. */
async function follow(handle: CrawlHandle | BatchHandle, label: string, startUrl: string, flags: Flags, io: Io): Promise<number> {
  const dir = typeof flags.output === 'string' ? flags.output : safeDirName(startUrl);
  const writer = new PageWriter(dir, new URL(startUrl).host);
  const progress = new JobProgress(`${label} ${handle.id}`, process.stderr, process.stderr.isTTY === true && !flags.json);
  let interrupted = false;
  const onSigint = (): void => {
    if (interrupted) process.exit(EXIT.interrupted); // a second Ctrl-C: leave at once
    interrupted = true;
    progress.say('cancelling… (Ctrl-C again to quit at once)');
    handle.cancel().catch((err: unknown) => io.err(`cancel failed: ${(err as Error).message}\n`));
  };
  process.on('SIGINT', onSigint);
  try {
    let failedPages = 0;
    let errorPages = 0;
    for await (const page of handle.pages({ onProgress: (v) => progress.update(v), ...(flags.interval ? { progressIntervalMs: int(flags, 'interval')! } : {}) })) {
      const p = page as PageLike;
      if (p.status === 'CANCELLED') continue;
      if (p.error || p.status === 'FAILED') failedPages++;
      else if ((httpStatusOf(p) ?? 0) >= 400) errorPages++;
      writer.write(p);
    }
    const final = await handle.status();
    progress.stop(final);
    if (flags.json) io.out(JSON.stringify({ id: final.id, status: final.status, totalUrls: final.totalUrls, completedUrls: final.completedUrls, failedUrls: final.failedUrls, ...(final.error ? { error: final.error } : {}), dir, files: writer.files }));
    else io.err(`${writer.files.length} files written to ${dir}${failedPages ? ` (${failedPages} failed pages)` : ''}\n`);
    if (errorPages && !flags.json) io.err(`warning: ${errorPages} of the pages answered HTTP >= 400 (their statusCode is in each file's front matter)\n`);
    if (final.status === 'FAILED') io.err(`${label} ${handle.id} failed: ${final.error?.message ?? 'no reason given'}\n`);
    if (final.status === 'CANCELLED') return interrupted ? EXIT.interrupted : EXIT.failed;
    return final.status === 'COMPLETED' ? EXIT.ok : EXIT.failed;
  } finally {
    process.off('SIGINT', onSigint);
  }
}

/** Follows a crawl started elsewhere (or downloads a finished one) by its id. */
export async function followCrawl(trawl: Trawl, id: string, flags: Flags, io: Io): Promise<number> {
  const handle = trawl.crawlJob(id);
  const view = await handle.status();
  return follow(handle, 'crawl', view.startUrl, flags, io);
}

/** Follows a batch by its id; its folder is named after its first page's host. */
export async function followBatch(trawl: Trawl, id: string, flags: Flags, io: Io): Promise<number> {
  const handle = trawl.batchJob(id);
  const view = await handle.status();
  return follow(handle, 'batch', view.data[0]?.url ?? `http://batch-${id}/`, flags, io);
}

/** The key's id, plan, limits and what is left of them (never the key itself). */
export async function whoami(trawl: Trawl, flags: Flags, io: Io): Promise<number> {
  const k = await trawl.key();
  if (flags.json) { io.out(`${JSON.stringify({ apiUrl: trawl.transport.apiUrl, ...k })}\n`); return EXIT.ok; }
  const off = (on: boolean): string => (on ? '' : ' (not enforced on this server)');
  io.out([
    `server     ${trawl.transport.apiUrl}`,
    `key        ${k.keyId}`,
    `plan       ${k.plan}`,
    `limits     ${k.limits.requestsPerMinute} requests/min, ${k.limits.concurrentJobs} jobs at once${off(k.enforced.concurrency)}`,
    `quota      ${k.pagesLeft.toLocaleString('en')} of ${k.limits.monthlyPages.toLocaleString('en')} pages left in ${k.month}${k.pagesHeld ? ` (${k.pagesHeld} held by running jobs)` : ''}${off(k.enforced.quota)}; renews ${k.quotaRenewsAt}`,
    `running    ${k.runningJobs} jobs`,
  ].map((l) => `${l}\n`).join(''));
  return EXIT.ok;
}

const safeDirName = (url: string): string => new URL(url).host.replace(/[^A-Za-z0-9._-]+/g, '_');

export async function crawl(trawl: Trawl, url: string, flags: Flags, io: Io): Promise<number> {
  const limit = int(flags, 'limit');
  const maxDepth = int(flags, 'depth');
  const includePaths = list(flags.include);
  const excludePaths = list(flags.exclude);
  const handle = await trawl.crawl(url, {
    ...(limit !== undefined ? { limit } : {}),
    ...(maxDepth !== undefined ? { maxDepth } : {}),
    ...(includePaths ? { includePaths } : {}),
    ...(excludePaths ? { excludePaths } : {}),
    ...(flags['ignore-robots'] ? { ignoreRobots: true } : {}),
    ...(flags['external-links'] ? { allowExternalLinks: true } : {}),
    ...(typeof flags.webhook === 'string' ? { webhookUrl: flags.webhook } : {}),
  });
  return follow(handle, 'crawl', url, flags, io);
}

export async function batch(trawl: Trawl, file: string, flags: Flags, io: Io): Promise<number> {
  const text = file === '-' ? fs.readFileSync(0, 'utf8') : fs.readFileSync(file, 'utf8');
  const urls = text.split(/\r?\n/).map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
  if (urls.length === 0) throw new UsageError(`${file} lists no URL (one per line)`);
  const handle = await trawl.batchScrape(urls, { ignoreInvalidUrls: Boolean(flags['skip-invalid']) });
  for (const bad of handle.invalidUrls) io.err(`skipped invalid URL: ${bad}\n`);
  return follow(handle, 'batch', urls.find((u) => !handle.invalidUrls.includes(u)) ?? urls[0]!, flags, io);
}

export async function map(trawl: Trawl, url: string, flags: Flags, io: Io): Promise<number> {
  const limit = int(flags, 'limit');
  const result = await trawl.map(url, {
    ...(typeof flags.search === 'string' ? { search: flags.search } : {}),
    ...(limit !== undefined ? { limit } : {}),
    ...(flags['ignore-sitemap'] ? { ignoreSitemap: true } : {}),
    ...(flags.subdomains ? { includeSubdomains: true } : {}),
  });
  io.out(flags.json ? JSON.stringify(result) : result.links.map((l) => `${l}\n`).join(''));
  return EXIT.ok;
}

export async function jobs(trawl: Trawl, flags: Flags, io: Io): Promise<number> {
  const kind = flags.kind as JobKind | undefined;
  if (kind && !['scrape', 'crawl', 'batch'].includes(kind)) throw new UsageError('--kind must be scrape, crawl or batch');
  const limit = int(flags, 'limit');
  const items = await trawl.jobs.list({ ...(kind ? { kind } : {}), ...(limit !== undefined ? { limit } : {}) });
  if (flags.json) { io.out(JSON.stringify(items)); return EXIT.ok; }
  for (const j of items) {
    const what = 'url' in j ? j.url : 'startUrl' in j ? `${j.startUrl} (${j.completedUrls}/${j.totalUrls} pages)` : `${j.completedUrls}/${j.totalUrls} pages`;
    io.out(`${j.createdAt}  ${j.kind.padEnd(6)} ${j.id}  ${j.status.padEnd(10)} ${what}\n`);
  }
  return EXIT.ok;
}

export async function events(trawl: Trawl, id: string, flags: Flags, io: Io): Promise<number> {
  const kind = flags.kind as EventKind | undefined;
  const all = [];
  for await (const e of trawl.events(id, kind ? { kind } : {})) {
    if (flags.json) all.push(e);
    else io.out(`${String(e.seq).padStart(6)}  ${e.occurredAt}  ${e.event.padEnd(28)} ${e.part}\n`);
  }
  if (flags.json) io.out(JSON.stringify(all));
  return EXIT.ok;
}
