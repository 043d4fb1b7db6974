// Projector service: builds the read models (MongoDB or embedded SQLite) from the log.
import { runService } from '../../../shared/src/service.js';
import { createStore } from '../../../shared/src/store/index.js';
import { Projector } from './projector.js';
import { READ_MODELS } from './read-models/index.js';

await runService('projector', async ({ config, nc, js, payloads, logger }) => {
  const store = createStore(config);
  await store.init();
  const projector = new Projector({ nc, js, store, payloads, logger, readModels: READ_MODELS, payloadTtlMs: config.payloadTtlMs });
  await projector.start();
  return {
    ready: async () => ({ store: await store.ping() }),
    stop: async () => {
      await projector.stop();
      await store.close();
    },
  };
});
