// What the monitor endpoints do, without HTTP (docs/api.md "Monitors"): check the request
// (URLs: syntax and SSRF; the schedule: cron syntax and the shortest gap; the crawl and
// page options as a crawl or scrape would), keep the key within its plan's monitor count,
// and append monitor_created / monitor_deleted. Reads come from the log: a key's monitors
// are `trawl.monitor.<keyId>.*.<event>`, built from the caller's key id (never from input),
// so another key's monitor cannot be named.
import { ForbiddenError, NotFoundError } from '../../../../shared/src/domain/errors.js';
import { normalizeCrawlRequest } from '../../../../shared/src/domain/crawl-options.js';
import { makeEvent, type EventData, type MonitorCreated } from '../../../../shared/src/domain/events/index.js';
import { checkSchedule, nextTickAfter } from '../../../../shared/src/domain/monitors/schedule.js';
import { PLAN_LIMITS } from '../../../../shared/src/domain/plans.js';
import { normalizeScrapeOptions } from '../../../../shared/src/domain/scrape-options.js';
import { SUBJECT_ROOT } from '../../../../shared/src/infra/subjects.js';
import type { Caller } from '../plugins/auth.js';
import type { JobServiceDeps } from '../job-service.js';
import { checkSubmittedUrl } from '../url-policy.js';
import type { MonitorCreateBody, MonitorSummary, MonitorView } from '../../../../shared/src/api/index.js';

/** A page a run's webhook named: its change, and its diff unless it did not fit the webhook. */
export interface MonitorRunPage {
  url: string;
  changeStatus: string;
  diff?: string;
  diffOmitted?: true;
}

export interface MonitorRun {
  run: EventData<'monitor_run_finished'>;
  pages: MonitorRunPage[];
}

export interface MonitorServiceDeps extends Pick<JobServiceDeps, 'log' | 'urlPolicy' | 'newId' | 'clock'> {
  minIntervalMs: number;
}

export class MonitorService {
  constructor(private readonly deps: MonitorServiceDeps) {}

  async create(caller: Caller, body: MonitorCreateBody): Promise<MonitorView> {
    const now = this.deps.clock();
    const url = (await checkSubmittedUrl(body.url, this.deps.urlPolicy)).toString();
    await checkSubmittedUrl(body.webhookUrl, this.deps.urlPolicy, 'webhookUrl');
    checkSchedule(body.schedule, this.deps.minIntervalMs, now);
    const id = this.deps.newId();
    const input = body.scrapeOptions ?? {};
    // Every run tracks changes in the monitor's own history (a tag), so its reports compare run with run.
    const formats = [...new Set([...(body.formats ?? input.formats ?? ['markdown']), 'changeTracking' as const])];
    const scrapeOptions = normalizeScrapeOptions({ ...input, formats, changeTrackingOptions: { tag: `monitor-${id}` } }, 'scrapeOptions.');
    const crawl = body.crawl ? pickCrawl(normalizeCrawlRequest({ url, ...body.crawl })) : undefined;
    const limit = PLAN_LIMITS[caller.plan].monitors;
    if ((await this.active(caller)).length >= limit) {
      throw new ForbiddenError(`the ${caller.plan} plan allows ${limit} monitor${limit === 1 ? '' : 's'}; delete one first`);
    }
    const data: MonitorCreated = {
      apiKeyId: caller.keyId, url, ...(crawl ? { crawl } : {}), scrapeOptions, schedule: body.schedule, webhookUrl: body.webhookUrl,
      notifyUnchanged: body.notifyUnchanged ?? false, createdAt: now.toISOString(),
    };
    await this.deps.log.append(makeEvent('monitor_created', this.at(caller, id), data, { eventId: this.deps.newId(), now }), { once: true });
    return view(id, data, null, null, null);
  }

  async get(caller: Caller, id: string): Promise<MonitorView> {
    const at = this.at(caller, id);
    const created = await this.deps.log.last({ ...at, event: 'monitor_created' });
    if (created?.event !== 'monitor_created' || created.data.apiKeyId !== caller.keyId) throw new NotFoundError(`no monitor with id "${id}"`);
    const [deleted, ticked, run] = await Promise.all([
      this.deps.log.last({ ...at, event: 'monitor_deleted' }),
      this.deps.log.last({ ...at, event: 'monitor_ticked' }),
      this.deps.log.last({ ...at, event: 'monitor_run_finished' }),
    ]);
    return view(id, created.data, deleted?.event === 'monitor_deleted' ? deleted.data : null,
      ticked?.event === 'monitor_ticked' ? ticked.data : null, run?.event === 'monitor_run_finished' ? run.data : null);
  }

