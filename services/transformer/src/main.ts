// Transformer service: turns fetched HTML into markdown, cleaned HTML, links and metadata.
import { newId, systemClock } from '../../../shared/src/infra/ids.js';
import { runService } from '../../../shared/src/infra/service.js';
import { TransformPool } from './transform-pool.js';
import { TransformConsumer } from './consumer.js';
import { RecentTransforms } from './recent-transforms.js';
import { observePool } from './metrics.js';
import { serveVerifyExtract } from '../../../shared/src/infra/nats/verify-extract.js';

await runService('transformer', async (ctx) => {
  // One thread while idle; up to TRANSFORMER_CONCURRENCY under load (each thread is a V8 heap).
  const { config } = ctx;
  const pool = new TransformPool({
    size: config.transformerConcurrency,
    idleThreads: 1,
    threadsPerKey: config.transformerThreadsPerKey,
    heavyThreads: config.transformerDocumentThreads,
    maxOldGenerationSizeMb: config.transformerMaxHeapMb,
    recycleAboveMb: config.transformerRecycleAboveMb,
    semiSpaceMb: config.transformerSemiSpaceMb,
  });
  observePool(pool);
  // A verified page's rendered HTML is transformed for its verification first: kept for its page_fetched.
  const recent = new RecentTransforms();
  const worker = new TransformConsumer({ ctx, pool, newId, clock: systemClock, recent });
  await worker.consumer.start();
  // The fetcher's verification extractions (auto engine), in the same threads as the pages'.
  const verifying = serveVerifyExtract(ctx.nc, async (page, options, apiKeyId) => {
    const input = { ...page, options };
    const out = await pool.run(input, { key: apiKeyId, budgetMs: config.transformTimeoutMs });
    recent.remember(input, out);
    return { markdown: out.markdown ?? '', links: out.links };
  }, ctx.logger);
  return {
    ready: async () => ({ consumer: worker.consumer.ready }),
    stop: async () => {
      verifying.unsubscribe();
      await worker.stop();
      await pool.close();
    },
  };
});
