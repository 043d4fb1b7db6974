// The event log against a real nats-server: idempotent appends, point reads, history replay.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { connect, type NatsConnection } from 'nats';
import { decodeEvent, makeEvent, PoisonMessageError } from '../../../shared/src/domain/events/index.js';
import { decodeConfirmed } from '../../../shared/src/infra/nats/confirmed-decode.js';
import { AppendConflictError, EventLog } from '../../../shared/src/infra/nats/event-log.js';
import { ensureInfrastructure } from '../../../shared/src/infra/nats/infrastructure.js';
import { STREAM_NAME, subjectOf } from '../../../shared/src/infra/subjects.js';
import { PayloadStore } from '../../../shared/src/infra/nats/payloads.js';
import { startNatsServer, type NatsServerHandle } from '../../support/nats-server.js';

const now = new Date('2026-01-01T00:00:00.000Z');
const keyEvent = (id: string, eventId: string) =>
  makeEvent('key_created', { kind: 'apikey', id, part: 'key' }, { keyHash: 'a'.repeat(64), plan: 'free', label: 't', createdAt: now.toISOString() }, { eventId, now });
const started = (id: string, attempt: number) =>
  makeEvent('page_started', { kind: 'scrape', id, part: 'p1' }, { attempt, startedAt: now.toISOString(), worker: 'w' }, { eventId: `s${attempt}`, now });

