// Change tracking's observations against a real nats-server: the chain per (key, URL),
// redelivery after a crash (nothing appended twice, the real predecessor kept), racing
// observers, tenant isolation, expired baselines, and answers that are no observation.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { connect, type NatsConnection } from 'nats';
import { makeEvent } from '../../../shared/src/domain/events/index.js';
import { EventLog } from '../../../shared/src/infra/nats/event-log.js';
import { ensureInfrastructure } from '../../../shared/src/infra/nats/infrastructure.js';
import { PayloadStore } from '../../../shared/src/infra/nats/payloads.js';
import { BASELINE_BUCKET, subjectOf } from '../../../shared/src/infra/subjects.js';
import { PageObserver, pageKeyOf, type ObserveInput } from '../../../shared/src/domain/observations/observer.js';
import type { PageSource } from '../../../shared/src/domain/observations/chain.js';
import { startNatsServer, type NatsServerHandle } from '../../support/nats-server.js';

describe('page observer', () => {
  let server: NatsServerHandle;
  let nc: NatsConnection;
  let log: EventLog;
  let observer: PageObserver;
  let ids = 0;
  let clock = Date.parse('2026-03-01T00:00:00.000Z');

  before(async () => {
    server = await startNatsServer();
    nc = await connect({ servers: server.url });
    const jsm = await ensureInfrastructure(nc, { eventRetentionMs: 0, payloadTtlMs: 60_000 });
    log = new EventLog(nc.jetstream(), jsm);
    observer = new PageObserver({ log, baselines: new PayloadStore(nc.jetstream(), BASELINE_BUCKET), newId: () => `id${++ids}` });
  });
  after(async () => {
    await nc.close();
    await server.stop();
  });

  /** A page fetched now: a page_fetched stand-in whose sequence the observation must follow. */
  async function fetched(source: PageSource): Promise<number> {
    const now = new Date(clock);
    const event = makeEvent('page_started', { kind: source.kind, id: source.jobId, part: source.part }, { attempt: 1, startedAt: now.toISOString(), worker: 'w' }, { eventId: `f${++ids}`, now });
    return (await log.append(event)).seq;
  }

  async function observe(url: string, jobId: string, markdown: string, opts: Partial<ObserveInput> = {}) {
    const source: PageSource = { kind: 'scrape', jobId, part: pageKeyOf(url) };
    clock += 60_000;
    const input: ObserveInput = {
      apiKeyId: 'key1', url, source, fetchedSeq: await fetched(source), statusCode: 200, markdown, optionsHash: 'opts-a', now: new Date(clock), wantReport: true, ...opts,
    };
    return { input, outcome: await observer.observe(input) };
  }

  const history = async (keyId: string, url: string) =>
    log.read(subjectOf({ kind: 'observation', id: keyId, part: pageKeyOf(url), event: 'url_observed' }));

  test('new, same, changed (with the diff), removed, in the chain of one key and URL', async () => {
    const url = 'https://example.com/pricing';
    const first = await observe(url, 'j1', '# Pricing\n\nStarter: $9');
    assert.equal(first.outcome.report?.changeStatus, 'new');
    assert.equal(first.outcome.report?.previousScrapeAt, null);
    const second = await observe(url, 'j2', '# Pricing\n\nStarter: $9');
    assert.equal(second.outcome.report?.changeStatus, 'same');
    assert.equal(second.outcome.report?.previousScrapeAt, first.input.now.toISOString());
    assert.equal(second.outcome.report?.previousJobId, 'j1');
    assert.equal(second.outcome.report?.diff, undefined);
    const third = await observe(url, 'j3', '# Pricing\n\nStarter: $12');
    assert.equal(third.outcome.report?.changeStatus, 'changed');
    assert.match(third.outcome.report?.diff ?? '', /^-Starter: \$9$/m);
    assert.match(third.outcome.report?.diff ?? '', /^\+Starter: \$12$/m);
    const fourth = await observe(url, 'j4', '# Not found', { statusCode: 404 });
    assert.equal(fourth.outcome.report?.changeStatus, 'removed');
    assert.equal(fourth.outcome.report?.previousJobId, 'j3');
    const events = await history('key1', url);
    assert.deepEqual(events.map((e) => e.event === 'url_observed' && e.data.changeStatus), ['new', 'same', 'changed', 'removed']);
    // Each one embeds the one before it.
    assert.deepEqual(events.map((e) => e.event === 'url_observed' && e.data.previous?.seq), [undefined, events[0]!.seq, events[1]!.seq, events[2]!.seq]);
  });

  test('a redelivered transform finds its own observation: nothing appended twice, same answer', async () => {
    const url = 'https://example.com/redelivered';
    await observe(url, 'r1', 'version one');
    const crashed = await observe(url, 'r2', 'version two');
    // The process died after appending url_observed, before page_completed; the page is redelivered.
    const again = await observer.observe({ ...crashed.input, now: new Date(clock + 5_000) });
    assert.equal(again.seq, crashed.outcome.seq);
    assert.equal(again.observedAt, crashed.input.now.toISOString(), 'the time it first observed');
    assert.deepEqual(again.report, crashed.outcome.report);
    assert.equal(again.report?.changeStatus, 'changed');
    assert.equal((await history('key1', url)).length, 2);
  });

  test('a redelivery after another job observed the URL in between still answers against its real predecessor', async () => {
    const url = 'https://example.com/raced';
    await observe(url, 'a1', 'v1');
    const crashed = await observe(url, 'a2', 'v2');
    await observe(url, 'a3', 'v2');
    const again = await observer.observe(crashed.input);
    assert.equal(again.seq, crashed.outcome.seq);
    assert.equal(again.report?.changeStatus, 'changed');
    assert.equal(again.report?.previousJobId, 'a1');
    assert.equal((await history('key1', url)).length, 3);
  });

  test('a last observation read while the page was transformed, then overtaken by another job\'s, still links to the real predecessor', async () => {
    const url = 'https://example.com/read-early';
    await observe(url, 'e1', 'v1');
    // Given the last observation read early (the transformer reads it during the transform)...
    const early = await observer.lastObservation({ apiKeyId: 'key1', url });
    assert.equal(early?.data.source.jobId, 'e1');
    // ...when another job observes the URL before this page's observation is appended...
    const between = await observe(url, 'e2', 'v2');
    const late = await observe(url, 'e3', 'v3', { last: early });
    // ...then this page follows the other job's observation, not the one read early.
    assert.equal(late.outcome.report?.previousJobId, 'e2');
    const events = await history('key1', url);
    assert.deepEqual(events.map((e) => (e.event === 'url_observed' ? e.data.previous?.seq : undefined)), [undefined, events[0]!.seq, between.outcome.seq]);
  });

  test('observers racing on one URL each get a link of the chain (no two on one predecessor)', async () => {
    const url = 'https://example.com/concurrent';
    await observe(url, 'c0', 'base');
    const outcomes = await Promise.all(['c1', 'c2', 'c3', 'c4'].map((id, i) => observe(url, id, `version ${i}`)));
    const events = await history('key1', url);
    assert.equal(events.length, 5);
    const previous = events.map((e) => (e.event === 'url_observed' ? e.data.previous?.seq : undefined));
    assert.deepEqual(previous, [undefined, ...events.slice(0, -1).map((e) => e.seq)]);
    for (const o of outcomes) assert.equal(o.outcome.report?.changeStatus, 'changed');
  });

  test('another key has its own observations of the same URL', async () => {
    const url = 'https://example.com/pricing';
    const other = await observe(url, 'k2', '# Pricing\n\nStarter: $12', { apiKeyId: 'key2' });
    assert.equal(other.outcome.report?.changeStatus, 'new');
    assert.equal(other.outcome.report?.previousScrapeAt, null);
    assert.equal((await history('key2', url)).length, 1);
  });

  test('an expired baseline: the status is still exact (from the hash), the diff is absent with its reason', async () => {
    const url = 'https://example.com/expired';
    await observe(url, 'e1', 'old text');
    const events = await history('key1', url);
    const ref = events[0]!.event === 'url_observed' ? events[0]!.data.baseline : undefined;
    assert.ok(ref, 'a present page keeps its markdown as a baseline');
    const os = await nc.jetstream().views.os(BASELINE_BUCKET);
    await os.delete(ref.name);
    const changed = await observe(url, 'e2', 'new text');
    assert.equal(changed.outcome.report?.changeStatus, 'changed');
    assert.equal(changed.outcome.report?.diffUnavailable, 'previous_expired');
    assert.equal(changed.outcome.report?.diff, undefined);
    const same = await observe(url, 'e3', 'new text');
    assert.equal(same.outcome.report?.changeStatus, 'same');
  });

  test('an error other than 404/410 is no observation: the last one stays the baseline', async () => {
    const url = 'https://example.com/flaky';
    await observe(url, 'f1', 'content');
    const failing = await observe(url, 'f2', '# Service unavailable', { statusCode: 503 });
    assert.equal(failing.outcome.seq, undefined);
    assert.equal(failing.outcome.report?.observed, false);
    assert.equal(failing.outcome.report?.changeStatus, undefined);
    assert.equal(failing.outcome.report?.previousJobId, 'f1');
    const back = await observe(url, 'f3', 'content');
    assert.equal(back.outcome.report?.changeStatus, 'same');
    assert.equal(back.outcome.report?.previousJobId, 'f1');
    assert.equal((await history('key1', url)).length, 2);
  });

  test('an unchanged page reuses its baseline for up to a day, then writes it again (renewing its age)', async () => {
    const url = 'https://example.com/unchanged';
    const data = async () => (await history('key1', url)).map((e) => (e.event === 'url_observed' ? e.data : undefined)!);
    await observe(url, 'b1', 'stable text');
    await observe(url, 'b2', 'stable text');
    clock += 2 * 86_400_000;
    await observe(url, 'b3', 'stable text');
    const [b1, b2, b3] = await data();
    assert.equal(b1!.baselineWrittenAt, b1!.observedAt);
    assert.equal(b2!.baselineWrittenAt, b1!.observedAt, 'reused: no second write of the same markdown');
    assert.deepEqual(b2!.baseline, b1!.baseline);
    assert.equal(b3!.baselineWrittenAt, b3!.observedAt, 'written again after a day');
    const os = await nc.jetstream().views.os(BASELINE_BUCKET);
    assert.equal(new TextDecoder().decode((await os.getBlob(b3!.baseline!.name))!), 'stable text');
  });

  test('a comparison across different content options says so', async () => {
    const url = 'https://example.com/options';
    await observe(url, 'o1', 'main content only');
    const same = await observe(url, 'o2', 'main content only');
    assert.equal(same.outcome.report?.optionsChanged, false);
    const wider = await observe(url, 'o3', 'main content only\n\nfooter', { optionsHash: 'opts-b' });
    assert.equal(wider.outcome.report?.changeStatus, 'changed');
    assert.equal(wider.outcome.report?.optionsChanged, true);
  });

  test('a tag is a history of its own: other tags and the untagged history do not see it', async () => {
    const url = 'https://example.com/tagged';
    await observe(url, 't1', 'plain');
    const tagged = await observe(url, 't2', 'plain', { tag: 'monitor a' });
    assert.equal(tagged.outcome.report?.changeStatus, 'new');
    const otherTag = await observe(url, 't3', 'changed', { tag: 'monitor b' });
    assert.equal(otherTag.outcome.report?.changeStatus, 'new');
    const taggedAgain = await observe(url, 't4', 'changed', { tag: 'monitor a' });
    assert.equal(taggedAgain.outcome.report?.changeStatus, 'changed');
    assert.equal(taggedAgain.outcome.report?.previousJobId, 't2');
    const untagged = await observe(url, 't5', 'plain');
    assert.equal(untagged.outcome.report?.changeStatus, 'same');
    assert.equal(untagged.outcome.report?.previousJobId, 't1');
  });

  test('without the format, the page is still observed (the next tracked scrape has a baseline), with no report', async () => {
    const url = 'https://example.com/untracked';
    const quiet = await observe(url, 'u1', 'text', { wantReport: false });
    assert.ok(quiet.outcome.seq);
    assert.equal(quiet.outcome.report, undefined);
    const tracked = await observe(url, 'u2', 'text');
    assert.equal(tracked.outcome.report?.changeStatus, 'same');
  });

  test('given the fetcher found no observation (`last: null`), when another job observed the URL since, then this one chains after it', async () => {
    const url = 'https://example.com/first-crawl';
    const other = await observe(url, 'n1', 'v1');
    const late = await observe(url, 'n2', 'v2', { last: null, wantReport: false });
    const events = await history('key1', url);
    assert.deepEqual(events.map((e) => e.seq), [other.outcome.seq, late.outcome.seq]);
    const second = events[1]!;
    assert.equal(second.event === 'url_observed' && second.data.previous?.seq, other.outcome.seq, 'its predecessor is the one appended since the fetch');
    assert.equal(second.event === 'url_observed' && second.data.changeStatus, 'changed');
  });

  test('given the fetcher found no observation (`last: null`), when the page is redelivered after its own, then nothing is appended twice', async () => {
    const url = 'https://example.com/first-crawl-redelivered';
    const crashed = await observe(url, 'd1', 'v1', { last: null, wantReport: false });
    const again = await observer.observe({ ...crashed.input, now: new Date(clock + 5_000) });
    assert.equal(again.seq, crashed.outcome.seq);
    assert.equal(again.observedAt, crashed.input.now.toISOString(), 'the time it first observed');
    assert.equal((await history('key1', url)).length, 1);
  });
});
