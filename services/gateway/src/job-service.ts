// The gateway's side of a multi-page job (crawl, batch scrape), written once: how an admitted
// job is recorded (its first event appended once, then a wait until the read models show it,
// which also frees the job's admission reservation), ownership, cancel, the list, and the
// bounded parts of `data` a GET returns. A kind (crawl/service.ts, batch/service.ts) adds how
// a request is checked and how its pages are shown; routes/job-routes.ts serves any kind.
import { IllegalStateError, NotFoundError } from '../../../shared/src/domain/errors.js';
import { JOB_PART, type MultiPageKind } from '../../../shared/src/domain/events/job.js';
import { makeEvent, type AnyEvent } from '../../../shared/src/domain/events/index.js';
import { JOB_DATA_MAX_BYTES } from '../../../shared/src/infra/config.js';
import type { Clock, IdGenerator } from '../../../shared/src/infra/ids.js';
import type { EventLog } from '../../../shared/src/infra/nats/event-log.js';
import type { Page, ReadModelStore } from '../../../shared/src/infra/store/index.js';
import type { Admission, Admitter } from '../../../shared/src/infra/admission/plan-limits.js';
import type { Caller } from './plugins/auth.js';
import type { ProjectionWaiter } from './projection-wait.js';
import type { UrlPolicy } from './url-policy.js';
import { isFinalStatus } from '../../../shared/src/api/index.js';

export interface JobServiceDeps {
  log: EventLog;
  store: ReadModelStore;
  waiter: ProjectionWaiter;
  urlPolicy: UrlPolicy;
  newId: IdGenerator;
  clock: Clock;
  limits: Admitter;
}

/** Appends the job's event (once) and waits for the projection; `admission` is freed after. */
export function recordJob(deps: Pick<JobServiceDeps, 'log' | 'waiter'>, event: AnyEvent, admission?: Admission): Promise<number> {
  const append = async (): Promise<number> => (await deps.log.append(event, { once: true })).seq;
  const projected = (seq: number): Promise<boolean> => deps.waiter.waitFor(seq);
  if (admission) return admission.record(append, projected);
  return append().then(async (seq) => { await projected(seq); return seq; });
}

/** What every multi-page job's read-model document holds. */
export interface JobDoc {
  id: string;
  apiKeyId: string;
  status: string;
  startedAt?: string;
  error?: { message: string };
}

export interface MultiPageJobDeps extends JobServiceDeps {
  publicBaseUrl: string;
  /** Content bytes in one GET response at most (at least one page is always sent); JOB_DATA_MAX_BYTES by default. */
  dataMaxBytes?: number;
}

/**
 * One page of a job's `data` as the reader found it: how to show it (absent: not shown), its
 * content size, the cursor that resumes after it, and `stop` for a page the part must not
 * pass yet (a crawl's page still loading).
 */
export interface DataItem<E> { present?: () => E | Promise<E>; bytes: number; resume: number; stop?: boolean }

/** Entries of one part of `data` as they are read, and then the cursor its `next` resumes from. */
export interface DataPart<E> { entries: AsyncIterable<E>; nextCursor: () => number | undefined }

/**
 * A GET answer in parts, so that it is written page by page (routes/streamed-view.ts) and
 * never held whole: the fields beside `data`, the entries, and `next`, known once the
 * entries have been read to their end.
 */
export interface JobViewParts<View> {
  head: Omit<View, 'data' | 'next'>;
  data: AsyncIterable<unknown>;
  next: () => string | undefined;
}

export abstract class JobService<Doc extends JobDoc, Req, Created, View, Item> {
  /** The job's kind, its name in messages ('crawl', 'batch scrape') and its API path. */
  protected abstract readonly kind: MultiPageKind;
  protected abstract readonly label: string;
  protected abstract readonly path: string;

  constructor(protected readonly deps: MultiPageJobDeps) {}

