// The browser pool's slots: at most `size` at once, interactive work before bulk work,
// bulk work bounded per host, first come first served within a priority, aborts leave.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Slots, type SlotRequest } from '../../../services/fetcher/src/engine/browser/slots.js';
import { FETCH_LANES } from '../../../services/fetcher/src/worker.js';
import { AGGREGATE_KINDS, NON_JOB_KINDS } from '../../../shared/src/infra/subjects.js';

const bulk = (host: string): SlotRequest => ({ priority: 'bulk', host });
const interactive = (host: string): SlotRequest => ({ priority: 'interactive', host });
const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

/** Requests a slot and records the order in which `name`s are granted. */
function requester(slots: Slots, granted: string[]) {
  const releases = new Map<string, () => void>();
  const ask = (name: string, request: SlotRequest, signal = new AbortController().signal): Promise<void> =>
    slots.acquire(signal, request).then((release) => { granted.push(name); releases.set(name, release); });
  const release = async (name: string): Promise<void> => { releases.get(name)!(); await tick(); };
  return { ask, release };
}

test('interactive waiters are served before bulk waiters that came earlier', async () => {
  const granted: string[] = [];
  const slots = new Slots(1);
  const { ask, release } = requester(slots, granted);
  void ask('crawl-1', bulk('a.test'));
  await tick();
  void ask('crawl-2', bulk('a.test'));
  void ask('crawl-3', bulk('b.test'));
  void ask('scrape', interactive('c.test'));
  await tick();
  assert.deepEqual(granted, ['crawl-1']);
  assert.equal(slots.queuedCount, 3);
  await release('crawl-1');
  assert.deepEqual(granted, ['crawl-1', 'scrape']);
  await release('scrape');
  await release('crawl-2');
  assert.deepEqual(granted, ['crawl-1', 'scrape', 'crawl-2', 'crawl-3']);
});

test('bulk pages of one host are bounded; other hosts go ahead meanwhile', async () => {
  const granted: string[] = [];
  const slots = new Slots(4, 2);
  const { ask, release } = requester(slots, granted);
  for (const name of ['a1', 'a2', 'a3', 'a4']) void ask(name, bulk('a.test'));
  void ask('b1', bulk('b.test'));
  await tick();
  assert.deepEqual(granted, ['a1', 'a2', 'b1']);
  assert.equal(slots.activeCount, 3);
  // A scrape of the same host is not bulk work: it takes the free slot.
  void ask('scrape-a', interactive('a.test'));
  await tick();
  assert.deepEqual(granted, ['a1', 'a2', 'b1', 'scrape-a']);
  await release('b1');
  assert.deepEqual(granted.slice(4), [], 'a.test is at its bound: the free slot stays free');
  await release('a1');
  assert.deepEqual(granted.slice(4), ['a3']);
  await release('scrape-a');
  await release('a2');
  assert.deepEqual(granted.slice(4), ['a3', 'a4']);
});

test('an aborted waiter leaves the queue; the size bound holds throughout', async () => {
  const granted: string[] = [];
  const slots = new Slots(2);
  const { ask, release } = requester(slots, granted);
  void ask('one', bulk('a.test'));
  void ask('two', interactive('a.test'));
  const controller = new AbortController();
  const third = ask('three', interactive('a.test'), controller.signal);
  void ask('four', bulk('b.test'));
  await tick();
  assert.equal(slots.activeCount, 2);
  controller.abort(new Error('cancelled'));
  await assert.rejects(third, /cancelled/);
  assert.equal(slots.queuedCount, 1);
  await release('one');
  assert.deepEqual(granted, ['one', 'two', 'four']);
  assert.equal(slots.activeCount, 2);
});

test('sizes must be positive', () => {
  assert.throws(() => new Slots(0), /poolSize/);
  assert.throws(() => new Slots(2, 0), /hostMaxInFlight/);
});

test('every kind of job with pages has a fetcher lane; users wait for scrapes and maps', () => {
  const withPages = AGGREGATE_KINDS.filter((kind) => !NON_JOB_KINDS.includes(kind));
  assert.deepEqual(Object.keys(FETCH_LANES).sort(), [...withPages].sort());
  assert.deepEqual(FETCH_LANES, { scrape: 'interactive', map: 'interactive', crawl: 'bulk', batch: 'bulk' });
});
