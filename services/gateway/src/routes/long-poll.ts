// How a route holds a long-poll: the caller's key, the job, its `waitMs`, and a signal that
// ends the wait when the client disconnects (its slot is freed at once, not at the deadline).
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AggregateKind } from '../../../../shared/src/infra/subjects.js';
import type { JobWaits, WaitRequest } from '../job-waits.js';

export function longPoll<D extends { status?: string }>(
  waits: JobWaits, request: FastifyRequest, reply: FastifyReply,
  job: { kind: AggregateKind; id: string; waitMs: number | undefined; whenBusy?: WaitRequest<D>['whenBusy'] },
  load: () => Promise<D>,
): Promise<D> {
  const gone = new AbortController();
  if (job.waitMs) reply.raw.once('close', () => gone.abort());
  return waits.wait({ keyId: request.caller.keyId, kind: job.kind, id: job.id, waitMs: job.waitMs ?? 0, load, signal: gone.signal, ...(job.whenBusy ? { whenBusy: job.whenBusy } : {}) });
}