  /**
   * The monitor's runs, newest first (at most `max`), each with the pages its webhook
   * named and their diffs: the monitor.changed body the scheduler put on the log (one point
   * read per run that notified). Deleted monitors keep their runs.
   */
  async runs(caller: Caller, id: string, max: number): Promise<MonitorRun[]> {
    await this.get(caller, id);
    const finished = await this.deps.log.read(`${SUBJECT_ROOT}.monitor.${caller.keyId}.${id}.monitor_run_finished`);
    const newest = finished.flatMap((e) => (e.event === 'monitor_run_finished' ? [e.data] : [])).reverse().slice(0, max);
    return Promise.all(newest.map(async (run) => {
      if (!run.notified) return { run, pages: [] };
      const hook = await this.deps.log.last({ kind: 'monitor', id: caller.keyId, part: `${id}-${run.runId}`, event: 'webhook_requested' });
      const body = hook?.event === 'webhook_requested' ? JSON.parse(hook.data.body) as { data?: { changed?: MonitorRunPage[] } } : undefined;
      return { run, pages: body?.data?.changed ?? [] };
    }));
  }

  /** The caller's monitors not deleted, oldest first. */
  async list(caller: Caller): Promise<MonitorSummary[]> {
    return (await this.active(caller)).map(({ id, data }) => summary(id, data, false));
  }

  async remove(caller: Caller, id: string): Promise<{ id: string; status: 'DELETED' }> {
    const monitor = await this.get(caller, id);
    if (monitor.status === 'DELETED') throw new NotFoundError(`no monitor with id "${id}"`);
    const now = this.deps.clock();
    await this.deps.log.append(makeEvent('monitor_deleted', this.at(caller, id), { deletedAt: now.toISOString() }, { eventId: this.deps.newId(), now }), { once: true });
    return { id, status: 'DELETED' };
  }

  private at(caller: Caller, id: string) {
    return { kind: 'monitor' as const, id: caller.keyId, part: id };
  }

  private async active(caller: Caller): Promise<{ id: string; data: MonitorCreated }[]> {
    const base = `${SUBJECT_ROOT}.monitor.${caller.keyId}.*`;
    const [created, deleted] = await Promise.all([this.deps.log.read(`${base}.monitor_created`), this.deps.log.read(`${base}.monitor_deleted`)]);
    const gone = new Set(deleted.map((e) => e.part));
    return created.flatMap((e) => (e.event === 'monitor_created' && e.data.apiKeyId === caller.keyId && !gone.has(e.part) ? [{ id: e.part, data: e.data }] : []));
  }
}

function pickCrawl(c: ReturnType<typeof normalizeCrawlRequest>): NonNullable<MonitorCreated['crawl']> {
  return { maxDepth: c.maxDepth, limit: c.limit, includePaths: c.includePaths, excludePaths: c.excludePaths, allowExternalLinks: c.allowExternalLinks, ignoreRobots: c.ignoreRobots };
}

function summary(id: string, data: MonitorCreated, deleted: boolean): MonitorSummary {
  return { id, url: data.url, jobKind: data.crawl ? 'crawl' : 'scrape', schedule: data.schedule, status: deleted ? 'DELETED' : 'ACTIVE', createdAt: data.createdAt };
}

function view(
  id: string, data: MonitorCreated, deleted: EventData<'monitor_deleted'> | null,
  ticked: EventData<'monitor_ticked'> | null, run: EventData<'monitor_run_finished'> | null,
): MonitorView {
  const next = deleted ? null : nextTickAfter(data.schedule, new Date(data.createdAt), new Date(ticked?.tick ?? data.createdAt));
  return {
    ...summary(id, data, deleted !== null),
    formats: data.scrapeOptions.formats,
    ...(data.crawl ? { crawl: data.crawl } : {}),
    webhookUrl: data.webhookUrl,
    notifyUnchanged: data.notifyUnchanged,
    ...(next ? { nextRunAt: next.toISOString() } : {}),
    ...(ticked ? { lastTick: { tick: ticked.tick, runId: ticked.runId, jobKind: ticked.jobKind } } : {}),
    ...(run ? { lastRun: run } : {}),
  };
}
