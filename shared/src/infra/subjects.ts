// The subject scheme of the event log, `trawl.<kind>.<aggregateId>.<part>.<event>`
// (docs/architecture.md "Subjects"). Event names are unique across the whole log, so a
// consumer selects one kind of work with one filter (nats-server 2.9 has no multiple
// filter subjects): `trawl.*.*.*.page_requested`.
export const STREAM_NAME = 'TRAWL';
export const SUBJECT_ROOT = 'trawl';
export const PAYLOAD_BUCKET = 'trawl-payloads';
/** Object Store bucket of change-tracking baselines (a page's markdown per key, URL and content hash). */
export const BASELINE_BUCKET = 'trawl-baselines';

export const AGGREGATE_KINDS = ['scrape', 'crawl', 'map', 'batch', 'apikey', 'account', 'invite', 'session', 'observation', 'recrawl', 'monitor'] as const;
/**
 * Kinds that are not jobs: no pages, no fetcher lane (console accounts: shared/src/domain/events/account.ts;
 * `observation`: a key's observations of one URL, `trawl.observation.<keyId>.<pageKey>.url_observed`,
 * shared/src/domain/events/observation.ts; `recrawl`: the link of a crawl to the crawl it repeats,
 * shared/src/domain/events/recrawl.ts; `monitor`: a key's monitors, `trawl.monitor.<keyId>.<monitorId>.<event>`, shared/src/domain/events/monitor.ts).
 */
export const NON_JOB_KINDS: readonly AggregateKind[] = ['apikey', 'account', 'invite', 'session', 'observation', 'recrawl', 'monitor'];
export type AggregateKind = (typeof AGGREGATE_KINDS)[number];

const TOKEN = /^[A-Za-z0-9_-]{1,128}$/;

export interface SubjectParts {
  kind: AggregateKind;
  id: string;
  part: string;
  event: string;
}

function assertToken(name: string, value: string): void {
  if (!TOKEN.test(value)) throw new Error(`subject token ${name} "${value}" is not a plain token`);
}

export function subjectOf(parts: SubjectParts): string {
  for (const [name, value] of Object.entries(parts)) assertToken(name, value);
  return `${SUBJECT_ROOT}.${parts.kind}.${parts.id}.${parts.part}.${parts.event}`;
}

export function parseSubject(subject: string): SubjectParts | null {
  const tokens = subject.split('.');
  if (tokens.length !== 5 || tokens[0] !== SUBJECT_ROOT) return null;
  const [, kind, id, part, event] = tokens as [string, string, string, string, string];
  if (!(AGGREGATE_KINDS as readonly string[]).includes(kind)) return null;
  return { kind: kind as AggregateKind, id, part, event };
}

/** Every event of every kind with this event name: the filter of a work consumer. */
export function eventFilter(event: string): string {
  return `${SUBJECT_ROOT}.*.*.*.${event}`;
}

/** All events of one job, in order: the audit replay filter. */
/** Every event of one part of an aggregate (a page's events). */
export function partFilter(kind: AggregateKind, id: string, part: string): string {
  assertToken('id', id);
  assertToken('part', part);
  return `${SUBJECT_ROOT}.${kind}.${id}.${part}.*`;
}

export function historyFilter(kind: AggregateKind, id: string): string {
  // A wildcard or dot in the id would widen the filter to other jobs' events.
  assertToken('id', id);
  return `${SUBJECT_ROOT}.${kind}.${id}.>`;
}

export const ALL_EVENTS = `${SUBJECT_ROOT}.>`;

/**
 * Core NATS (not stored) notice the projector sends after applying events: the highest
 * stream sequence its read models include. The gateway waits on it for read-your-writes.
 */
export const PROJECTED_SUBJECT = 'trawl-internal.projected';

/**
 * Core NATS notice the projector sends after it changed an API key's document (created,
 * revoked, plan changed); the body is the key's hash. Gateways drop the key from their
 * lookup cache, so a revocation or plan change applies to the next request.
 */
export const KEY_CHANGED_SUBJECT = 'trawl-internal.key-changed';

/** Checkpoint name of the projector in the read-model store (one projector folding every model). */
export const PROJECTOR_CHECKPOINT = 'projector';

/**
 * The projector's partitions: groups of read models, each folded by one replica at a time
 * (docs/architecture.md "Replicas"), each with its own checkpoint. A read model that reads
 * another is in that one's partition.
 */
export const PROJECTION_PARTITIONS = ['accounts', 'jobs', 'charts'] as const;
export type ProjectionPartition = (typeof PROJECTION_PARTITIONS)[number];
export const partitionCheckpoint = (partition: ProjectionPartition): string => `${PROJECTOR_CHECKPOINT}.${partition}`;

/**
 * Core NATS subject on which a sweep asks a durable consumer's workers (a queue group: one
 * replica) to handle one of its stream's messages again (shared/src/infra/nats/worker.ts,
 * "re-drive"), the body `{"seq": n}`.
 */
export const redriveSubject = (durable: string): string => `trawl-internal.redrive.${durable}`;

/** Whether a subject matches a filter with NATS wildcards (`*` one token, `>` the rest). */
export function subjectMatches(filter: string, subject: string): boolean {
  const f = filter.split('.');
  const s = subject.split('.');
  for (let i = 0; i < f.length; i++) {
    if (f[i] === '>') return s.length > i;
    if (i >= s.length || (f[i] !== '*' && f[i] !== s[i])) return false;
  }
  return f.length === s.length;
}

/** The fetcher's durable consumer of one kind of job's page_requested (its lane, services/fetcher/src/worker.ts). */
export const fetcherDurable = (kind: AggregateKind): string => `fetcher-${kind}`;
/** The transformer's durable consumer of page_fetched. */
export const TRANSFORMER_DURABLE = 'transformer';
