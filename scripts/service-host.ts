// The service host: `npm start` runs the light services (COHOSTED_SERVICES in
// scripts/services.ts) in this one Node process, `node service-host.js <name>:<healthPort>
// ...`. Each keeps its own logger, NATS connection, consumers and health port
// (shared/src/infra/service.ts runServices); they share one V8 heap, the loaded modules and the
// process's fixed memory, which one process each paid three times (docs/benchmarks.md
// "Third session").
//
// One that fails to start, or any crash, ends the host, and the supervisor starts it again
// whole: every service is idempotent, so its siblings' restart costs a reconnect and
// nothing else. Kubernetes keeps one Deployment per service (deploy/helm).
import { runServices, type HostedService } from '../shared/src/infra/service.js';
import { parseHostArgs, type CohostedService } from './services.js';

const LOADERS: Record<CohostedService, () => Promise<HostedService['start']>> = {
  projector: async () => (await import('../services/projector/src/service.js')).startProjector,
  'crawler-frontier': async () => (await import('../services/crawler-frontier/src/service.js')).startCrawlerFrontier,
  'webhook-dispatcher': async () => (await import('../services/webhook-dispatcher/src/service.js')).startWebhookDispatcher,
};

let hosted: ReturnType<typeof parseHostArgs>;
try {
  hosted = parseHostArgs(process.argv.slice(2));
} catch (err) {
  process.stderr.write(`${(err as Error).message}\n`);
  process.exit(1);
}
await runServices(await Promise.all(hosted.map(async ({ name, healthPort }) => ({ name, healthPort, start: await LOADERS[name]() }))));
