// Worker-thread entry of TransformPool (transform-pool.ts): one message at a time, a web
// page through transformPage (synchronous) or a document through transformDocument (pdf.js
// and mammoth are asynchronous; the pool still gives this thread one task at a time).
import { getHeapStatistics } from 'node:v8';
import { parentPort } from 'node:worker_threads';
import { transformPage } from './transform.js';
import { errorShape, type ThreadReady, type WorkerReply, type WorkerRequest } from './thread-protocol.js';

// The document parsers (pdf.js, mammoth) are loaded by the first document, not by every
// thread: a thread started to replace a killed one, or warm for the next key, is ready sooner.
let documentModule: Promise<typeof import('./documents/transform-document.js')> | undefined;
const documents = () => (documentModule ??= import('./documents/transform-document.js'));

if (!parentPort) throw new Error('transformer worker must run in a worker thread');
const port = parentPort;

port.on('message', async (request: WorkerRequest) => {
  let reply: WorkerReply;
  try {
    const output = request.input.document ? await (await documents()).transformDocument(request.input) : transformPage(request.input);
    reply = { id: request.id, ok: true, output };
  } catch (err) {
    reply = { id: request.id, ok: false, error: errorShape(err) };
  }
  port.postMessage({ ...reply, memoryMb: heldMb() });
});

// The imports above are evaluated: the pool's budgets for this thread's tasks run from here.
port.postMessage({ ready: true } satisfies ThreadReady);

/**
 * What this thread holds now: V8's committed heap (it does not shrink soon after a big
 * page) plus external memory (a document's buffers). The pool replaces a thread above
 * its recycleAboveMb, which is how that memory goes back to the system.
 */
function heldMb(): number {
  const heap = getHeapStatistics();
  return Math.round((heap.total_heap_size + (heap.external_memory ?? 0)) / 2 ** 20);
}
