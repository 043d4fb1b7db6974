// The projector's partitions: every read model folded by exactly one, none empty, and the
// models that are read together (job models, key usage, crawl and batch pages, the scrape
// cache) in one partition, in READ_MODELS order.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { modelsOf, partitionOf } from '../../../services/projector/src/partitions.js';
import { READ_MODELS } from '../../../services/projector/src/read-models/index.js';
import { PROJECTION_PARTITIONS } from '../../../shared/src/infra/subjects.js';

test('every read model is in exactly one partition, and no partition is empty', () => {
  const folded = PROJECTION_PARTITIONS.flatMap((p) => modelsOf(p, READ_MODELS).map((m) => m.name));
  assert.deepEqual([...folded].sort(), READ_MODELS.map((m) => m.name).sort());
  for (const p of PROJECTION_PARTITIONS) assert.ok(modelsOf(p, READ_MODELS).length > 0, p);
});

test('models read together are folded together, in READ_MODELS order', () => {
  const together = ['scrape-jobs', 'scrape-cache', 'crawl-jobs', 'crawl-pages', 'batch-pages', 'batch-jobs', 'map-jobs', 'key-usage'];
  const byName = new Map(READ_MODELS.map((m) => [m.name, m]));
  assert.deepEqual(new Set(together.map((n) => partitionOf(byName.get(n)!))), new Set(['jobs']));
  const jobs = modelsOf('jobs', READ_MODELS).map((m) => m.name);
  assert.deepEqual(jobs, READ_MODELS.map((m) => m.name).filter((n) => jobs.includes(n)));
  assert.deepEqual(new Set(['api-keys', 'accounts', 'invites', 'sessions'].map((n) => partitionOf(byName.get(n)!))), new Set(['accounts']));
});
