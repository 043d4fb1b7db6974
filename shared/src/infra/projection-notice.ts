// The projector's notice on `trawl-internal.projected` (core NATS, at most once), sent after
// each event it applied and checkpointed. The body is the highest stream sequence the read
// models include: the gateway's read-your-writes waits on it. When the event changed a
// job's status (a scrape, crawl or batch document), headers also name the job and its new
// status, so a gateway holding long-polls (`?waitMs=`) reads a job only when its status
// became final, never on every notice. A reader must not depend on the notice alone: it
// may be lost (a reconnect), so every wait also ends at its own deadline.
import { headers as natsHeaders, type MsgHdrs } from 'nats';
import { AGGREGATE_KINDS, PROJECTION_PARTITIONS, type AggregateKind, type ProjectionPartition } from './subjects.js';

const JOB_HEADER = 'Trawl-Job';
const STATUS_HEADER = 'Trawl-Job-Status';
const PARTITION_HEADER = 'Trawl-Partition';

export interface JobStatusChange {
  kind: AggregateKind;
  id: string;
  status: string;
}

export interface ProjectionNotice {
  seq: number;
  change?: JobStatusChange;
  /** The partition whose read models include `seq` (absent: a projector folding every model). */
  partition?: ProjectionPartition;
}

export function encodeNotice(notice: ProjectionNotice): { data: string; headers?: MsgHdrs } {
  if (!notice.change && !notice.partition) return { data: String(notice.seq) };
  const h = natsHeaders();
  if (notice.partition) h.set(PARTITION_HEADER, notice.partition);
  if (notice.change) {
    h.set(JOB_HEADER, `${notice.change.kind}.${notice.change.id}`);
    h.set(STATUS_HEADER, notice.change.status);
  }
  return { data: String(notice.seq), headers: h };
}

export function decodeNotice(msg: { string(): string; headers?: MsgHdrs }): ProjectionNotice {
  const seq = Number(msg.string());
  const named = msg.headers?.get(PARTITION_HEADER) ?? '';
  const partition = (PROJECTION_PARTITIONS as readonly string[]).includes(named) ? { partition: named as ProjectionPartition } : {};
  const job = msg.headers?.get(JOB_HEADER) ?? '';
  const status = msg.headers?.get(STATUS_HEADER) ?? '';
  const dot = job.indexOf('.');
  const kind = job.slice(0, dot);
  if (dot <= 0 || !status || !(AGGREGATE_KINDS as readonly string[]).includes(kind)) return { seq, ...partition };
  return { seq, ...partition, change: { kind: kind as AggregateKind, id: job.slice(dot + 1), status } };
}
