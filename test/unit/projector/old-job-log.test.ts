// A multi-page job log recorded with the code before the job runner (crawl and batch had
// deciders, workers and folds of their own; test/fixtures/job-log/old-format.json: three
// crawls and three batches, completed, cancelled and failed, with a blocked host and
// webhooks) replays to the same read models, and the job deciders read it as finished with
// the counters its <kind>_finished recorded: event names and payloads on the log are unchanged.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import { decodeEvent, type StoredEvent } from '../../../shared/src/domain/events/index.js';
import { READ_MODELS } from '../../../services/projector/src/read-models/index.js';
import { crawlDecider } from '../../../services/crawler-frontier/src/crawl/decider.js';
import { batchDecider } from '../../../services/crawler-frontier/src/batch/decider.js';
import type { LogEvent } from '../../../services/crawler-frontier/src/job/decider.js';

interface Recorded {
  messages: { subject: string; body: string; seq: number }[];
  readModels: Record<string, Record<string, unknown>>;
}

function fixture(): Recorded {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!fs.existsSync(path.join(dir, 'package.json'))) dir = path.dirname(dir);
  return JSON.parse(fs.readFileSync(path.join(dir, 'test', 'fixtures', 'job-log', 'old-format.json'), 'utf8')) as Recorded;
}

const recorded = fixture();
const events: StoredEvent[] = recorded.messages.map((m) => decodeEvent(m.subject, Buffer.from(m.body), m.seq));
const JOB_MODELS = ['crawl-jobs', 'crawl-pages', 'batch-pages', 'batch-jobs'];

describe('an old-format multi-page job log', () => {
  test('every message still decodes against the event schemas', () => {
    assert.equal(events.length, recorded.messages.length);
    assert.ok(events.length > 90);
  });

  test('replays to the same read-model documents', () => {
    const docs: Record<string, Record<string, unknown>> = Object.fromEntries(JOB_MODELS.map((name) => [name, {}]));
    for (const e of events) {
      for (const model of READ_MODELS.filter((m) => JOB_MODELS.includes(m.name))) {
        if (!model.handles.includes(e.event) || (model.accepts && !model.accepts(e))) continue;
        const key = model.name.endsWith('pages') ? `${e.id}/${e.part}` : e.id;
        const next = model.evolve(docs[model.name]![key] ?? null, e, model.name === 'batch-pages' ? {} : {});
        if (next) docs[model.name]![key] = next;
      }
    }
    for (const name of JOB_MODELS) assert.deepEqual(docs[name], recorded.readModels[name], name);
    assert.deepEqual(Object.keys(docs['crawl-jobs']!).length + Object.keys(docs['batch-jobs']!).length, 6);
  });

  test('the job deciders read every job as finished, with the counters it finished with', () => {
    for (const [kind, decider] of [['crawl', crawlDecider], ['batch', batchDecider]] as const) {
      const ids = [...new Set(events.filter((e) => e.kind === kind).map((e) => e.id))];
      assert.equal(ids.length, 3);
      for (const id of ids) {
        const history = events.filter((e) => e.kind === kind && e.id === id) as unknown as LogEvent[];
        const state = decider.rehydrate(history);
        const done = history.find((e) => e.event === `${kind}_finished`)!.data as { status: string; completedUrls: number; failedUrls: number };
        assert.equal(state.status, done.status, id);
        assert.deepEqual(decider.decide({ type: 'Advance', jobId: id }, state as never, { now: new Date() }), [], `${id}: nothing more is due`);
        // Counters freeze at a cancel; the finished event's counters are those of the state then.
        const beforeEnd = decider.rehydrate(history.slice(0, history.findIndex((e) => e.event === `${kind}_finished`)));
        assert.deepEqual([beforeEnd.completed, beforeEnd.failed], [done.completedUrls, done.failedUrls], id);
      }
    }
  });
});
