// Projector service: builds the read models (MongoDB or embedded SQLite) from the log.
import { runService } from '../../../shared/src/infra/service.js';
import { startProjector } from './service.js';

await runService('projector', startProjector);
