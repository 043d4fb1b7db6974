// A handle opened once and shared by every caller (an Object Store or KV view, a JetStream
// manager, a secret), opened again on the next ask if opening failed. A handle whose first
// open met a NATS outage (an election, a restart) must not be remembered as the rejection:
// every later put or read would fail at once, for the life of the process.
export function madeOnce<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () => (made ??= make().catch((err: unknown) => {
    made = undefined;
    throw err;
  }));
}
