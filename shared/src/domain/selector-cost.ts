// The cost check of a CSS selector that the transformer runs on a page (extract schemas,
// includeTags, excludeTags), made at validation time so that a costly selector is a 400
// naming its field, never a stalled transform thread (issue 20). Why these rules: see
// `selectorCostProblem`; TRANSFORM_TIMEOUT_MS is the backstop for what remains.
import { parse, type Selector } from 'css-what';

/** Descendant or general-sibling combinators in one selector (nested ones included). */
export const MAX_SELECTOR_BRANCHING_COMBINATORS = 3;
/** Combinators of any kind in one selector (nested ones included). */
export const MAX_SELECTOR_COMBINATORS = 12;
/** :not(:is(:where(...))) nested at most this deep. */
export const MAX_SELECTOR_NESTING = 2;
/** Comma-separated selectors in one selector list. */
export const MAX_SELECTOR_LIST = 20;

const BRANCHING = new Set(['descendant', 'sibling']);
const COMBINATORS = new Set(['descendant', 'sibling', 'child', 'adjacent', 'parent', 'column-combinator']);
const REFUSED_PSEUDOS = new Set(['has']);

// Why these rules: the transformer's DOM (linkedom, through css-select) matches right to
// left and backtracks without memoizing plain descendant steps. A selector with k
// descendant (` `) or general-sibling (`~`) combinators that fails near the top tries every
// way to place its k ancestors on each candidate's ancestor chain, C(depth, k) paths
// (docs/benchmarks.md "Selector cost"). `:has()` scans each candidate's subtree (quadratic
// in the page), and selectors nested in :not()/:is()/:where() run once per candidate, so
// their combinators count with the outer ones.
/**
 * Why the selector costs too much for the transformer, or undefined when it is fine (or not
 * parsable: that is the syntax check's to report).
 */
export function selectorCostProblem(selector: string): string | undefined {
  let list: Selector[][];
  try {
    list = parse(selector);
  } catch {
    return undefined;
  }
  if (list.length > MAX_SELECTOR_LIST) return `has ${list.length} comma-separated selectors (at most ${MAX_SELECTOR_LIST})`;
  for (const complex of list) {
    const problem = complexProblem(complex, 0);
    if (problem) return problem;
  }
  return undefined;
}

interface Count {
  branching: number;
  all: number;
}

function complexProblem(complex: Selector[], nesting: number, count: Count = { branching: 0, all: 0 }): string | undefined {
  for (const token of complex) {
    if (COMBINATORS.has(token.type)) {
      count.all += 1;
      if (BRANCHING.has(token.type)) count.branching += 1;
    }
    if (token.type === 'pseudo' || token.type === 'pseudo-element') {
      if (REFUSED_PSEUDOS.has(token.name)) return `uses :${token.name}(), which the extraction does not run (it scans every element's subtree)`;
      if (token.type === 'pseudo' && Array.isArray(token.data)) {
        if (nesting + 1 > MAX_SELECTOR_NESTING) return `nests :${token.name}() more than ${MAX_SELECTOR_NESTING} levels deep`;
        // Each inner selector runs for every candidate: its combinators add to the outer ones.
        for (const inner of token.data) {
          const problem = complexProblem(inner, nesting + 1, count);
          if (problem) return problem;
        }
      }
    }
    if (count.branching > MAX_SELECTOR_BRANCHING_COMBINATORS) {
      return `has more than ${MAX_SELECTOR_BRANCHING_COMBINATORS} descendant (space) or ~ combinators, which can take exponential time on deeply nested pages; `
        + 'anchor it with an id or class, or use child (>) combinators';
    }
    if (count.all > MAX_SELECTOR_COMBINATORS) return `has more than ${MAX_SELECTOR_COMBINATORS} combinators`;
  }
  return undefined;
}
