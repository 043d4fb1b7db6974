// The projector on a connected service context: main.ts runs it in its own process, and
// `npm start`'s service host (scripts/service-host.ts) beside the other light services.
import { observedGauge } from '../../../shared/src/metrics.js';
import type { RunningService, ServiceContext } from '../../../shared/src/service.js';
import { STREAM_NAME } from '../../../shared/src/subjects.js';
import { createStore } from '../../../shared/src/store/index.js';
import { Projector } from './projector.js';
import { READ_MODELS } from './read-models/index.js';

export async function startProjector({ config, nc, js, jsm, payloads, logger }: ServiceContext): Promise<RunningService> {
  const store = createStore(config);
  await store.init();
  const projector = new Projector({ nc, js, store, payloads, logger, readModels: READ_MODELS, payloadTtlMs: config.payloadTtlMs });
  await projector.start();
  // How far the read models trail the log: what a slow status answer would first show.
  observedGauge('trawl_projector_applied_seq', 'Stream sequence of the last event applied to the read models', () => projector.appliedSeq);
  observedGauge('trawl_projector_lag_events', 'Events in the log not yet applied to the read models',
    async () => Math.max(0, (await jsm.streams.info(STREAM_NAME)).state.last_seq - projector.appliedSeq));
  return {
    ready: async () => ({ store: await store.ping() }),
    stop: async () => {
      await projector.stop();
      await store.close();
    },
  };
}
