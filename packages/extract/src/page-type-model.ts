// The learned page-type classifier: one set of gradient-boosted depth-2 trees per page type
// (one against the rest) over the page features of page-features.ts, their scores turned into
// probabilities by a softmax. Trained by `npm run train:page-type` (bench/train-page-type.ts)
// on the WCXB dev split and shipped as page-type-model.json; plain arithmetic at run time.
import { treesScore, type TreeNode } from './boosted-trees.js';
import type { PageType } from './page-kinds.js';
import shippedJson from './page-type-model.json' with { type: 'json' };

export interface PageTypeModel {
  /** Feature names in order: a model trained on other features is refused. */
  features: string[];
  /** One entry per page type: its base log-odds and trees. */
  classes: Array<{ type: PageType; base: number; trees: TreeNode[] }>;
  /**
   * The model replaces a kind that only the URL, the host or og:type suggested (see
   * page-type.ts) when its own choice has at least this probability.
   */
  overrideProbability: number;
  /** The model decides a page that declares and suggests nothing when at least this sure (else the structural rules). */
  undeclaredProbability: number;
}

export interface PageTypeGuess {
  type: PageType;
  probability: number;
}

/** The most probable page type for feature vector `x`, with its softmax probability. */
export function guessPageType(model: PageTypeModel, x: readonly number[]): PageTypeGuess {
  const scores = model.classes.map(({ base, trees }) => base + treesScore(trees, x));
  const top = Math.max(...scores);
  let sum = 0;
  let best = 0;
  for (let i = 0; i < scores.length; i++) {
    sum += Math.exp(scores[i]! - top);
    if (scores[i]! > scores[best]!) best = i;
  }
  return { type: model.classes[best]!.type, probability: 1 / sum };
}

/** The shipped model, or null when its features are not these (then the hand rules alone decide). */
export function shippedPageTypeModel(featureNames: readonly string[]): PageTypeModel | null {
  const model = shippedJson as unknown as PageTypeModel;
  return model.features.join() === featureNames.join() ? model : null;
}
