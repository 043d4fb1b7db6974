// What the scrape endpoints do, without HTTP: validate the URL against SSRF rules, append
// the page_requested event (the gateway never scrapes), wait for its projection, and read
// jobs back from the read model, scoped to the caller's key.
import { NotFoundError } from '../../../../shared/src/errors.js';
import { makeEvent } from '../../../../shared/src/events/index.js';
import type { Clock, IdGenerator } from '../../../../shared/src/ids.js';
import type { EventLog } from '../../../../shared/src/nats/event-log.js';
import { normalizeScrapeOptions, type ScrapeRequest } from '../../../../shared/src/scrape-options.js';
import type { Page, ReadModelStore, ScrapeJobDoc, ScrapeJobSummary } from '../../../../shared/src/store/index.js';
import { normalizeUrl, urlKeyHash } from '../../../../shared/src/url-normalize.js';
import type { Caller } from '../plugins/auth.js';
import type { ProjectionWaiter } from '../projection-wait.js';
import { checkSubmittedUrl, type UrlPolicy } from '../url-policy.js';

export interface ScrapeServiceDeps {
  log: EventLog;
  store: ReadModelStore;
  waiter: ProjectionWaiter;
  urlPolicy: UrlPolicy;
  newId: IdGenerator;
  clock: Clock;
}

export class ScrapeService {
  constructor(private readonly deps: ScrapeServiceDeps) {}

  async submit(caller: Caller, request: ScrapeRequest): Promise<{ id: string; status: 'PENDING' }> {
    const url = await checkSubmittedUrl(request.url, this.deps.urlPolicy);
    const normalized = normalizeUrl(url.toString())!;
    const options = normalizeScrapeOptions(request);
    const id = this.deps.newId();
    const now = this.deps.clock();
    const event = makeEvent(
      'page_requested',
      { kind: 'scrape', id, part: urlKeyHash(normalized.key) },
      { url: normalized.url, options, apiKeyId: caller.keyId, depth: 0, requestedAt: now.toISOString() },
      { eventId: this.deps.newId(), now },
    );
    const { seq } = await this.deps.log.append(event, { once: true });
    await this.deps.waiter.waitFor(seq);
    return { id, status: 'PENDING' };
  }

  /** The caller's job; another key's job is indistinguishable from a missing one. */
  async get(caller: Caller, id: string): Promise<ScrapeJobDoc> {
    const doc = await this.deps.store.getScrapeJob(id);
    if (!doc || doc.apiKeyId !== caller.keyId) throw new NotFoundError(`no scrape job with id "${id}"`);
    return doc;
  }

  list(caller: Caller, page: Page): Promise<ScrapeJobSummary[]> {
    return this.deps.store.listScrapeJobs(caller.keyId, page);
  }
}
