// What the gateway is built from, as types only: the external dependencies (buildApp's
// argument) and what route plugins get beside them. In a module of their own so that the
// route and console plugins that app.ts registers need not import app.ts back.
import type { NatsConnection } from 'nats';
import type { Config } from '../../../shared/src/infra/config.js';
import type { Clock, IdGenerator } from '../../../shared/src/infra/ids.js';
import type { Logger } from '../../../shared/src/infra/logger.js';
import type { EventLog } from '../../../shared/src/infra/nats/event-log.js';
import type { PayloadStore } from '../../../shared/src/infra/nats/payloads.js';
import type { ReadModelStore } from '../../../shared/src/infra/store/index.js';
import type { JobWaits } from './job-waits.js';
import type { PlanLimiter } from '../../../shared/src/infra/admission/plan-limits.js';
import type { ProjectionWaiter } from './projection-wait.js';

export interface GatewayDeps {
  config: Config;
  logger: Logger;
  nc: NatsConnection;
  log: EventLog;
  payloads: PayloadStore;
  store: ReadModelStore;
  waiter: ProjectionWaiter;
  newId: IdGenerator;
  clock: Clock;
}

/** What route plugins get: the external dependencies plus the gateway's own services. */
export type RouteDeps = GatewayDeps & { limits: PlanLimiter; waits: JobWaits };
