// The crawl tests' site: a known link graph (paths to the links each page carries) and the
// page sets each depth limit must yield. `ext` is the external site's origin; `extra` adds
// links to the start page (spelling variants a test wants to see deduplicated).
export function linkGraph(ext: string, extra: string[] = []): Record<string, string[]> {
  return {
    '/': ['/a', '/docs', '/blog', '/files/report.pdf', `${ext}/x`, '/a#frag', '/a/', '/#top', '/index.html', ...extra, 'mailto:me@example.com'],
    '/a': ['/a/b'],
    '/a/b': ['/a/b/c'],
    '/a/b/c': ['/a/b/c/d'],
    '/a/b/c/d': [],
    '/docs': ['/docs/intro', '/docs/guide', '/docs/guide/install', '/docs/guide/install/linux'],
    '/docs/intro': ['/docs/intro.pdf', '/docs'],
    '/docs/guide': ['/docs/guide/install'],
    '/docs/guide/install': ['/docs/guide/install/linux'],
    '/docs/guide/install/linux': [],
    '/docs/intro.pdf': [],
    '/blog': ['/blog/2023-review', '/blog/2024-launch', '/blog/2024-roadmap'],
    '/blog/2023-review': [],
    '/blog/2024-launch': ['/files/launch.pdf'],
    '/blog/2024-roadmap': [],
    '/files/report.pdf': [],
    '/files/launch.pdf': [],
  };
}

export const DEPTH1 = ['/', '/a', '/docs', '/blog', '/files/report.pdf'];
export const DEPTH2 = [...DEPTH1, '/a/b', '/docs/intro', '/docs/guide', '/docs/guide/install', '/docs/guide/install/linux', '/blog/2023-review', '/blog/2024-launch', '/blog/2024-roadmap'];
export const DEPTH3 = [...DEPTH2, '/a/b/c', '/docs/intro.pdf', '/files/launch.pdf'];
export const ALL_PAGES = [...DEPTH3, '/a/b/c/d'];
