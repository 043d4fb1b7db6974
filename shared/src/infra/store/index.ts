import path from 'node:path';
import type { Config } from '../config.js';
import { MongoStore } from './mongo.js';
import { SqliteStore } from './sqlite.js';
import type { ReadModelStore } from './types.js';

export * from './types.js';
export { MongoStore } from './mongo.js';
export { SqliteStore } from './sqlite.js';

/** MongoDB when MONGODB_URL is set, otherwise the embedded store under DATA_DIR. */
export function createStore(config: Pick<Config, 'mongodbUrl' | 'dataDir'>): ReadModelStore {
  return config.mongodbUrl ? new MongoStore(config.mongodbUrl) : new SqliteStore(path.join(config.dataDir, 'read-models.sqlite'));
}
