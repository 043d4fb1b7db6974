// A monitor's run, the IO around the decider: the run's job (an ordinary scrape or crawl,
// admitted against its key's monthly quota like any job, then appended `once` under the id
// the tick named, so a scheduler that dies after the tick and before the job makes the same
// job when it comes back), whether it has finished, and what changed in it (its pages'
// change-tracking reports, from their stored results).
import type { MonitorCreated } from '../../../../shared/src/domain/events/monitor.js';
import { JOB_PART } from '../../../../shared/src/domain/events/job.js';
import { makeEvent, type PageResultPayload, type StoredEvent } from '../../../../shared/src/domain/events/index.js';
import type { IdGenerator } from '../../../../shared/src/infra/ids.js';
import type { EventLog } from '../../../../shared/src/infra/nats/event-log.js';
import type { PayloadStore } from '../../../../shared/src/infra/nats/payloads.js';
import { SUBJECT_ROOT } from '../../../../shared/src/infra/subjects.js';
import { RateLimitedError } from '../../../../shared/src/domain/errors.js';
import type { Admission, Need } from '../../../../shared/src/infra/admission/plan-limits.js';
import { normalizeUrl, urlKeyHash } from '../../../../shared/src/net/url-normalize.js';

export interface RunDeps {
  log: EventLog;
  payloads: Pick<PayloadStore, 'getJson'>;
  newId: IdGenerator;
  /**
   * Charges a run to its key's plan (the gateway's admission: key-usage read model plus
   * the admission ledger); throws QUOTA_EXCEEDED to refuse. Absent, or answering
   * undefined (the key is not in this process's read model): the run is not charged.
   */
  admit?: (keyId: string, need: Need) => Promise<Admission | undefined>;
}

export interface RunPage {
  url: string;
  changeStatus?: string | undefined;
  diff?: string | undefined;
}

export interface RunOutcome {
  status: string;
  /** Why a run did not run (SKIPPED). */
  reason?: string;
  pages: RunPage[];
}

/** The run's page key (a scrape run has one page). */
function pageKeyOf(url: string): string {
  return urlKeyHash(normalizeUrl(url)!.key);
}

/**
 * Appends the run's job (once: a repeat is refused by the log), after charging it to the
 * key's quota: a scrape one page, a crawl at least one and at most its limit (lowered to
 * what the quota leaves, as for POST /crawl). Returns the reason when the quota refuses the
 * run. A job already on the log (appended before a restart) is not charged again.
 */
export async function startRun(deps: RunDeps, def: MonitorCreated, runId: string, now: Date): Promise<{ skipped: string } | undefined> {
  const at = def.crawl ? { kind: 'crawl' as const, id: runId, part: JOB_PART } : { kind: 'scrape' as const, id: runId, part: pageKeyOf(def.url) };
  if (await deps.log.exists({ ...at, event: def.crawl ? 'crawl_requested' : 'page_requested' })) return undefined;
  let admission: Admission | undefined;
  try {
    admission = await deps.admit?.(def.apiKeyId, { id: runId, pages: 1, ...(def.crawl ? { upToPages: def.crawl.limit } : {}), job: false });
  } catch (err) {
    if (err instanceof RateLimitedError && err.code === 'QUOTA_EXCEEDED') return { skipped: `QUOTA_EXCEEDED: ${err.message}` };
    throw err;
  }
  const meta = { eventId: deps.newId(), now };
  const requestedAt = now.toISOString();
  const event = def.crawl
    ? makeEvent('crawl_requested', at, {
      startUrl: def.url, ...def.crawl, limit: admission?.grantedPages ?? def.crawl.limit, scrapeOptions: def.scrapeOptions, apiKeyId: def.apiKeyId, requestedAt,
    }, meta)
    : makeEvent('page_requested', at, { url: def.url, options: def.scrapeOptions, apiKeyId: def.apiKeyId, depth: 0, requestedAt }, meta);
  const append = async (): Promise<number> => (await deps.log.append(event, { once: true })).seq;
  // The frontier does not wait for the projection: the reservation counts until the
  // key-usage read model shows the job, or expires (the ledger's TTL).
  if (admission) await admission.record(append, async () => false);
  else await append();
  return undefined;
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
  // A 304's page names an older page's result: its own report is on the event (reused-result.ts).
  const report = completed.data.reusedResult
    ? completed.data.reusedResult.changeTracking
    : (await deps.payloads.getJson<PageResultPayload>(completed.data.result)).changeTracking;
  return { url, changeStatus: report?.changeStatus, ...(report?.diff ? { diff: report.diff } : {}) };
}
