// Pages built as a stack of sections (issue 22: "service pages keep their several
// <section>s"): a company's service page is a hero, feature bands, steps, quotes and a call
// to action, each a heading, a line or two and a button; a docs landing page is a hero and a
// card per topic. Readability keeps the one section with the most prose. Here the stack
// itself, the element holding most of the page's prose (candidate.ts proseContainer), is
// offered beside the semantic containers, and taken with a lower gain than an article's
// container needs: the sections Readability left out are short.
import { proseContainer } from './candidate.js';
import type { PageType } from './page-type.js';

/** The page types built as a stack of sections: services, and docs (landing pages of topic cards). */
const SECTION_STACK_PAGES: ReadonlySet<PageType | undefined> = new Set<PageType | undefined>(['service', 'documentation']);

/**
 * The stack replaces Readability's one section when it holds this many times its text (an
 * article's container needs MIN_CONTAINER_GAIN, 1.5, in candidate.ts): a short section adds
 * less text than an article's cut column does.
 */
const MIN_SECTION_STACK_GAIN = 1.2;

export function isSectionStackPage(pageType: PageType | undefined): boolean {
  return SECTION_STACK_PAGES.has(pageType);
}

/**
 * A copy of the page's section stack, as a container candidate: on the section-stack pages,
 * and on pages that declare nothing (no JSON-LD, og:type, engine or URL hint) and came out
 * an article only because they read as prose, the rules' default. A company's page of prose
 * bands (a consulting firm's panels, a calculator's explainer under its form) is one of
 * those, and Readability keeps one band of it. There the stack needs an article
 * container's gain (sectionStackGain gives none): a real article's prose container is the
 * article itself, so it rarely holds half as much text again.
 */
export function sectionStacks(body: Element, pageType: PageType | undefined, declaredType?: PageType): Element[] {
  const undeclaredArticle = pageType === 'article' && declaredType === undefined;
  return isSectionStackPage(pageType) || undeclaredArticle ? [proseContainer(body).cloneNode(true) as Element] : [];
}

/** The gain the containers need over Readability's article (undefined: candidate.ts's default). */
export function sectionStackGain(pageType: PageType | undefined): number | undefined {
  return isSectionStackPage(pageType) ? MIN_SECTION_STACK_GAIN : undefined;
}
