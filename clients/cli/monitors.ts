// `trawl monitor …` and `trawl recrawl …`: monitors (a page or a crawl on a schedule, changes
// sent to a webhook) and reruns of a finished crawl with their report (docs/clients.md).
import type { Trawl } from '../sdk/client.js';
import type { Monitor, MonitorRequest, RecrawlReport } from '../sdk/types.js';
import { EXIT, parseFormats, UsageError, type Flags, type Io } from './commands.js';

const str = (flags: Flags, name: string): string | undefined => (typeof flags[name] === 'string' ? flags[name] : undefined);
const int = (flags: Flags, name: string): number | undefined => {
  const v = str(flags, name);
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n)) throw new UsageError(`--${name} must be an integer, not "${v}"`);
  return n;
};

/** The request of `monitor create`, checked before any request is made. */
export function monitorRequest(url: string, flags: Flags): MonitorRequest {
  const every = int(flags, 'every');
  const cron = str(flags, 'cron');
  if ((every === undefined) === (cron === undefined)) throw new UsageError('monitor create needs --every <seconds> or --cron <expression> (one of them)');
  const webhookUrl = str(flags, 'webhook');
  if (!webhookUrl) throw new UsageError('monitor create needs --webhook <url>');
  const tz = str(flags, 'tz');
  const limit = int(flags, 'limit');
  const depth = int(flags, 'depth');
  const crawl = flags.crawl === true || limit !== undefined || depth !== undefined;
  return {
    url,
    schedule: every !== undefined ? { intervalSeconds: every } : { cron: cron!, ...(tz ? { timezone: tz } : {}) },
    webhookUrl,
    ...(flags.format !== undefined ? { formats: parseFormats(flags) } : {}),
    ...(crawl ? { crawl: { ...(limit !== undefined ? { limit } : {}), ...(depth !== undefined ? { maxDepth: depth } : {}) } } : {}),
    ...(flags['notify-unchanged'] === true ? { notifyUnchanged: true } : {}),
  };
}

function describe(m: Monitor): string {
  const schedule = 'intervalSeconds' in m.schedule ? `every ${m.schedule.intervalSeconds} s` : `cron "${m.schedule.cron}"${m.schedule.timezone ? ` ${m.schedule.timezone}` : ''}`;
  const last = m.lastRun?.status === 'SKIPPED' ? `last run ${m.lastRun.finishedAt} SKIPPED: ${m.lastRun.reason ?? ''}`
    : m.lastRun ? `last run ${m.lastRun.finishedAt}: ${m.lastRun.changed.length} changed, ${m.lastRun.unchanged} unchanged${m.lastRun.notified ? ' (notified)' : ''}` : 'no run yet';
  return `${m.id}  ${m.status}  ${m.jobKind} ${m.url}  ${schedule}\n  next run ${m.nextRunAt ?? '-'}; ${last}\n${(m.lastRun?.changed ?? []).map((c) => `  ${c.changeStatus.padEnd(8)} ${c.url}\n`).join('')}`;
}

export async function monitor(trawl: Trawl, action: string | undefined, arg: string | undefined, flags: Flags, io: Io): Promise<number> {
  const need = (what: string): string => { if (!arg) throw new UsageError(`trawl monitor ${action} needs ${what}`); return arg; };
  const print = (value: unknown, text: string): void => io.out(flags.json ? JSON.stringify(value) : text);
  switch (action) {
    case 'create': {
      const created = await trawl.monitors.create(monitorRequest(need('a URL'), flags));
      print(created, describe(created));
      return EXIT.ok;
    }
    case 'get': { const m = await trawl.monitors.get(need('a monitor id')); print(m, describe(m)); return EXIT.ok; }
    case 'list': {
      const all = await trawl.monitors.list();
      print(all, all.map((m) => `${m.createdAt}  ${m.id}  ${m.jobKind.padEnd(6)} ${m.url}\n`).join(''));
      return EXIT.ok;
    }
    case 'delete': { const d = await trawl.monitors.delete(need('a monitor id')); print(d, `${d.id} deleted\n`); return EXIT.ok; }
    default: throw new UsageError(`trawl monitor takes create, get, list or delete, not "${action ?? ''}"`);
  }
}

/** Recrawls a finished crawl, waits for it, prints the report (one line per page). */
export async function recrawl(trawl: Trawl, crawlId: string, flags: Flags, io: Io): Promise<number> {
  const started = await trawl.recrawls.start(crawlId, flags.revalidate === true ? { revalidate: true } : {});
  io.err(`recrawl ${started.id} of ${crawlId} started\n`);
  await trawl.crawlJob(started.id).done();
  const report: RecrawlReport = await trawl.recrawls.report(started.id);
  if (flags.json) { io.out(JSON.stringify(report)); return EXIT.ok; }
  for (const p of report.pages) io.out(`${(p.status + (p.notModified ? '*' : '')).padEnd(9)} ${p.url}${p.reason ? ` (${p.reason})` : ''}\n`);
  for (const u of report.unchangedUrls) io.out(`${'skipped'.padEnd(9)} ${u} (sitemap lastmod)\n`);
  const c = report.counts;
  io.err(`${c.new} new, ${c.same} same, ${c.changed} changed, ${c.removed} removed, ${c.unchanged} skipped, ${c.failed} failed (* answered 304)\n`);
  return EXIT.ok;
}
