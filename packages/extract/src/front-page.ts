// A site's front page (the URL's path is the root) is no article: an article has a path of its
// own under the site (/blog/some-story, /2024/05/...). On WCXB's dev split 56 of the 64 root
// pages are a company's or a product's own page (service) or an index of its stories (listing);
// 2 are articles (a blog whose root shows its newest post in full). When neither what the page
// declares nor its structure found another kind, the front page gets the site-page layout
// ('service': several <section>s kept, section-stack.ts) instead of the one-article layout.
import type { PageType } from './page-kinds.js';

/**
 * Query keys that track a visit and do not choose what the page shows. Any other key may name
 * the content (WordPress serves a post as /?p=2895), so the root with it is no front page.
 */
const TRACKING_KEY = /^(utm_\w+|srsltid|gclid|fbclid|msclkid|ref|source)$/i;

/** The URL's path is the site's root, with no query key but tracking ones. */
export function isFrontPage(url: string): boolean {
  try {
    const { pathname, searchParams } = new URL(url);
    return (pathname === '/' || pathname === '') && [...searchParams.keys()].every((key) => TRACKING_KEY.test(key));
  } catch {
    return false;
  }
}

/** The kind of a page whose other signals said `type`: 'service' for a front page they called an article. */
export function frontPageType(type: PageType, url: string): PageType {
  return type === 'article' && isFrontPage(url) ? 'service' : type;
}
