// The worker's memory of the sequences it settled: bounded, the oldest forgotten first, so a
// copy nats-server 2.9 sends again as new (settled-sequences.ts) is known while it is recent.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SettledSequences } from '../../../shared/src/infra/nats/settled-sequences.js';

test('given settled sequences, when one arrives again, then it is known; an unsettled one is not', () => {
  const settled = new SettledSequences(3);
  settled.add(7);
  settled.add(9);
  assert.equal(settled.has(7), true);
  assert.equal(settled.has(8), false);
});

test('given a full memory, when another sequence is settled, then the oldest is forgotten and a re-settled one counts as new', () => {
  const settled = new SettledSequences(3);
  for (const seq of [1, 2, 3]) settled.add(seq);
  settled.add(1); // settled again: now the newest
  settled.add(4);
  assert.deepEqual([1, 2, 3, 4].map((seq) => settled.has(seq)), [true, false, true, true]);
});
