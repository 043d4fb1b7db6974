// 5. Map: a sitemap index at /sitemap.xml naming 10 child sitemaps of 5,000 URLs each (the
// last one gzip-compressed), served by a site of its own. POST /api/v1/map is synchronous:
// wall time of the request and the peak RSS of the process tree while it runs. Two
// requests: the plain one (discovery may stop once `limit` URLs are kept) and one whose
// search matches only the gzip child's URLs, which makes the map read all 50,000.
import type { TrawlSystem } from '../../test/support/system.js';
import { startSite, type TestSite } from '../../test/support/site.js';
import { sitemapSite } from '../lib/pages.js';
import { TreeSampler, type TreeUsage } from '../lib/proc.js';
import { mb, missing, row, type Row } from '../lib/table.js';
import type { BenchContext, ScenarioResult } from './context.js';

const B = '5. Map';
/** The most a map answers with (spec: limit 1 to 10000). */
const MAP_LIMIT = 10_000;

interface MapRun { status: number; body: { links?: string[]; count?: number }; wallMs: number; usage: TreeUsage; idleRssKb: number; sitemapFetches: number }

async function timedMap(sys: TrawlSystem, rootPid: number, site: TestSite, body: Record<string, unknown>): Promise<MapRun> {
  const fetchesBefore = site.requests.filter((r) => r.path.startsWith('/sitemaps/')).length;
  const sampler = new TreeSampler(rootPid, 100).start(); // a map takes a second or so: sample often
  const idleRssKb = sampler.current()!.rssKb;
  const started = performance.now();
  const res = await sys.api<MapRun['body']>('POST', '/api/v1/map', { url: site.url('/'), limit: MAP_LIMIT, ...body });
  const wallMs = performance.now() - started;
  const usage = sampler.stop();
  const sitemapFetches = site.requests.filter((r) => r.path.startsWith('/sitemaps/')).length - fetchesBefore;
  return { status: res.status, body: res.body, wallMs, usage, idleRssKb, sitemapFetches };
}

function peakNote(run: MapRun): string {
  const frontier = run.usage.atPeak.byName['crawler-frontier'];
  return `+${Math.round(mb(run.usage.peakRssKb - run.idleRssKb))} MB over idle${frontier ? `; crawler-frontier ${Math.round(mb(frontier.rssKb))} MB at peak` : ''}`;
}

export async function map(ctx: BenchContext): Promise<ScenarioResult> {
  const { sys, rootPid } = ctx.bs;
  const { mapChildren: children, mapUrlsPerChild: perChild } = ctx.sizes;
  const site = await startSite();
  try {
    const sitemaps = sitemapSite(site.origin, children, perChild);
    for (const [path, file] of sitemaps.files) site.route(path, { body: file.body, contentType: file.contentType });
    site.route('/robots.txt', { body: 'User-agent: *\nAllow: /\n', contentType: 'text/plain' });
    site.route('/', { body: '<!doctype html><html><head><title>Docs</title></head><body><a href="/docs/s0/page-0">Docs</a></body></html>' });

    const plain = await timedMap(sys, rootPid, site, {});
    if (plain.status === 404) return { rows: [missing(B)], details: { status: 404 } };
    if (plain.status !== 200) {
      return { rows: [row(B, 'map request', `failed: HTTP ${plain.status}`, { note: JSON.stringify(plain.body).slice(0, 160) })], details: { plain } };
    }
    // Only the last (gzip) child's URLs have the path segment s<children-1>.
    const search = `s${children - 1}`;
    const full = await timedMap(sys, rootPid, site, { search });
    const rows: Row[] = [
      row(B, `wall time, limit ${MAP_LIMIT}`, plain.wallMs, { unit: 'ms', note: `${plain.body.count} URLs returned; ${plain.sitemapFetches} of ${children} child sitemaps fetched (discovery stops at the limit)` }),
      row(B, 'peak RSS, limit request', mb(plain.usage.peakRssKb), { unit: 'MB', note: peakNote(plain) }),
    ];
    if (full.status === 200) {
      rows.push(
        row(B, `wall time, all ${sitemaps.urlCount} URLs read`, full.wallMs, { unit: 'ms', note: `search "${search}" matches the gzip child only: ${full.body.count} returned; ${full.sitemapFetches} child sitemaps fetched` }),
        row(B, 'peak RSS, full read', mb(full.usage.peakRssKb), { unit: 'MB', note: peakNote(full) }),
      );
    } else {
      rows.push(row(B, 'full read', `failed: HTTP ${full.status}`, { note: JSON.stringify(full.body).slice(0, 160) }));
    }
    const summary = (r: MapRun) => ({ status: r.status, count: r.body.count, wallMs: r.wallMs, sitemapFetches: r.sitemapFetches, idleRssKb: r.idleRssKb, usage: r.usage });
    return { rows, details: { urlCount: sitemaps.urlCount, plain: summary(plain), full: summary(full) } };
  } finally {
    await site.close();
  }
}
