// Gateway service: the HTTP API. Authenticates, validates, appends commands to JetStream,
// and answers from the read models. It does no scraping.
import { newId, systemClock } from '../../../shared/src/infra/ids.js';
import { runService } from '../../../shared/src/infra/service.js';
import { createStore } from '../../../shared/src/infra/store/index.js';
import { buildApp } from './app.js';
import { ProjectionWaiter } from './projection-wait.js';

await runService('gateway', async ({ config, logger, nc, log, payloads }) => {
  const store = createStore(config);
  await store.init();
  const waiter = new ProjectionWaiter(nc, store);
  await waiter.start();
  const app = await buildApp({ config, logger, nc, log, payloads, store, waiter, newId, clock: systemClock });
  await app.listen({ host: config.host, port: config.port });
  logger.info({ url: `http://${config.host}:${config.port}` }, 'gateway listening');
  return {
    ready: async () => ({ store: await store.ping() }),
    stop: async () => {
      await app.close();
      waiter.stop();
      await store.close();
    },
  };
});
