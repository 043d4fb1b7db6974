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

export async function scrape(trawl: Trawl, url: string, flags: Flags, io: Io): Promise<number> {
  const format = (flags.format ?? 'markdown') as Format;
  if (!FORMATS.includes(format)) throw new UsageError(`--format must be one of ${FORMATS.join(', ')}`);
  const timeout = int(flags, 'timeout');
  const job = await trawl.scrape(url, {
    // changeTracking is reported beside the markdown it compares (docs/api.md).
    formats: format === 'changeTracking' ? ['markdown', 'changeTracking'] : [format],
    ...(flags['full-page'] ? { onlyMainContent: false } : {}),
    ...(typeof flags['wait-for'] === 'string' ? { waitFor: /^\d+$/.test(flags['wait-for']) ? Number(flags['wait-for']) : flags['wait-for'] } : {}),
    ...(timeout !== undefined ? { timeout } : {}),
    ...(format === 'screenshot' ? { screenshotOptions: { response: 'base64' as const, fullPage: Boolean(flags['full-page']) } } : {}),
  });
  const file = typeof flags.output === 'string' ? flags.output : undefined;
  if (format === 'screenshot') {
    const data = job.screenshot?.data ?? '';
    const target = file ?? `screenshot.${job.screenshot?.format ?? 'png'}`;
    fs.writeFileSync(target, Buffer.from(data.slice(data.indexOf(',') + 1), 'base64'));
    if (flags.json) io.out(JSON.stringify({ ...job, screenshot: { ...job.screenshot, data: undefined, file: target } }));
    else io.err(`screenshot written to ${target}\n`);
    return EXIT.ok;
  }
  const text = contentOf(job, format);
  if (flags.json) io.out(JSON.stringify(job));
  else if (file) { fs.writeFileSync(file, text); io.err(`${format} written to ${file}\n`); } else io.out(text);
  return EXIT.ok;
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
    for await (const page of handle.pages({ onProgress: (v) => progress.update(v), ...(flags.interval ? { progressIntervalMs: int(flags, 'interval')! } : {}) })) {
      const p = page as PageLike;
      if (p.status === 'CANCELLED') continue;
      if (p.error || p.status === 'FAILED') failedPages++;
      writer.write(p);
    }
    const final = await handle.status();
    progress.stop(final);
    if (flags.json) io.out(JSON.stringify({ id: final.id, status: final.status, totalUrls: final.totalUrls, completedUrls: final.completedUrls, failedUrls: final.failedUrls, ...(final.error ? { error: final.error } : {}), dir, files: writer.files }));
    else io.err(`${writer.files.length} files written to ${dir}${failedPages ? ` (${failedPages} failed pages)` : ''}\n`);
    if (final.status === 'CANCELLED') return interrupted ? EXIT.interrupted : EXIT.failed;
    return final.status === 'COMPLETED' ? EXIT.ok : EXIT.failed;
  } finally {
    process.off('SIGINT', onSigint);
  }
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
