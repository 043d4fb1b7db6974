// The transformer's content library: the NATS wiring (main.ts) uses only what is exported here.
export type { TransformInput, TransformMetadata, TransformOutput } from './types.js';
export { transformPage } from './transform.js';
export { TransformPool, type TransformPoolOptions } from './transform-pool.js';
