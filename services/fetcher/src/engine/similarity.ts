// "The same page": how auto compares what the HTTP engine and the browser made of one page.
// Both raw HTMLs go through the transformer's own transformPage (markdown + links, the
// request's onlyMainContent/include/excludeTags), and the outputs are compared:
//   - markdown: Jaccard similarity of word 3-shingles after whitespace is collapsed, so a
//     changed word costs ~3 shingles and a missing paragraph costs all of its shingles;
//   - links: Jaccard similarity of the two link sets (a link only the browser sees is a
//     page a crawl over HTTP would miss).
// Agreed when both are at least SAME_PAGE_THRESHOLD: a clock, a counter or a rotated
// teaser may differ, a paragraph or a link list built by script may not.
export const SAME_PAGE_THRESHOLD = 0.95;

export interface PageComparison {
  /** 1 when the markdowns are identical. */
  markdown: number;
  links: number;
  identical: boolean;
  agreed: boolean;
}

export function comparePages(a: { markdown: string; links: string[] }, b: { markdown: string; links: string[] }): PageComparison {
  const ma = collapse(a.markdown);
  const mb = collapse(b.markdown);
  const markdown = ma === mb ? 1 : jaccard(shingles(ma), shingles(mb));
  const links = jaccard(new Set(a.links), new Set(b.links));
  return { markdown: round(markdown), links: round(links), identical: ma === mb, agreed: markdown >= SAME_PAGE_THRESHOLD && links >= SAME_PAGE_THRESHOLD };
}

function collapse(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function shingles(text: string, size = 3): Set<string> {
  const words = text ? text.split(' ') : [];
  const out = new Set<string>();
  if (words.length < size) {
    if (words.length) out.add(words.join(' '));
    return out;
  }
  for (let i = 0; i + size <= words.length; i++) out.add(words.slice(i, i + size).join(' '));
  return out;
}

export function jaccard<T>(a: Set<T>, b: Set<T>): number {
  if (a.size === 0 && b.size === 0) return 1;
  let shared = 0;
  for (const x of a) if (b.has(x)) shared++;
  return shared / (a.size + b.size - shared);
}

function round(x: number): number {
  return Math.round(x * 10_000) / 10_000;
}
