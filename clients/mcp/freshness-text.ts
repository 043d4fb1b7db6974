// The recrawl report and monitors as a model reads them (the recrawl and monitor_* tools):
// counts first, then the pages that changed, were added or removed, each list bounded so
// a large site's answer stays within a model's context.
import type { Monitor, MonitorListItem, RecrawlReport } from '../sdk/types.js';

/** URLs listed per page status at most; the rest are counted. */
export const LISTED_URLS = 200;

function urls(label: string, list: string[]): string {
  if (!list.length) return '';
  const more = list.length > LISTED_URLS ? `\n  … and ${list.length - LISTED_URLS} more` : '';
  return `\n${label}:\n${list.slice(0, LISTED_URLS).map((u) => `  ${u}`).join('\n')}${more}`;
}

export function recrawlText(r: RecrawlReport): string {
  const c = r.counts;
  const state = r.complete
    ? `Recrawl ${r.id} of crawl ${r.recrawlOf}: ${r.status}.`
    : `Recrawl ${r.id} of crawl ${r.recrawlOf} is ${r.status}; so far:`;
  const of = (status: string): string[] => r.pages.filter((p) => p.status === status).map((p) => (p.reason ? `${p.url} (${p.reason})` : p.url));
  const notModified = r.pages.filter((p) => p.notModified).length;
  const lines = [
    `${state} ${c.changed} changed, ${c.new} new, ${c.removed} removed, ${c.same} same (${notModified} answered 304 Not Modified), `
    + `${c.unchanged} skipped as unchanged by their sitemap lastmod, ${c.failed} failed.`,
    urls('Changed', of('changed')), urls('New', of('new')), urls('Removed', of('removed')), urls('Failed', r.failedUrls),
  ];
  const next = r.complete
    ? `\nThe pages (with diffs when changeTracking was asked): crawl_results {"id": "${r.id}"}.`
    : `\nCall recrawl {"id": "${r.id}", "report": true} to wait for the rest.`;
  return `${lines.join('')}${next}`;
}

function scheduleText(s: MonitorListItem['schedule']): string {
  return 'intervalSeconds' in s ? `every ${s.intervalSeconds} s` : `cron "${s.cron}"${s.timezone ? ` (${s.timezone})` : ''}`;
}

export function monitorListText(list: MonitorListItem[]): string {
  if (!list.length) return 'No monitors. monitor_create makes one.';
  return `${list.length} monitors:\n${list.map((m) => `${m.id}: ${m.jobKind} ${m.url}, ${scheduleText(m.schedule)}, ${m.status}`).join('\n')}`;
}

export function monitorText(m: Monitor): string {
  const head = `Monitor ${m.id}: ${m.jobKind} ${m.url}, ${scheduleText(m.schedule)}, ${m.status}; webhook ${m.webhookUrl}.`
    + `${m.nextRunAt ? ` Next run ${m.nextRunAt}.` : ''}`;
  const run = m.lastRun;
  if (!run) return `${head}\n${m.lastTick ? `A run is going: ${m.lastTick.jobKind} ${m.lastTick.runId}.` : 'No run yet.'}`;
  if (run.status === 'SKIPPED') return `${head}\nLast run (${run.tick}) SKIPPED: ${run.reason ?? 'no reason given'}.`;
  const changed = run.changed.map((c) => `${c.url} (${c.changeStatus})`);
  const pages = m.jobKind === 'crawl' ? ` Its pages and diffs: crawl_results {"id": "${run.runId}"}.` : '';
  return `${head}\nLast run (${run.tick}, ${m.jobKind} ${run.runId}): ${run.status}, ${run.changed.length} changed, ${run.unchanged} unchanged`
    + `${run.notified ? ', webhook sent' : ''}.${urls('Changed', changed)}${pages}`;
}
