// The trainer behind npm run train:extract (bench/train/gbdt.ts): it learns a threshold
// and an interaction from data, and the same seed gives the same model.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { seededRandom, trainGbdt } from '../../../bench/train/gbdt.js';

function data(seed: number) {
  const random = seededRandom(seed);
  const x: number[][] = [];
  const y: number[] = [];
  for (let i = 0; i < 2000; i++) {
    const row = [random(), random() < 0.5 ? 1 : 0, random()];
    x.push(row);
    // Content when dense enough and flagged, or very dense: feature 2 is noise.
    y.push((row[0]! > 0.6 && row[1] === 1) || row[0]! > 0.9 ? 1 : 0);
  }
  return { x, y, w: x.map(() => 1) };
}

const OPTIONS = { rounds: 40, learningRate: 0.3, lambda: 1, subsample: 0.8, bins: 16, minChildWeight: 1, seed: 7 };

function predict(model: ReturnType<typeof trainGbdt>, row: readonly number[]): number {
  let s = model.base;
  for (const tree of model.trees) {
    let node: typeof tree | number = tree;
    while (typeof node !== 'number') node = row[node[0]]! < node[1] ? node[2] : node[3];
    s += node;
  }
  return s;
}

describe('gradient-boosted trees', () => {
  test('learn the rule behind the labels (held-out rows)', () => {
    const train = data(1);
    const model = trainGbdt(train.x, train.y, train.w, OPTIONS);
    const test = data(2);
    const right = test.x.filter((row, i) => (predict(model, row) > 0 ? 1 : 0) === test.y[i]).length;
    assert.ok(right / test.x.length > 0.97, `accuracy ${right / test.x.length}`);
    assert.notEqual(model.trees[0]![0], 2, 'the noise feature is not the first split');
  });

  test('a flag feature gets its one cut (between 0 and 1)', () => {
    const x = Array.from({ length: 100 }, (_, i) => [i % 10 === 0 ? 1 : 0]);
    const y = x.map((r) => r[0]!);
    const model = trainGbdt(x, y, y.map(() => 1), { ...OPTIONS, rounds: 1, subsample: 1, minChildWeight: 0.1 });
    assert.equal(model.trees[0]![1], 0.5);
  });

  test('the same seed gives the same model', () => {
    const train = data(3);
    assert.deepEqual(trainGbdt(train.x, train.y, train.w, OPTIONS), trainGbdt(train.x, train.y, train.w, OPTIONS));
  });
});
