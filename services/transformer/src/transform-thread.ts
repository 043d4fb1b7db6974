// Worker-thread entry of TransformPool (transform-pool.ts): one message at a time, a web
// page through transformPage (synchronous) or a document through transformDocument (pdf.js
// and mammoth are asynchronous; the pool still gives this thread one task at a time).
import { parentPort } from 'node:worker_threads';
import { transformDocument } from './documents/transform-document.js';
import { transformPage } from './transform.js';
import type { WorkerReply, WorkerRequest } from './transform-pool.js';

if (!parentPort) throw new Error('transformer worker must run in a worker thread');
const port = parentPort;

port.on('message', async (request: WorkerRequest) => {
  let reply: WorkerReply;
  try {
    const output = request.input.document ? await transformDocument(request.input) : transformPage(request.input);
    reply = { id: request.id, ok: true, output };
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
