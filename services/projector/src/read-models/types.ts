// The shape every read model folder exports: which events it handles, where its document
// lives, and `evolve` (pure). The projector does the IO: load the document, skip events it
// already applied (by stream sequence), hydrate payload references, evolve, save.
import type { EventName, StoredEvent } from '../../../../shared/src/domain/events/index.js';
import type { CrawlPageOrigin, DocCollection, ReadModelStore } from '../../../../shared/src/infra/store/index.js';

export interface ReadModel<Doc extends { lastSeq: number }, Hydrated = undefined> {
  name: string;
  handles: readonly EventName[];
  /** Extra filter beyond the event name (for example: only scrape jobs, not crawl pages). */
  accepts?(event: StoredEvent): boolean;
  load(store: ReadModelStore, event: StoredEvent): Promise<Doc | null>;
  save(store: ReadModelStore, doc: Doc): Promise<void>;
  /** Loads what the event only references (payloads), before the pure evolve. */
  hydrate?(event: StoredEvent, deps: HydrateDeps): Promise<Hydrated>;
  evolve(doc: Doc | null, event: StoredEvent, hydrated: Hydrated): Doc | null;
  /**
   * A core NATS notice to publish once the changed document is saved (at most once: a
   * reader must not depend on it alone), for readers that cache the model.
   */
  notice?(doc: Doc): { subject: string; data: string };
  /**
   * Set on a job's own document (its `status` is the job's status): a change of the status
   * is announced with the projection notice, so long-polls wait without reading the store.
   */
  announcesStatus?: boolean;
}

/**
 * load/save of a read model whose documents are one store collection, found by the event's
 * aggregate id (or `idOf`).
 */
export function inCollection<Doc extends { id: string; lastSeq: number }>(
  collection: (store: ReadModelStore) => DocCollection<Doc, unknown>, idOf: (event: StoredEvent) => string = (event) => event.id,
): Pick<ReadModel<Doc>, 'load' | 'save'> {
  return { load: (store, event) => collection(store).get(idOf(event)), save: (store, doc) => collection(store).put(doc) };
}

export interface HydrateDeps {
  getJson<T>(ref: { bucket: string; name: string; size: number; contentType: string }): Promise<T>;
  payloadTtlMs: number;
  /** Where a completed crawl page's content is (a reused result's page names it instead of a copy). */
  crawlPageOrigin?(crawlId: string, pageKey: string): Promise<CrawlPageOrigin | null>;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyReadModel = ReadModel<any, any>;
