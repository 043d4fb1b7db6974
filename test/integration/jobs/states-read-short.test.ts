// A job's state must include the event being handled. When even the rebuild from the whole
// history ends before it (the read answered by a replica still catching up after a restart),
// the state is not decided on: load() fails as a NATS outage, so the worker reads again in
// place. Before, it returned the short state: the chaos drill's crawl stood at 183 of 200 for
// good, its last page_completed decided on a state with 6 pages still in flight. Here the log
// is real and whole; the event to reach is simply one the aggregate's history does not hold.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DeciderStates } from '../../../services/crawler-frontier/src/job/states.js';
import type { StoredEvent } from '../../../shared/src/domain/events/index.js';
import { EventLog } from '../../../shared/src/infra/nats/event-log.js';
import { isNatsOutage } from '../../../shared/src/infra/nats/outage.js';
import { STREAM_NAME } from '../../../shared/src/infra/subjects.js';
import { natsPerSuite } from '../../support/nats-server.js';

const JOB = 'statesShortJob00000001';
const OTHER = 'statesShortJob00000002';

describe('job states read short', () => {
  const nats = natsPerSuite();

  test('a state whose history ends before the event to reach is an outage, not a decision', async () => {
    const jsm = await nats.nc.jetstreamManager();
    await jsm.streams.add({ name: STREAM_NAME, subjects: ['trawl.>'] });
    const js = nats.nc.jetstream();
    const publish = (job: string, i: number) => js.publish(`trawl.crawl.${job}.${i.toString(16).padStart(16, '0')}.crawl_links_discovered`,
      JSON.stringify({ eventId: `${job}-${i}`, occurredAt: new Date().toISOString(), data: { depth: 1, urls: [], skipped: {}, discoveredAt: new Date().toISOString() } }));
    for (let i = 0; i < 3; i++) await publish(JOB, i);
    const beyond = (await publish(OTHER, 0)).seq; // past the job's last event
    const states = new DeciderStates<number, StoredEvent>(new EventLog(js, jsm), { kind: 'crawl', initialState: () => 0, evolve: (n) => n + 1, isFinished: () => false }, 10);
    assert.equal(await states.load(JOB, 3), 3, 'reaching an event the history holds');
    states.forget(JOB);
    await assert.rejects(states.load(JOB, beyond), (err: unknown) => isNatsOutage(err), 'before: the state of 3 events, decided on');
  });
});
