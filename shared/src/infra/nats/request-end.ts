// nats.js 2.29 ends every request (a log append's publish ack, a direct get, a KV read) by
// calling its `cancel()`, which, besides unregistering the request, rejects the request's
// promise, already resolved by then, with a freshly built NatsError: a stack trace captured
// and thrown away per round trip (5-6% of the fetcher's and the service host's CPU on a
// recrawl, docs/benchmarks.md). The answer handler is replaced by one that does the same
// minus that error: stop the timer, settle the promise, unregister the request. `cancel()`
// itself is unchanged (a request cancelled before its answer is still rejected with it).
// Applied once, on import; checked against the shape it replaces, so a nats.js whose
// request differs is left as it is (and a test says so).
import { createRequire } from 'node:module';

interface RequestOneShape {
  timer?: { cancel(): void };
  ctx?: Error;
  deferred: { resolve(v: unknown): void; reject(e: unknown): void };
  mux: { cancel(r: unknown): void };
  resolver(err: Error | null, msg: unknown): void;
  cancel(err?: Error): void;
}

const require = createRequire(import.meta.url);

function patch(): boolean {
  let RequestOne: { prototype: RequestOneShape } | undefined;
  try {
    ({ RequestOne } = require('nats/lib/nats-base-client/request.js') as { RequestOne?: { prototype: RequestOneShape } });
  } catch {
    return false;
  }
  const proto = RequestOne?.prototype;
  if (!proto || typeof proto.resolver !== 'function' || typeof proto.cancel !== 'function') return false;
  // The handler replaced must be the one that ends by calling cancel() with no error.
  if (!/this\.cancel\(\)\s*;?\s*}\s*$/.test(proto.resolver.toString())) return false;
  proto.resolver = function resolver(this: RequestOneShape, err: Error | null, msg: unknown): void {
    this.timer?.cancel();
    if (err) {
      if (this.ctx) err.stack += `\n\n${this.ctx.stack}`;
      this.deferred.reject(err);
    } else {
      this.deferred.resolve(msg);
    }
    this.mux.cancel(this);
  };
  return true;
}

/** Whether the answer handler was replaced (false: this nats.js is not the shape it was written for). */
export const requestEndPatched = patch();
