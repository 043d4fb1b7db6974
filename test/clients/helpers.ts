// Shared by the client tests: a small site with known pages, and the system booted with a
// free-plan key beside the team test key.
import { startSite, type TestSite } from '../support/site.js';
import { startSystem, TEST_API_KEY, type TrawlSystem } from '../support/system.js';

export const FREE_API_KEY = 'free_key_0123456789abcdef';

export const page = (title: string, links: string[] = [], extra = ''): string => `<!doctype html><html><head><title>${title}</title>
<meta name="description" content="About ${title}"></head><body>
<nav>${links.map((l) => `<a href="${l}">${l}</a>`).join(' ')}</nav>
<main><article><h1>${title}</h1><p>This is the page called ${title}. It has a paragraph long enough for a readability
algorithm to keep it as the main content of the page, with a few more words for good measure.</p>${extra}</article></main>
</body></html>`;

/** `/` links to /a, /b, /c; `/slow` links to 12 pages that each take `slowMs` to answer. */
export async function startClientSite(slowMs = 1500): Promise<TestSite> {
  const site = await startSite({
    '/': page('Home', ['/a', '/b', '/c']),
    '/a': page('Page A', ['/']),
    '/b': page('Page B', ['/a']),
    '/c': page('Page C', []),
    '/robots.txt': { body: 'User-agent: *\nAllow: /\n', contentType: 'text/plain' },
    '/slow': page('Slow hub', Array.from({ length: 12 }, (_, i) => `/slow/${i}`)),
  });
  for (let i = 0; i < 12; i++) site.route(`/slow/${i}`, { body: page(`Slow ${i}`), delayMs: slowMs });
  return site;
}

export function startClientSystem(env: Record<string, string> = {}): Promise<TrawlSystem> {
  return startSystem({ env: { BOOTSTRAP_API_KEYS: `${TEST_API_KEY}:team,${FREE_API_KEY}:free`, ...env } });
}
