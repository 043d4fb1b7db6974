// The opening post of a script-built thread, from the page's description (moved out of
// extract-page.ts, which holds the candidate chain).

/**
 * A thread whose content is still tiny (under `minText`) after every fallback (a
 * script-built thread whose HTML holds the title and little else) gets its description,
 * the longest of <meta name=description> and og:description, when that is longer than what
 * it has: forum engines put the opening post there. Only threads: a shop's or a company's empty shell (a
 * bot wall, an app that renders everything) has no content to stand for, and its
 * description is a blurb. Recorded in metadata.extractionFallbacks.
 */
export function openingPost(root: Element, descriptions: ReadonlyArray<string | undefined>, fallbacks: string[], minText: number): void {
  const length = (root.textContent ?? '').replace(/\s+/g, ' ').trim().length;
  if (length >= minText) return;
  const description = descriptions.reduce<string>((best, d) => ((d ?? '').trim().length > best.length ? (d ?? '').trim() : best), '');
  if (description.length <= length) return;
  const p = root.ownerDocument.createElement('p');
  p.textContent = description;
  root.append(p);
  fallbacks.push('empty main content: page description');
}
