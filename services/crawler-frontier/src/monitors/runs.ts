// A monitor's run, the IO around the decider: the run's job (an ordinary scrape or crawl,
// appended `once` under the id the tick named, so a scheduler that dies after the tick and
// before the job makes the same job when it comes back), whether it has finished, and what
// changed in it (its pages' change-tracking reports, from their stored results).
import type { MonitorCreated } from '../../../../shared/src/domain/events/monitor.js';
import { JOB_PART } from '../../../../shared/src/domain/events/job.js';
import { makeEvent, type PageResultPayload, type StoredEvent } from '../../../../shared/src/domain/events/index.js';
import type { IdGenerator } from '../../../../shared/src/infra/ids.js';
import type { EventLog } from '../../../../shared/src/infra/nats/event-log.js';
import type { PayloadStore } from '../../../../shared/src/infra/nats/payloads.js';
import { SUBJECT_ROOT } from '../../../../shared/src/infra/subjects.js';
import { normalizeUrl, urlKeyHash } from '../../../../shared/src/net/url-normalize.js';

export interface RunDeps {
  log: EventLog;
  payloads: Pick<PayloadStore, 'getJson'>;
  newId: IdGenerator;
}

export interface RunPage {
  url: string;
  changeStatus?: string | undefined;
  diff?: string | undefined;
}

export interface RunOutcome {
  status: string;
  pages: RunPage[];
}

/** The run's page key (a scrape run has one page). */
function pageKeyOf(url: string): string {
  return urlKeyHash(normalizeUrl(url)!.key);
}

/** Appends the run's job (once: a repeat is refused by the log). */
export async function startRun(deps: RunDeps, def: MonitorCreated, runId: string, now: Date): Promise<void> {
  const meta = { eventId: deps.newId(), now };
  const requestedAt = now.toISOString();
  if (def.crawl) {
    await deps.log.append(makeEvent('crawl_requested', { kind: 'crawl', id: runId, part: JOB_PART }, {
      startUrl: def.url, ...def.crawl, scrapeOptions: def.scrapeOptions, apiKeyId: def.apiKeyId, requestedAt,
    }, meta), { once: true });
    return;
  }
  await deps.log.append(makeEvent('page_requested', { kind: 'scrape', id: runId, part: pageKeyOf(def.url) }, {
    url: def.url, options: def.scrapeOptions, apiKeyId: def.apiKeyId, depth: 0, requestedAt,
  }, meta), { once: true });
}

/** The run's end and its pages' reports; null while it runs. */
export async function runOutcome(deps: RunDeps, def: MonitorCreated, runId: string): Promise<RunOutcome | null> {
  if (!def.crawl) {
    const at = { kind: 'scrape' as const, id: runId, part: pageKeyOf(def.url) };
    const done = (await deps.log.last({ ...at, event: 'page_completed' })) ?? (await deps.log.last({ ...at, event: 'page_failed' }));
    if (!done) return null;
    if (done.event !== 'page_completed') return { status: 'FAILED', pages: [] };
    return { status: 'COMPLETED', pages: [await pageOf(deps, def.url, done)] };
  }
  const finished = await deps.log.last({ kind: 'crawl', id: runId, part: JOB_PART, event: 'crawl_finished' });
  if (finished?.event !== 'crawl_finished') return null;
  const events = await deps.log.read(`${SUBJECT_ROOT}.crawl.${runId}.>`);
  const urls = new Map<string, string>();
  for (const e of events) if (e.event === 'page_requested') urls.set(e.part, e.data.url);
  const pages: RunPage[] = [];
  for (const e of events) {
    if (e.event === 'page_completed') pages.push(await pageOf(deps, urls.get(e.part) ?? '', e));
  }
  return { status: finished.data.status, pages };
}

async function pageOf(deps: RunDeps, url: string, completed: StoredEvent & { event: 'page_completed' }): Promise<RunPage> {
  const payload = await deps.payloads.getJson<PageResultPayload>(completed.data.result);
  const report = payload.changeTracking;
  return { url, changeStatus: report?.changeStatus, ...(report?.diff ? { diff: report.diff } : {}) };
}
