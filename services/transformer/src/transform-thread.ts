// Worker-thread entry of TransformPool (transform-pool.ts): runs transformPage for one message at a time.
import { parentPort } from 'node:worker_threads';
import { transformPage } from './transform.js';
import type { WorkerReply, WorkerRequest } from './transform-pool.js';

if (!parentPort) throw new Error('transformer worker must run in a worker thread');
const port = parentPort;

port.on('message', (request: WorkerRequest) => {
  let reply: WorkerReply;
  try {
    reply = { id: request.id, ok: true, output: transformPage(request.input) };
  } catch (err) {
    const error = err instanceof Error ? err : new Error(String(err));
    const field = (error as { field?: unknown }).field;
    reply = {
      id: request.id,
      ok: false,
      error: { name: error.name, message: error.message, ...(typeof field === 'string' ? { field } : {}) },
    };
  }
  port.postMessage(reply);
});
