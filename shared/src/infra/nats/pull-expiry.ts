// nats.js 2.29 ends a pull (`consumer.fetch`) on a client timer 5% past its expiry. When the
// event loop was blocked past that moment in an I/O or immediate callback (a Chromium
// launch, loading a large module, a long parse, a loaded machine), the next turn runs that
// timer before it reads the socket: the pull unsubscribes, then reads the messages the
// server sent it in time and drops them. Each is lost to its worker until its ack wait hands
// it out again (15 s for a page: a crawl's first page waited that long behind a Chromium
// launch). Here the timer's end waits for the rest of that turn (setImmediate runs after the
// poll phase), so what already arrived is read first. Applied once, on import; checked
// against the shape it replaces.
import { createRequire } from 'node:module';

interface PullMessages {
  opts: { expires: number };
  closed(): Promise<unknown>;
  close(): Promise<unknown>;
  trackTimeout(t: unknown): void;
}
type Timeout = (ms: number) => Promise<void> & { cancel(): void };
interface ConsumerModule {
  PullConsumerImpl?: { prototype: { fetch: (opts?: object) => Promise<PullMessages> } };
  PullConsumerMessagesImpl?: new (consumer: unknown, opts: object, refilling: boolean) => PullMessages;
}

const require = createRequire(import.meta.url);

function patch(): boolean {
  let mod: ConsumerModule;
  let util: { timeout?: Timeout };
  try {
    mod = require('nats/lib/jetstream/consumer.js') as ConsumerModule;
    util = require('nats/lib/nats-base-client/util.js') as { timeout?: Timeout };
  } catch {
    return false;
  }
  const proto = mod.PullConsumerImpl?.prototype;
  const Messages = mod.PullConsumerMessagesImpl;
  const original = proto?.fetch;
  if (!proto || !Messages || typeof original !== 'function' || typeof util.timeout !== 'function') return false;
  const source = original.toString();
  if (!/expires \* 1\.05/.test(source) || !/m\.close\(\)/.test(source) || !/trackTimeout/.test(source)) return false;
  proto.fetch = function fetch(this: unknown, opts: object = { max_messages: 100, expires: 30_000 }) {
    const m = new Messages(this, opts, false);
    const timer = util.timeout!(Math.round(m.opts.expires * 1.05));
    void m.closed().catch(() => undefined).finally(() => timer.cancel());
    timer.catch(() => setImmediate(() => { void m.close().catch(() => undefined); }));
    m.trackTimeout(timer);
    return Promise.resolve(m);
  };
  return true;
}

/** Whether a pull's client-side end lets the messages already received be read first. */
export const pullExpiryPatched = patch();