  abstract submit(caller: Caller, request: Req): Promise<Created>;
  /** The GET answer for a job read with `own` (a long-poll reads the document first), in parts. */
  abstract view(doc: Doc, cursor?: string): Promise<JobViewParts<View>>;
  abstract list(caller: Caller, page: Page): Promise<Item[]>;
  protected abstract load(id: string): Promise<Doc | null>;

  /** The caller's job; another key's job is indistinguishable from a missing one. */
  async own(caller: Caller, id: string): Promise<Doc> {
    const doc = await this.load(id);
    if (!doc || doc.apiKeyId !== caller.keyId) throw new NotFoundError(`no ${this.label} job with id "${id}"`);
    return doc;
  }

  /**
   * Cancels a running job. A job that has finished cannot be cancelled (409); the read model
   * may lag behind the log, so the log decides. The cancel event is appended `once`: a second
   * cancel finds it and is a 409 too. The frontier ends the job on it (CANCELLED).
   */
  async cancel(caller: Caller, id: string): Promise<{ id: string; status: 'CANCELLED' }> {
    const doc = await this.own(caller, id);
    const finished = (status: string): IllegalStateError =>
      new IllegalStateError(`${this.label} "${id}" has already finished (${status}) and cannot be cancelled`);
    if (isFinalStatus(doc.status)) throw finished(doc.status);
    const at = { kind: this.kind, id, part: JOB_PART };
    const done = await this.deps.log.last({ ...at, event: `${this.kind}_finished` });
    if (done && (done.event === 'crawl_finished' || done.event === 'batch_finished')) throw finished(done.data.status);
    const now = this.deps.clock();
    const event = makeEvent(`${this.kind}_cancel_requested`, at, { requestedAt: now.toISOString() }, { eventId: this.deps.newId(), now });
    const { seq, duplicate } = await this.deps.log.append(event, { once: true });
    if (duplicate) throw finished('CANCELLED');
    await this.deps.waiter.waitFor(seq);
    return { id, status: 'CANCELLED' };
  }

  /** The fields of a GET answer every job has beside its counters, data and next. */
  protected common(doc: Doc): { startedAt?: string; error?: { message: string } } {
    return {
      ...(doc.startedAt ? { startedAt: doc.startedAt } : {}),
      ...(doc.status === 'FAILED' && doc.error ? { error: doc.error } : {}),
    };
  }

  /** The URL of the next part of a job's `data`, once `part` has been read (undefined: none). */
  protected nextUrl(id: string, part: DataPart<unknown>): () => string | undefined {
    return () => {
      const cursor = part.nextCursor();
      return cursor === undefined ? undefined : `${this.deps.publicBaseUrl}/api/v1${this.path}/${encodeURIComponent(id)}?cursor=${cursor}`;
    };
  }

  /**
   * One part of `data`, read chunk by chunk from `from` as the answer is written, bounded by
   * dataMaxBytes (at least one entry). `read(cursor)` gives the next chunk after a cursor
   * (empty at the end); the part ends early at a `stop` item or when the bytes run out, and
   * `nextCursor()` then says where to resume (once the entries have been read to their end).
   */
  protected dataPart<E>(from: number, read: (cursor: number) => Promise<DataItem<E>[]>, last: { chunk: number; openEnded: boolean }): DataPart<E> {
    const maxBytes = this.deps.dataMaxBytes ?? JOB_DATA_MAX_BYTES;
    let nextCursor: number | undefined;
    async function* entries(): AsyncGenerator<E> {
      let bytes = 0;
      let sent = 0;
      let cursor = from;
      for (;;) {
        const items = await read(cursor);
        for (const item of items) {
          if (item.stop) return void (nextCursor = cursor);
          if (item.present) {
            if (sent > 0 && bytes + item.bytes > maxBytes) return void (nextCursor = cursor);
            yield await item.present();
            sent++;
            bytes += item.bytes;
          }
          cursor = item.resume;
        }
        if (items.length < last.chunk) return void (last.openEnded && (nextCursor = cursor));
      }
    }
    return { entries: entries(), nextCursor: () => nextCursor };
  }
}
