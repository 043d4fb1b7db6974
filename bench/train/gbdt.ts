// Gradient-boosted depth-2 trees for a binary label with sample weights (logistic loss,
// second-order leaf values as in XGBoost), on features cut into quantile bins. Small and
// seeded: the same data and seed give the same model.
import type { TreeNode } from '../../packages/extract/src/block-model.js';
import { rng } from '../lib/pages.js';

export interface TrainOptions {
  rounds: number;
  learningRate: number;
  /** L2 on leaf values. */
  lambda: number;
  /** Share of rows each round sees (stochastic boosting). */
  subsample: number;
  /** Quantile bins per feature. */
  bins: number;
  /** A leaf needs at least this much hessian weight. */
  minChildWeight: number;
  seed: number;
}

export interface TrainResult {
  base: number;
  trees: TreeNode[];
}

/** The bench's one seeded generator (mulberry32), enough for row sampling. */
export const seededRandom = rng;

export function trainGbdt(x: readonly number[][], y: readonly number[], w: readonly number[], o: TrainOptions): TrainResult {
  const n = x.length;
  const d = x[0]?.length ?? 0;
  // Thresholds per feature: a value goes to bin k when it is below thresholds[k] (and not below thresholds[k-1]).
  const thresholds: number[][] = [];
  const binned = new Uint8Array(n * d);
  for (let f = 0; f < d; f++) {
    const values = x.map((r) => r[f]!).sort((a, b) => a - b);
    // Cuts halfway between distinct values: between each pair when there are few (a flag
    // gets its one cut), else just below each quantile.
    const distinct = values.filter((v, i) => i === 0 || v !== values[i - 1]);
    const cuts = new Set<number>();
    if (distinct.length <= o.bins) {
      for (let j = 1; j < distinct.length; j++) cuts.add((distinct[j - 1]! + distinct[j]!) / 2);
    } else {
      for (let k = 1; k < o.bins; k++) {
        const q = values[Math.floor((k * n) / o.bins)]!;
        const j = lowerBound(distinct, q);
        if (j > 0) cuts.add((distinct[j - 1]! + distinct[j]!) / 2);
      }
    }
    const t = [...cuts].sort((a, b) => a - b);
    thresholds.push(t);
    for (let i = 0; i < n; i++) {
      const v = x[i]![f]!;
      let k = 0;
      while (k < t.length && v >= t[k]!) k++;
      binned[i * d + f] = k;
    }
  }
  const pos = y.reduce((s, v, i) => s + v * w[i]!, 0);
  const all = w.reduce((s, v) => s + v, 0);
  const base = Math.log(pos / (all - pos));
  const score = new Float64Array(n).fill(base);
  const g = new Float64Array(n);
  const h = new Float64Array(n);
  const random = seededRandom(o.seed);
  const trees: TreeNode[] = [];
  for (let round = 0; round < o.rounds; round++) {
    const rows: number[] = [];
    for (let i = 0; i < n; i++) {
      if (random() >= o.subsample) continue;
      const p = 1 / (1 + Math.exp(-score[i]!));
      g[i] = (p - y[i]!) * w[i]!;
      h[i] = Math.max(p * (1 - p), 1e-6) * w[i]!;
      rows.push(i);
    }
    const tree = grow(rows, 2);
    trees.push(tree as TreeNode);
    for (let i = 0; i < n; i++) score[i]! += predict(tree, x[i]!);
  }
  return { base, trees: trees.filter((t) => typeof t !== 'number') };

  function leaf(rows: readonly number[]): number {
    let G = 0;
    let H = 0;
    for (const i of rows) {
      G += g[i]!;
      H += h[i]!;
    }
    return (-G / (H + o.lambda)) * o.learningRate;
  }

  function grow(rows: readonly number[], depth: number): TreeNode | number {
    if (depth === 0) return leaf(rows);
    const split = bestSplit(rows);
    if (!split) return leaf(rows);
    const left: number[] = [];
    const right: number[] = [];
    for (const i of rows) (binned[i * d + split.f]! <= split.k ? left : right).push(i);
    return [split.f, thresholds[split.f]![split.k]!, grow(left, depth - 1), grow(right, depth - 1)];
  }

  function bestSplit(rows: readonly number[]): { f: number; k: number } | undefined {
    let G = 0;
    let H = 0;
    for (const i of rows) {
      G += g[i]!;
      H += h[i]!;
    }
    const parent = (G * G) / (H + o.lambda);
    let best: { f: number; k: number; gain: number } | undefined;
    const hg = new Float64Array(o.bins);
    const hh = new Float64Array(o.bins);
    for (let f = 0; f < d; f++) {
      const cuts = thresholds[f]!.length;
      if (cuts === 0) continue;
      hg.fill(0);
      hh.fill(0);
      for (const i of rows) {
        const b = binned[i * d + f]!;
        hg[b]! += g[i]!;
        hh[b]! += h[i]!;
      }
      let GL = 0;
      let HL = 0;
      for (let k = 0; k < cuts; k++) {
        GL += hg[k]!;
        HL += hh[k]!;
        const HR = H - HL;
        if (HL < o.minChildWeight || HR < o.minChildWeight) continue;
        const GR = G - GL;
        const gain = (GL * GL) / (HL + o.lambda) + (GR * GR) / (HR + o.lambda) - parent;
        if (!best || gain > best.gain) best = { f, k, gain };
      }
    }
    return best && best.gain > 0 ? best : undefined;
  }
}

function predict(node: TreeNode | number, x: readonly number[]): number {
  while (typeof node !== 'number') node = x[node[0]]! < node[1] ? node[2] : node[3];
  return node;
}

/** Index of the first value not below `v` in a sorted array. */
function lowerBound(sorted: readonly number[], v: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