describe('event log', () => {
  let server: NatsServerHandle;
  let nc: NatsConnection;
  let log: EventLog;
  before(async () => {
    server = await startNatsServer();
    nc = await connect({ servers: server.url });
    const jsm = await ensureInfrastructure(nc, { eventRetentionMs: 0, payloadTtlMs: 60_000 });
    log = new EventLog(nc.jetstream(), jsm);
  });
  after(async () => {
    await nc.close();
    await server.stop();
  });

  test('ensureInfrastructure is idempotent', async () => {
    await ensureInfrastructure(nc, { eventRetentionMs: 0, payloadTtlMs: 60_000 });
  });

  test('a `once` append is refused forever after the first, not only within the dedup window', async () => {
    const first = await log.append(keyEvent('k1', 'e1'), { once: true });
    assert.equal(first.duplicate, false);
    const again = await log.append(keyEvent('k1', 'e2'), { once: true, msgId: 'different-id' });
    assert.equal(again.duplicate, true);
    assert.equal((await log.history('apikey', 'k1')).length, 1);
  });

  test('the same msgId is dropped by the server within the window', async () => {
    await log.append(started('j1', 1), { msgId: 'm-1' });
    const dup = await log.append(started('j1', 1), { msgId: 'm-1' });
    assert.equal(dup.duplicate, true);
    await log.append(started('j1', 2), { msgId: 'm-2' });
    const history = await log.history('scrape', 'j1');
    assert.deepEqual(history.map((e) => e.event === 'page_started' && e.data.attempt), [1, 2]);
  });

  test('an expectedLastSubjectSequence append is refused when the subject moved on since it was read', async () => {
    const first = await log.append(started('j3', 1), { expectedLastSubjectSequence: 0 });
    assert.equal(first.duplicate, false);
    // Two writers read `first` and both append after it: exactly one wins.
    const raced = await Promise.allSettled([2, 3].map((n) => log.append(started('j3', n), { expectedLastSubjectSequence: first.seq })));
    assert.equal(raced.filter((r) => r.status === 'fulfilled').length, 1);
    const lost = raced.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    assert.ok(lost.reason instanceof AppendConflictError, String(lost.reason));
    assert.equal(lost.reason.expectedLastSubjectSequence, first.seq);
    // A writer that believes the subject is still empty is refused too.
    await assert.rejects(log.append(started('j3', 4), { expectedLastSubjectSequence: 0 }), AppendConflictError);
    assert.equal((await log.history('scrape', 'j3')).length, 2);
    await assert.rejects(log.append(started('j3', 5), { once: true, expectedLastSubjectSequence: 0 }), /exclude each other/);
  });

  test('last and exists read one subject without a consumer', async () => {
    const last = await log.last({ kind: 'scrape', id: 'j1', part: 'p1', event: 'page_started' });
    assert.equal(last?.event === 'page_started' && last.data.attempt, 2);
    assert.equal(await log.exists({ kind: 'scrape', id: 'nope', part: 'p1', event: 'page_started' }), false);
  });

  test('lastOfPart reads the latest event of one part whatever its name; atSeq reads one sequence', async () => {
    const first = await log.append(started('j9', 1), { once: true });
    const now = new Date();
    const failed = await log.append(makeEvent('page_failed', { kind: 'scrape', id: 'j9', part: 'p1' }, { error: { code: 'PAGE_TIMEOUT', message: 'gave up' }, failedAt: now.toISOString(), attempt: 1 }, { eventId: 'f9', now }), { once: true });
    await log.append(started('j9x', 1), { once: true }); // another job's page: not in the part
    const latest = await log.lastOfPart('scrape', 'j9', 'p1');
    assert.equal(latest?.event, 'page_failed');
    assert.equal(latest?.seq, failed.seq);
    assert.equal(await log.lastOfPart('scrape', 'j9', 'nope'), null);
    await assert.rejects(log.lastOfPart('scrape', 'j9', '*'), /not a plain token/);
    assert.equal((await log.atSeq(first.seq))?.event, 'page_started');
    assert.equal(await log.atSeq(10_000_000), null);
    // Given an event of the part it holds: the same answer, whether later events exist or not.
    const held = (await log.atSeq(first.seq))!;
    assert.equal((await log.lastOfPart('scrape', 'j9', 'p1', held))?.seq, failed.seq, 'a later event of the part is the latest');
    const again = (id: string) => makeEvent('page_started', { kind: 'scrape', id, part: 'p1' }, { attempt: 2, startedAt: now.toISOString(), worker: 'w' }, { eventId: `again-${id}`, now });
    const alone = await log.append(again('j9')); // only another job's event after it
    await log.append(again('j9x'));
    const heldAlone = (await log.atSeq(alone.seq))!;
    assert.equal((await log.lastOfPart('scrape', 'j9', 'p1', heldAlone))?.seq, alone.seq, 'nothing after it: the held event is the latest');
    assert.equal((await log.lastOfPart('scrape', 'j9', 'p1'))?.seq, alone.seq);
    // next: the first event on one subject from a sequence on.
    const failedAt = { kind: 'scrape' as const, id: 'j9', part: 'p1', event: 'page_failed' };
    assert.equal((await log.next(failedAt, first.seq))?.seq, failed.seq);
    assert.equal((await log.next(failedAt, failed.seq))?.seq, failed.seq);
    assert.equal(await log.next(failedAt, failed.seq + 1), null);
  });

  test('point reads that find nothing answer null without nats.js building and throwing an error for them', async () => {
    const jsm = await nc.jetstreamManager();
    // The real manager; its message get (which throws an error it builds for a miss) counted.
    let thrown = 0;
    const getMessage = jsm.streams.getMessage.bind(jsm.streams);
    jsm.streams.getMessage = async (...a: Parameters<typeof getMessage>) => {
      try { return await getMessage(...a); } catch (err) { thrown++; throw err; }
    };
    const reading = new EventLog(nc.jetstream(), jsm);
    const held = await reading.atSeq((await log.append(started('miss-a', 1), { once: true })).seq);
    assert.equal((await reading.lastOfPart('scrape', 'miss-a', 'p1', held!))?.seq, held!.seq, 'nothing after it: the held event');
    assert.equal(await reading.last({ kind: 'scrape', id: 'miss-none', part: 'p1', event: 'page_started' }), null);
    assert.equal(await reading.next({ kind: 'scrape', id: 'miss-a', part: 'p1', event: 'page_started' }, held!.seq + 1), null);
    assert.equal(await reading.exists({ kind: 'scrape', id: 'miss-none', part: 'p1', event: 'page_started' }), false);
    assert.equal(thrown, 0, 'no error thrown for a miss');
    // And a read that finds its event answers it whole.
    const found = await reading.last({ kind: 'scrape', id: 'miss-a', part: 'p1', event: 'page_started' });
    assert.deepEqual(found, held);
  });

  test('history reads leave no consumer behind on the server', async () => {
    const jsm = await nc.jetstreamManager();
    const consumers = async (): Promise<number> => (await jsm.streams.info(STREAM_NAME)).state.consumer_count;
    const before = await consumers();
    await log.append(makeEvent('page_started', { kind: 'scrape', id: 'leak', part: 'p1' }, { attempt: 1, startedAt: now.toISOString(), worker: 'w' }, { eventId: 'leak-1', now }));
    for (let i = 0; i < 5; i++) assert.equal((await log.history('scrape', 'leak')).length, 1);
    assert.equal((await log.history('scrape', 'none-such')).length, 0);
    // The delete is sent without waiting for its answer: give the server a moment.
    const deadline = Date.now() + 5_000;
    while ((await consumers()) > before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.equal(await consumers(), before);
  });

  test('historyAfter returns the same events as history from that sequence on, by point reads or past its limit', async () => {
    const jsm = await nc.jetstreamManager();
    const consumers = async (): Promise<number> => (await jsm.streams.info(STREAM_NAME)).state.consumer_count;
    // Two aggregates interleaved, so the point reads must skip the other one's events.
    for (let i = 1; i <= 12; i++) {
      await log.append(started('tail-a', i), { msgId: `tail-a-${i}` });
      await log.append(started('tail-b', i), { msgId: `tail-b-${i}` });
    }
    const all = await log.history('scrape', 'tail-a');
    assert.equal(all.length, 12);
    const before = await consumers();
    for (const after of [0, all[0]!.seq, all[5]!.seq, all[11]!.seq]) {
      const expected = all.filter((e) => e.seq > after).map((e) => e.seq);
      assert.deepEqual((await log.historyAfter('scrape', 'tail-a', after)).map((e) => e.seq), expected, `after ${after}`);
      // Past the point-read limit, the rest comes through one consumer read: the same events.
      assert.deepEqual((await log.historyAfter('scrape', 'tail-a', after, 3)).map((e) => e.seq), expected, `after ${after}, limit 3`);
    }
    assert.deepEqual(await log.historyAfter('scrape', 'none-such', 0), []);
    // Up to a sequence: the events up to it, none past it.
    assert.deepEqual((await log.historyAfter('scrape', 'tail-a', all[1]!.seq, undefined, all[4]!.seq)).map((e) => e.seq), all.slice(2, 5).map((e) => e.seq));
    assert.deepEqual(await log.historyAfter('scrape', 'tail-a', all[4]!.seq, undefined, all[4]!.seq), []);
    // Point reads make no consumer (the limit-3 reads' consumers are deleted, as history's).
    const deadline = Date.now() + 5_000;
    while ((await consumers()) > before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.equal(await consumers(), before);
  });

  test('historyAfter with known sequences sends their reads at once and still finds the events it did not know', async () => {
    const jsm = await nc.jetstreamManager();
    // The real direct API, counting the reads in flight at once.
    const direct = (jsm as unknown as { direct: { getMessage: (...a: unknown[]) => Promise<unknown> } }).direct;
    let inFlight = 0;
    let most = 0;
    let reads = 0;
    const counted = Object.assign(Object.create(Object.getPrototypeOf(jsm) as object) as object, jsm, {
      direct: { getMessage: async (...a: unknown[]) => { reads++; most = Math.max(most, ++inFlight); try { return await direct.getMessage(...a); } finally { inFlight--; } } },
    });
    const counting = new EventLog(nc.jetstream(), counted as typeof jsm);
    for (let i = 1; i <= 6; i++) {
      await log.append(started('known-a', i), { msgId: `known-a-${i}` });
      await log.append(started('known-b', i), { msgId: `known-b-${i}` });
    }
    const all = (await log.history('scrape', 'known-a')).map((e) => e.seq);
    const [s0, s1, s2, s3, s4, s5] = all as [number, number, number, number, number, number];
    // Every event after s0 up to s4 known: four reads, sent at once.
    assert.deepEqual((await counting.historyAfter('scrape', 'known-a', s0, undefined, s4, [s1, s2, s3, s4])).map((e) => e.seq), [s1, s2, s3, s4]);
    assert.equal(reads, 4, 'one read per event');
    assert.equal(most, 4, 'the four reads in flight at once');
    // s2 not known: the batch stops at it and the reads go on one by one, the same events.
    reads = 0;
    assert.deepEqual((await counting.historyAfter('scrape', 'known-a', s0, undefined, s5, [s1, s3, s4, s5])).map((e) => e.seq), [s1, s2, s3, s4, s5]);
    // Known sequences outside the range are left out; without an end, up to the log's end.
    assert.deepEqual((await counting.historyAfter('scrape', 'known-a', s2, undefined, undefined, [s0, s3, s4])).map((e) => e.seq), [s3, s4, s5]);
  });

  test('history of an aggregate with no events is empty', async () => {
    assert.deepEqual(await log.history('crawl', 'none'), []);
  });

  test('invalid event data is refused before it reaches the log', async () => {
    const bad = { ...keyEvent('k2', 'e3'), data: { keyHash: 'not-a-hash', plan: 'free' as const, label: 'x', createdAt: now.toISOString() } };
    await assert.rejects(log.append(bad), PoisonMessageError);
  });

  // Issue 26: a delivery spoiled on its way (another message's bytes spliced in) was termed
  // as poison, and the sound event it carried lost (shared/src/infra/nats/confirmed-decode.ts).
  test('a body that does not decode is poison only when the log\'s own copy does not decode', async () => {
    const { seq } = await log.append(keyEvent('k9', 'e9'));
    const subject = subjectOf({ kind: 'apikey', id: 'k9', part: 'key', event: 'key_created' });
    const spoiled = new TextEncoder().encode('MSG _INBOX.X 1 31\r\n{"stream":"TRAWL", "seq":44070}');
    assert.throws(() => decodeEvent(subject, spoiled, seq), PoisonMessageError);
    const garbled: string[] = [];
    const event = await decodeConfirmed(nc, { subject, data: spoiled, seq }, (err) => garbled.push(err.message));
    assert.equal(event.eventId, 'e9');
    assert.deepEqual(event.data, keyEvent('k9', 'e9').data);
    assert.equal(garbled.length, 1, 'the spoiled delivery is told');
    // A stored body that is not an event: the log's word confirms the poison.
    const poisonSubject = subjectOf({ kind: 'apikey', id: 'k10', part: 'key', event: 'key_created' });
    const stored = await nc.jetstream().publish(poisonSubject, 'not json');
    await assert.rejects(decodeConfirmed(nc, { subject: poisonSubject, data: new TextEncoder().encode('not json'), seq: stored.seq }), PoisonMessageError);
  });

  test('payloads round-trip through the Object Store', async () => {
    const payloads = new PayloadStore(nc.jetstream());
    const big = 'x'.repeat(3 * 1024 * 1024); // larger than a NATS message
    const ref = await payloads.putText('scrape/j1/p1/raw.html', big, 'text/html');
    assert.equal(ref.size, big.length);
    assert.equal(await payloads.getText(ref), big);
    const json = await payloads.putJson('scrape/j1/p1/result.json', { markdown: '# x' });
    assert.deepEqual(await payloads.getJson(json), { markdown: '# x' });
  });

  test('one-chunk payloads are read by direct gets (no consumer), every size and overwrite read back exactly', async () => {
    const payloads = new PayloadStore(nc.jetstream());
    const jsm = await nc.jetstreamManager();
    const consumers = async (): Promise<number> => (await jsm.streams.info('OBJ_trawl-payloads')).state.consumer_count;
    const sizes = [0, 1, 70_000, 128 * 1024 - 1, 128 * 1024, 128 * 1024 + 1, 300_000];
    const refs = [];
    for (const [i, size] of sizes.entries()) {
      const bytes = new Uint8Array(size).map((_, j) => (j * 31 + i) % 251);
      refs.push({ bytes, ref: await payloads.putBytes(`crawl/j${i}/p/raw ü.html`, bytes, 'text/html') });
    }
    for (const { bytes, ref } of refs) assert.deepEqual(Buffer.from(await payloads.getBytes(ref)), Buffer.from(bytes), `size ${bytes.length}`);
    // A redelivered stage overwrites its object: the new content is read.
    const again = await payloads.putText('crawl/j1/p/raw ü.html', 'second version');
    assert.equal(await payloads.getText(again), 'second version');
    // A name never written (a reference made by hand: no chunk of its own to name).
    await assert.rejects(payloads.getBytes({ bucket: again.bucket, name: 'crawl/none/p/raw.html', size: again.size, contentType: again.contentType }), /is gone/);
    // One-chunk reads make no consumer (the multi-chunk ones' consumers go with their reads).
    const before = await consumers();
    for (let i = 0; i < 5; i++) await payloads.getBytes(refs[2]!.ref);
    assert.equal(await consumers(), before);
  });

  test('one-chunk payloads written by the fast put are the client\'s objects: it reads them, and an overwrite leaves one chunk', async () => {
    const payloads = new PayloadStore(nc.jetstream());
    const jsm = await nc.jetstreamManager();
    const os = await nc.jetstream().views.os('trawl-payloads');
    const messages = async (): Promise<number> => (await jsm.streams.info('OBJ_trawl-payloads')).state.messages;
    const bytes = new Uint8Array(90_000).map((_, j) => (j * 7) % 253);
    const ref = await payloads.putBytes('crawl/fast/p1/raw é.html', bytes, 'text/html');
    // The client's own read checks the size and the SHA-256 digest against the meta.
    assert.deepEqual(Buffer.from((await os.getBlob(ref.name))!), Buffer.from(bytes));
    const info = (await os.info(ref.name))!;
    assert.equal(info.size, bytes.length);
    assert.equal(info.chunks, 1);
    assert.equal(info.description, 'text/html');
    const afterFirst = await messages();
    // A redelivered stage overwrites: the old chunk is purged, the meta rolled up.
    for (let i = 0; i < 3; i++) await payloads.putText(ref.name, `version ${i}`);
    assert.equal(await messages(), afterFirst);
    assert.equal(Buffer.from((await os.getBlob(ref.name))!).toString(), 'version 2');
    assert.equal(await payloads.getText(ref), 'version 2');
  });

  test('given a reference naming its chunk, when read, then one direct get; when its name was written again since, then the new version through the meta', async () => {
    const payloads = new PayloadStore(nc.jetstream());
    let gets = 0;
    const tap = nc.subscribe('$JS.API.DIRECT.GET.OBJ_trawl-payloads.>', { callback: () => { gets++; } });
    try {
      const ref = await payloads.putText('crawl/named/p1/result.json', 'first', 'application/json');
      assert.ok(ref.chunk, 'a one-chunk put names its chunk');
      const counted = async (read: () => Promise<string>): Promise<{ text: string; gets: number }> => {
        await nc.flush();
        const from = gets;
        const text = await read();
        await nc.flush();
        return { text, gets: gets - from };
      };
      assert.deepEqual(await counted(() => payloads.getText(ref)), { text: 'first', gets: 1 });
      const { chunk: _named, ...unnamed } = ref;
      assert.deepEqual(await counted(() => payloads.getText(unnamed)), { text: 'first', gets: 2 }, 'an older reference: the meta, then the chunk');
      assert.equal(await payloads.getText({ ...ref, chunk: { ...ref.chunk!, digest: 'AAAA' } }), 'first', 'a chunk that does not match is not taken');
      await payloads.putText(ref.name, 'second', 'application/json');
      assert.equal(await payloads.getText(ref), 'second', 'its chunk purged by the overwrite: the name\'s version');
    } finally {
      tap.unsubscribe();
    }
  });
});
