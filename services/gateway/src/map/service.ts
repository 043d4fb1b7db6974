// What POST /api/v1/map does, without HTTP. The gateway does not crawl: it checks the URL,
// records map_requested, and waits for the map worker's map_completed or map_failed of
// that id. It subscribes before appending (core subscriptions receive JetStream
// publishes, and NATS keeps a connection's SUB before its PUB), so the answer cannot be
// missed however fast the worker is.
import type { NatsConnection } from 'nats';
import { MAP_REQUEST_DEFAULTS, type MapRequest, type MapResult } from '../../../../shared/src/api/index.js';
import { ERROR_CODES, ServiceUnavailableError, TrawlError, type ErrorCode } from '../../../../shared/src/domain/errors.js';
import { decodeEvent, makeEvent, type StoredEvent } from '../../../../shared/src/domain/events/index.js';
import { MAP_DEFAULT_BUDGET_MS } from '../../../../shared/src/domain/events/map.js';
import type { Clock, IdGenerator } from '../../../../shared/src/infra/ids.js';
import type { EventLog } from '../../../../shared/src/infra/nats/event-log.js';
import type { PayloadStore } from '../../../../shared/src/infra/nats/payloads.js';
import { SUBJECT_ROOT } from '../../../../shared/src/infra/subjects.js';
import type { Caller } from '../plugins/auth.js';
import type { Admitter } from '../../../../shared/src/infra/admission/plan-limits.js';
import type { ProjectionWaiter } from '../projection-wait.js';
import { checkSubmittedUrl, type UrlPolicy } from '../url-policy.js';


export interface MapServiceDeps {
  nc: NatsConnection;
  log: EventLog;
  payloads: PayloadStore;
  urlPolicy: UrlPolicy;
  newId: IdGenerator;
  clock: Clock;
  limits: Admitter;
  /** Read-your-writes for the usage the map counts; without it the reservation expires. */
  waiter?: Pick<ProjectionWaiter, 'waitFor'>;
  budgetMs?: number;
  /** Extra wait beyond the budget for the worker's answer to arrive. */
  replyMarginMs?: number;
}

/** A map the worker recorded as failed, answered with the worker's error code. */
export class MapFailedError extends TrawlError {
  readonly retryable = false;
  readonly code: ErrorCode;
  constructor(code: string, message: string) {
    super(message);
    this.code = code in ERROR_CODES ? (code as ErrorCode) : 'INTERNAL_ERROR';
  }
}

export class MapService {
  private readonly budgetMs: number;
  private readonly replyMarginMs: number;

  constructor(private readonly deps: MapServiceDeps) {
    this.budgetMs = deps.budgetMs ?? MAP_DEFAULT_BUDGET_MS;
    this.replyMarginMs = deps.replyMarginMs ?? 5_000;
  }

  async map(caller: Caller, body: MapRequest): Promise<MapResult> {
    const url = await checkSubmittedUrl(body.url, this.deps.urlPolicy);
    // A map counts one page of quota, however many URLs it finds.
    const id = this.deps.newId();
    const admission = await this.deps.limits.admit(caller, { id, pages: 1, job: false });
    const now = this.deps.clock();
    const answer = this.awaitAnswer(id, this.budgetMs + this.replyMarginMs);
    const event = makeEvent('map_requested', { kind: 'map', id, part: 'job' }, {
      url: url.toString(),
      ...(body.search?.trim() ? { search: body.search.trim() } : {}),
      limit: body.limit ?? MAP_REQUEST_DEFAULTS.limit,
      ignoreSitemap: body.ignoreSitemap ?? MAP_REQUEST_DEFAULTS.ignoreSitemap,
      includeSubdomains: body.includeSubdomains ?? MAP_REQUEST_DEFAULTS.includeSubdomains,
      apiKeyId: caller.keyId,
      requestedAt: now.toISOString(),
      budgetMs: this.budgetMs,
    }, { eventId: this.deps.newId(), now });
    const append = async (): Promise<number> => (await this.deps.log.append(event, { once: true })).seq;
    try {
      await admission.record(append, (seq) => this.deps.waiter?.waitFor(seq) ?? Promise.resolve(false));
    } catch (err) {
      answer.cancel();
      throw new ServiceUnavailableError('could not record the map request; try again', { cause: err });
    }
    const outcome = await answer.result;
    if (outcome.event === 'map_failed') throw new MapFailedError(outcome.data.error.code, outcome.data.error.message);
    if (outcome.event !== 'map_completed') throw new Error(`unexpected ${outcome.event}`);
    const links = outcome.data.links ?? (outcome.data.linksRef ? await this.deps.payloads.getJson<string[]>(outcome.data.linksRef) : []);
    return { links, count: links.length };
  }

  /** Subscribes at once; `result` settles with the job's final event or a timeout error. */
  private awaitAnswer(id: string, waitMs: number): { result: Promise<StoredEvent>; cancel(): void } {
    const sub = this.deps.nc.subscribe(`${SUBJECT_ROOT}.map.${id}.job.*`);
    const timer = setTimeout(() => sub.unsubscribe(), waitMs);
    const result = (async () => {
      try {
        for await (const msg of sub) {
          if (!msg.subject.endsWith('.map_completed') && !msg.subject.endsWith('.map_failed')) continue;
          return decodeEvent(msg.subject, msg.data, 0);
        }
        throw new ServiceUnavailableError(`no map worker answered within ${Math.round(waitMs / 1000)} s; try again later`);
      } finally {
        clearTimeout(timer);
        sub.unsubscribe();
      }
    })();
    // Settled by the caller; never an unhandled rejection when cancelled.
    result.catch(() => undefined);
    return { result, cancel: () => sub.unsubscribe() };
  }
}
