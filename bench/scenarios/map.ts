// 5. Map: a sitemap index at /sitemap.xml naming 10 child sitemaps of 5,000 URLs each (one
// of them gzip-compressed), served by a site of its own. POST /api/v1/map is synchronous:
// wall time of the request, and the peak RSS of the process tree while it runs.
import { startSite } from '../../test/support/site.js';
import { sitemapSite } from '../lib/pages.js';
import { TreeSampler } from '../lib/proc.js';
import { mb, missing, row } from '../lib/table.js';
import type { BenchContext, ScenarioResult } from './context.js';

const B = '5. Map';
/** The most a map answers with (spec: limit 1 to 10000); all 50,000 URLs are still read. */
const MAP_LIMIT = 10_000;

export async function map(ctx: BenchContext): Promise<ScenarioResult> {
  const { sys, rootPid } = ctx.bs;
  const site = await startSite();
  try {
    const sitemaps = sitemapSite(site.origin, ctx.sizes.mapChildren, ctx.sizes.mapUrlsPerChild);
    for (const [path, file] of sitemaps.files) site.route(path, { body: file.body, contentType: file.contentType });
    site.route('/robots.txt', { body: 'User-agent: *\nAllow: /\n', contentType: 'text/plain' });
    site.route('/', { body: '<!doctype html><html><head><title>Docs</title></head><body><a href="/docs/s0/page-0">Docs</a></body></html>' });

    const sampler = new TreeSampler(rootPid, 100).start(); // a map takes seconds: sample often
    const before = sampler.current()!;
    const started = performance.now();
    const res = await sys.api<{ links?: string[]; count?: number }>('POST', '/api/v1/map', { url: site.url('/'), limit: MAP_LIMIT });
    const wallMs = performance.now() - started;
    const usage = sampler.stop();
    if (res.status === 404) return { rows: [missing(B)], details: { status: 404 } };
    if (res.status !== 200) {
      return { rows: [row(B, 'map request', `failed: HTTP ${res.status}`, { note: JSON.stringify(res.body).slice(0, 160) })], details: { status: res.status, body: res.body } };
    }
    const frontier = usage.atPeak.byName['crawler-frontier'];
    const sitemapHits = site.requests.filter((r) => r.path.startsWith('/sitemaps/')).length;
    return {
      rows: [
        row(B, 'wall time', wallMs, { unit: 'ms', note: `${sitemaps.urlCount} URLs in ${ctx.sizes.mapChildren} child sitemaps (1 gzip); ${res.body.count} returned (limit ${MAP_LIMIT}); ${sitemapHits} sitemap fetches` }),
        row(B, 'peak RSS (sum over processes)', mb(usage.peakRssKb), { unit: 'MB', note: `+${Math.round(mb(usage.peakRssKb - before.rssKb))} MB over idle${frontier ? `; crawler-frontier ${Math.round(mb(frontier.rssKb))} MB at peak` : ''}` }),
      ],
      details: { wallMs, count: res.body.count, urlCount: sitemaps.urlCount, usage, idleRssKb: before.rssKb, sitemapHits },
    };
  } finally {
    await site.close();
  }
}
