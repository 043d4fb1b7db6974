// The learned block classifier: gradient-boosted depth-2 trees over the features of
// blocks.ts, trained by `npm run train:extract` (bench/train/) on the dev sets and shipped as
// block-model.json. Plain arithmetic at run time: no download, no native code.
import { FEATURE_NAMES } from './blocks.js';
import { treesScore, type TreeNode } from './boosted-trees.js';
import shippedJson from './block-model.json' with { type: 'json' };

export type { TreeNode } from './boosted-trees.js';

export interface BlockModel {
  /** Feature names in order: a model trained on other features is refused. */
  features: string[];
  /** Log-odds before any tree. */
  base: number;
  trees: TreeNode[];
  /** A block the rules kept stays when its probability is at least this. */
  threshold: number;
  /** A block the rules left out comes back when its probability is at least this (adding costs precision). */
  addThreshold: number;
}

export function blockScore(model: BlockModel, x: readonly number[]): number {
  return 1 / (1 + Math.exp(-(model.base + treesScore(model.trees, x))));
}

const model = shippedJson as unknown as BlockModel;
/** The model in block-model.json, or null when it was trained on other features (then the rules alone decide). */
export const SHIPPED_BLOCK_MODEL: BlockModel | null = model.features.join() === FEATURE_NAMES.join() ? model : null;
