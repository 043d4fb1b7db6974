// The trees of the learned models (block-model.ts, page-type-model.ts), as bench/train/gbdt.ts writes them.

/** A split: [feature index, threshold, left (value < threshold), right]; a leaf is its score. */
export type TreeNode = [number, number, TreeNode | number, TreeNode | number];

/** The sum of the trees' leaves that `x` reaches. */
export function treesScore(trees: readonly TreeNode[], x: readonly number[]): number {
  let score = 0;
  for (const tree of trees) {
    let node: TreeNode | number = tree;
    while (typeof node !== 'number') node = x[node[0]]! < node[1] ? node[2] : node[3];
    score += node;
  }
  return score;
}
