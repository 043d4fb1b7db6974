// The map fallback's way of opening a page: through the same page pipeline as a scrape.
// It appends page_requested on trawl.map.<mapId>.<pageKey>.page_requested (links format
// only) and waits for that page's page_completed or page_failed, which it reads from one
// core NATS subscription on the map's subjects (JetStream publishes reach core
// subscribers too). The subscription exists before the first page is requested, so no
// answer can be missed.
import type { NatsConnection, Subscription } from 'nats';
import { decodeEvent, makeEvent, type StoredEvent } from '../../../../shared/src/domain/events/index.js';
import type { Clock, IdGenerator } from '../../../../shared/src/infra/ids.js';
import type { Logger } from '../../../../shared/src/infra/logger.js';
import type { EventLog } from '../../../../shared/src/infra/nats/event-log.js';
import type { ResolvedScrapeOptions } from '../../../../shared/src/domain/scrape-options.js';
import { SUBJECT_ROOT } from '../../../../shared/src/infra/subjects.js';
import { normalizeUrl, urlKeyHash } from '../../../../shared/src/net/url-normalize.js';
import type { CrawlPageResult } from './browser-crawl.js';

export interface MapPagePipelineDeps {
  nc: NatsConnection;
  log: EventLog;
  logger: Logger;
  newId: IdGenerator;
  clock: Clock;
}

export interface MapPageJob {
  mapId: string;
  apiKeyId: string;
  options: ResolvedScrapeOptions;
}

/** A page that answered with an HTTP error is not a page of the site. */
function toResult(event: StoredEvent): CrawlPageResult | null {
  if (event.event === 'page_failed') return { ok: false, links: [], error: event.data.error };
  if (event.event !== 'page_completed') return null;
  const status = event.data.metadata.statusCode;
  if (status !== undefined && status >= 400) return { ok: false, links: [], error: { code: 'NETWORK_ERROR', message: `HTTP ${status}` } };
  return { ok: true, links: event.data.links };
}

export class MapPagePipeline {
  private readonly waiting = new Map<string, (result: CrawlPageResult) => void>();

  private constructor(private readonly deps: MapPagePipelineDeps, private readonly job: MapPageJob, private readonly sub: Subscription) {
    void this.listen();
  }

  static async open(deps: MapPagePipelineDeps, job: MapPageJob): Promise<MapPagePipeline> {
    const sub = deps.nc.subscribe(`${SUBJECT_ROOT}.map.${job.mapId}.*.*`);
    const pipeline = new MapPagePipeline(deps, job, sub);
    // The server has the subscription once the flush round trip returns.
    await deps.nc.flush();
    return pipeline;
  }

  private async listen(): Promise<void> {
    for await (const msg of this.sub) {
      const event = msg.subject.endsWith('.page_completed') || msg.subject.endsWith('.page_failed') ? this.decode(msg.subject, msg.data) : null;
      const result = event ? toResult(event) : null;
      if (!event || !result) continue;
      this.waiting.get(event.part)?.(result);
      this.waiting.delete(event.part);
    }
  }

  private decode(subject: string, data: Uint8Array): StoredEvent | null {
    try {
      return decodeEvent(subject, data, 0);
    } catch (err) {
      this.deps.logger.warn({ subject, err: String(err) }, 'undecodable page event ignored');
      return null;
    }
  }

  /** Requests the page and resolves with its links when the pipeline is done with it. */
  async fetchPage(url: string, depth: number, signal: AbortSignal): Promise<CrawlPageResult> {
    const normalized = normalizeUrl(url);
    if (!normalized) return { ok: false, links: [], error: { code: 'INVALID_URL', message: `"${url}" is not a valid URL` } };
    const part = urlKeyHash(normalized.key);
    const answered = new Promise<CrawlPageResult>((resolve) => this.waiting.set(part, resolve));
    const now = this.deps.clock();
    const { duplicate } = await this.deps.log.append(makeEvent('page_requested', { kind: 'map', id: this.job.mapId, part }, {
      url: normalized.url, options: this.job.options, apiKeyId: this.job.apiKeyId, depth, requestedAt: now.toISOString(),
    }, { eventId: this.deps.newId(), now }), { once: true });
    if (duplicate) {
      // A redelivered map job: this page was requested before and may have finished already.
      const earlier = (await this.deps.log.read(`${SUBJECT_ROOT}.map.${this.job.mapId}.${part}.>`)).map(toResult).find(Boolean);
      if (earlier) {
        this.waiting.delete(part);
        return earlier;
      }
    }
    return new Promise((resolve, reject) => {
      const onAbort = (): void => { this.waiting.delete(part); reject(signal.reason); };
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      void answered.then((result) => { signal.removeEventListener('abort', onAbort); resolve(result); });
    });
  }

  close(): void {
    this.sub.unsubscribe();
    this.waiting.clear();
  }
}
