// Which pages in flight the sweep re-drives (services/crawler-frontier/src/job/stuck-pages.ts):
// given the pages' latest steps and the consumers' ack floors, when swept, then these messages.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { inFlightFromEvents, stuckPages, type AckFloors, type JobLogEvent, type PageInFlight } from '../../../services/crawler-frontier/src/job/stuck-pages.js';

const NOW = 1_000_000;
const IDLE_MS = 30_000;
const page = (part: string, event: string, seq: number, requestedSeq: number, idleMs = 60_000): PageInFlight =>
  ({ part, latest: { event, seq, at: NOW - idleMs }, requestedSeq });
const swept = (pages: PageInFlight[], floors: AckFloors) => stuckPages(pages, floors, NOW, IDLE_MS);

describe('stuck pages: what the sweep re-drives', () => {
  test('a page requested whose message the fetcher\'s consumer has passed (acked, skipped) is re-driven to the fetcher', () => {
    assert.deepEqual(swept([page('p1', 'page_requested', 10, 10)], { fetch: 10, transform: 0 }), [{ part: 'p1', consumer: 'fetch', seq: 10 }]);
  });

  test('a page requested whose message is still pending or not yet delivered (above the floor) is left to its consumer', () => {
    assert.deepEqual(swept([page('p1', 'page_requested', 10, 10)], { fetch: 9, transform: 50 }), []);
  });

  test('a page claimed by a fetcher (page_started) whose page_requested is below the floor is re-driven by that message', () => {
    assert.deepEqual(swept([page('p1', 'page_started', 14, 10)], { fetch: 12, transform: 0 }), [{ part: 'p1', consumer: 'fetch', seq: 10 }]);
  });

  test('a page fetched whose page_fetched the transformer\'s consumer has passed is re-driven to the transformer', () => {
    assert.deepEqual(swept([page('p1', 'page_fetched', 20, 10)], { fetch: 30, transform: 20 }), [{ part: 'p1', consumer: 'transform', seq: 20 }]);
  });

  test('a page fetched whose page_fetched the transformer still holds is left to it, whatever the fetcher\'s floor', () => {
    assert.deepEqual(swept([page('p1', 'page_fetched', 20, 10)], { fetch: 30, transform: 19 }), []);
  });

  test('a page that moved within the idle margin is not judged, even below the floor', () => {
    assert.deepEqual(swept([page('p1', 'page_requested', 10, 10, IDLE_MS - 1)], { fetch: 10, transform: 10 }), []);
  });

  test('a page whose result is in the log (a lost trigger of the frontier\'s own) is not re-driven: the sweep\'s advance takes it', () => {
    assert.deepEqual(swept([page('p1', 'page_completed', 30, 10), page('p2', 'page_failed', 31, 11)], { fetch: 40, transform: 40 }), []);
  });

  test('each stuck page of a standstill is re-driven once per sweep, to the consumer that let it go', () => {
    const pages = [page('a', 'page_requested', 5, 5), page('b', 'page_fetched', 8, 6), page('c', 'page_requested', 9, 9), page('d', 'page_started', 12, 7)];
    assert.deepEqual(swept(pages, { fetch: 7, transform: 8 }), [
      { part: 'a', consumer: 'fetch', seq: 5 },
      { part: 'b', consumer: 'transform', seq: 8 },
      { part: 'd', consumer: 'fetch', seq: 7 },
    ]);
  });
});

// One read of a job's events tells the sweep each page in flight's latest step, and where its
// next read may start (stuck-pages.ts, inFlightFromEvents).
describe('stuck pages: the pages in flight from one read of the job\'s events', () => {
  const at = (s: number): string => new Date(NOW - 60_000 + s * 1000).toISOString();
  const e = (part: string, event: string, seq: number): JobLogEvent => ({ part, event, seq, occurredAt: at(seq) });

  test('each page in flight gets its latest step and its request; pages done and the job\'s own events are passed over', () => {
    const events = [e('job', 'crawl_started', 2), e('a', 'page_requested', 3), e('b', 'page_requested', 4), e('a', 'page_started', 5), e('b', 'page_completed', 6), e('c', 'page_requested', 7), e('a', 'page_fetched', 8)];
    const { pages } = inFlightFromEvents(events, ['a', 'c'], 1);
    assert.deepEqual(pages, [
      { part: 'a', latest: { event: 'page_fetched', seq: 8, at: Date.parse(at(8)) }, requestedSeq: 3 },
      { part: 'c', latest: { event: 'page_requested', seq: 7, at: Date.parse(at(7)) }, requestedSeq: 7 },
    ]);
  });

  test('the next read starts at the request of the oldest page in flight', () => {
    const events = [e('a', 'page_requested', 10), e('b', 'page_requested', 12), e('a', 'page_completed', 15)];
    assert.equal(inFlightFromEvents(events, ['b'], 1).readFrom, 12);
  });

  test('with nothing in flight in the read, the next read starts after it', () => {
    assert.equal(inFlightFromEvents([e('a', 'page_requested', 10), e('a', 'page_completed', 15)], [], 4).readFrom, 16);
    assert.equal(inFlightFromEvents([], [], 4).readFrom, 4);
  });

  test('a page in flight the read does not hold is left to the next sweep, which reads the whole history', () => {
    const { pages, readFrom } = inFlightFromEvents([e('a', 'page_requested', 20)], ['a', 'z'], 20);
    assert.deepEqual(pages.map((p) => p.part), ['a']);
    assert.equal(readFrom, 1);
  });
});
