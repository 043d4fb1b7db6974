// Identical scrapes share one browser load. A `page_shared` job waits here, outside the
// browser pool (waiting costs a timer, not a page), for the page it joined to be fetched,
// then records the same fetch as its own (the raw HTML and screenshots in the Object Store
// are shared by reference) and goes through the transformer like any page. If the source
// fails, the follower fails with the same error.
import { makeEvent, type TrawlEvent } from '../../../shared/src/domain/events/index.js';
import type { Clock, IdGenerator } from '../../../shared/src/infra/ids.js';
import { ConsumerWorker, type MessageContext } from '../../../shared/src/infra/nats/worker.js';
import type { ServiceContext } from '../../../shared/src/infra/service.js';
import { eventFilter } from '../../../shared/src/infra/subjects.js';
import { BrowserError } from '../../../shared/src/domain/errors.js';
import { pageSettled, recordPageFailure } from '../../../shared/src/domain/page-failure.js';

type PageSharedEvent = TrawlEvent<'page_shared'> & { seq: number };

export interface ShareFollowerDeps {
  ctx: ServiceContext;
  newId: IdGenerator;
  clock: Clock;
  pollIntervalMs?: number;
}

export class ShareFollower {
  readonly consumer: ConsumerWorker<PageSharedEvent>;

  constructor(private readonly deps: ShareFollowerDeps) {
    const { ctx } = deps;
    this.consumer = new ConsumerWorker<PageSharedEvent>({
      js: ctx.js, jsm: ctx.jsm, logger: ctx.logger,
      durable: 'fetcher-share',
      filterSubject: eventFilter('page_shared'),
      concurrency: 200,
      ackWaitMs: 15_000,
      maxDeliver: 3,
      handlerTimeoutMs: (e) => e.data.options.timeoutMs * 2 + 60_000,
      stopGraceMs: ctx.config.stopGraceMs,
      handle: (event, mctx) => this.handle(event, mctx),
      giveUp: (event, error, mctx) => recordPageFailure(ctx.log, { kind: event.kind, id: event.id, part: event.part },
        { code: 'BROWSER_ERROR', message: `the shared page load did not finish: ${error.message}` }, mctx.deliveryCount, deps),
    });
  }

  private async handle(event: PageSharedEvent, mctx: MessageContext): Promise<void> {
    const { ctx, clock, newId } = this.deps;
    const at = { kind: event.kind, id: event.id, part: event.part };
    if (await pageSettled(ctx.log, at, 'page_fetched')) return; // done (or given up on) before a crash
    const source = { kind: event.kind, id: event.data.sourceJobId, part: event.data.sourcePart };
    const startedAt = clock();
    await ctx.log.append(
      makeEvent('page_started', at, { attempt: mctx.deliveryCount, startedAt: startedAt.toISOString(), worker: 'share' }, { eventId: newId(), now: startedAt }),
      { msgId: `${event.kind}.${event.id}.${event.part}.page_started.${mctx.deliveryCount}` },
    );
    const interval = this.deps.pollIntervalMs ?? 100;
    while (!mctx.signal.aborted) {
      const fetched = await ctx.log.last({ ...source, event: 'page_fetched' });
      if (fetched?.event === 'page_fetched') {
        const now = clock();
        const queueWaitMs = Math.max(0, now.getTime() - Date.parse(event.data.requestedAt));
        await ctx.log.append(makeEvent('page_fetched', at, {
          ...fetched.data,
          // Time spent waiting for the shared load counts as queueing; the load itself cost this job nothing.
          timings: { queueWaitMs, fetchMs: 0, renderMs: 0, screenshotMs: 0 },
          fetchedAt: now.toISOString(),
        }, { eventId: newId(), now }), { once: true });
        return;
      }
      const failed = await ctx.log.last({ ...source, event: 'page_failed' });
      if (failed?.event === 'page_failed') {
        await recordPageFailure(ctx.log, at, failed.data.error, mctx.deliveryCount, this.deps);
        return;
      }
      await new Promise((r) => setTimeout(r, interval));
    }
    throw new BrowserError('gave up waiting for the shared page load');
  }
}
