// The site zoo (issue 21): small sites built with the real frameworks (test/zoo/build.sh;
// the built output is committed under test/fixtures/zoo/<name>), each with the rule a
// correct `auto` engine must follow for it. Every article carries its token
// ("Zoo article N token.") and links to the other articles.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startSite, type Route, type TestSite } from '../support/site.js';

/**
 * What auto must do with a site's pages:
 * - `http`: server-rendered; once the host (and any marker kind) has verified K pages, the
 *   rest are served from the GET, with markdown identical to the browser's;
 * - `browser`: client-rendered; every page is rendered (the content exists only then);
 * - `either`: both are right as long as the content is there and matches the browser.
 */
export type ZooRule = 'http' | 'browser' | 'either';

export interface ZooPage {
  path: string;
  /** Text the page's markdown must have (under auto and browser alike). */
  token: string;
  rule: ZooRule;
  /** The article it shows (test/zoo/src/articles.json), if any. */
  article?: number;
}

export interface ZooSite {
  name: string;
  /** What it is built with, and what it shows. */
  what: string;
  pages: ZooPage[];
  /** Client-routed: these paths are answered with index.html (as a SPA host does). */
  spaPaths?: string[];
}

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../test/fixtures/zoo');
/**
 * The framework sites' articles (test/zoo/src/articles.json): 19 and an index, so that the
 * renders a new host's first pages need to verify a kind of page are at most a tenth of a
 * site (a host learns from its first pages; real sites have many more).
 */
const IDS = Array.from({ length: 19 }, (_, i) => i + 1);
/** The hand-written site shows tells, not shares: its pages are built from the first six articles. */
export const HAND_IDS = IDS.slice(0, 6);
/** The pages a test walks: the first six articles of each site (the bench crawls them all). */
export const firstArticles = (site: ZooSite): ZooPage[] => site.pages.filter((p) => (p.article ?? 0) <= HAND_IDS.length);
const articles = (prefix: (n: number) => string, rule: ZooRule, ids = IDS): ZooPage[] => ids.map((n) => ({ path: prefix(n), token: `Zoo article ${n} token.`, rule, article: n }));

export const ZOO: ZooSite[] = [
  { name: 'next-export', what: 'Next.js pages router, static export: SSR HTML, props in a __NEXT_DATA__ island, hydrated', pages: articles((n) => `/article/${n}/`, 'http') },
  { name: 'next-app', what: 'Next.js app router, static export: server components as HTML, the RSC payload in inline __next_f scripts, a client component', pages: articles((n) => `/article/${n}/`, 'http') },
  { name: 'nuxt', what: 'Nuxt, prerendered (nuxt generate): SSR HTML, the payload in a __NUXT_DATA__ island, hydrated', pages: articles((n) => `/article/${n}`, 'http') },
  { name: 'sveltekit', what: 'SvelteKit, prerendered (adapter-static): SSR HTML, data inlined in a module script, hydrated', pages: articles((n) => `/article/${n}/`, 'http') },
  { name: 'astro', what: 'Astro, static, with a Preact island (client:load) that hydrates to the same text', pages: articles((n) => `/article/${n}/`, 'http') },
  { name: 'vitepress', what: 'VitePress docs (Vue SSG): SSR HTML, hydrated', pages: articles((n) => `/article/${n}.html`, 'http') },
  { name: 'react-spa', what: 'Vite + React SPA: an empty #root and a <noscript>, the article built by the bundle', pages: articles((n) => `/article/${n}`, 'browser'), spaPaths: IDS.map((n) => `/article/${n}`) },
  { name: 'vue-spa', what: 'Vite + Vue SPA: an empty #app, the article fetched at load (/data/N.json)', pages: articles((n) => `/article/${n}`, 'browser'), spaPaths: IDS.map((n) => `/article/${n}`) },
  {
    name: 'hand',
    what: 'hand-written: jQuery-enhanced server pages, letters from readers loaded late (timer + fetch), a page that hydrates to identical content, an infinite-scroll list',
    pages: [
      ...articles((n) => `/jquery/${n}.html`, 'http', HAND_IDS),
      ...articles((n) => `/hydrate/${n}.html`, 'http', HAND_IDS),
      ...HAND_IDS.map((n): ZooPage => ({ path: `/letters/${n}.html`, token: `A reader of note ${n} remembers the old ferry well.`, rule: 'browser', article: n })),
      { path: '/infinite.html', token: 'Harbour log entry 20:', rule: 'either' },
    ],
  },
];

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript', '.css': 'text/css',
  '.json': 'application/json', '.svg': 'image/svg+xml', '.png': 'image/png', '.woff2': 'font/woff2', '.txt': 'text/plain',
};

/** Whether a site's fixture has been built (test/zoo/build.sh). */
export function zooBuilt(site: ZooSite): boolean {
  return fs.existsSync(path.join(ROOT, site.name, 'index.html'));
}

/** Serves a site's built output as a static host would: files, dir/ and dir -> dir/index.html, SPA paths -> index.html. */
export async function serveZooSite(site: ZooSite): Promise<TestSite> {
  const dir = path.join(ROOT, site.name);
  const routes: Record<string, Route> = {};
  const walk = (d: string): void => {
    for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, entry.name);
      if (entry.isDirectory()) {
        walk(full);
        continue;
      }
      const rel = `/${path.relative(dir, full).split(path.sep).join('/')}`;
      const route: Route = { body: fs.readFileSync(full), contentType: TYPES[path.extname(entry.name)] ?? 'application/octet-stream' };
      routes[rel] = route;
      if (entry.name === 'index.html') {
        // dir/ and dir (as static hosts with clean URLs answer both).
        routes[rel.slice(0, -'index.html'.length)] = route;
        if (rel !== '/index.html') routes[rel.slice(0, -'/index.html'.length)] = route;
      }
    }
  };
  walk(dir);
  for (const p of site.spaPaths ?? []) routes[p] = routes['/index.html']!;
  return startSite(routes);
}

/**
 * Requests for a page as a page: the engine's GET (no Sec-Fetch-Dest) and browser
 * navigations (`document`). A page's scripts may fetch other pages too (Next's app router
 * prefetches every linked page with fetch()): those are the page's subresources, which a
 * browser render loads whatever the engine does.
 */
export function pageRequests(site: TestSite, path: string): number {
  return site.requests.filter((r) => r.path === path && (r.headers['sec-fetch-dest'] === undefined || r.headers['sec-fetch-dest'] === 'document')).length;
}
