// A scrape submitted and followed to its end (COMPLETED or FAILED) through the API.
import assert from 'node:assert/strict';
import type { TrawlSystem } from './system.js';

export const scrapeFinished = (b: any): boolean => b.status === 'COMPLETED' || b.status === 'FAILED';

/**
 * POSTs the scrape (a 202 expected: not a cache hit) and long-polls the job until it
 * finishes; `key`, when given, is the API key of both requests instead of the system's.
 */
export async function scrapeToEnd(system: TrawlSystem, body: object, key?: string): Promise<any> {
  const headers = key ? { authorization: `Bearer ${key}` } : undefined;
  const created = await system.api('POST', '/api/v1/scrape', body, headers);
  assert.equal(created.status, 202, JSON.stringify(created.body));
  return system.poll(`/api/v1/scrape/${created.body.id}`, scrapeFinished, 120_000, headers ? { headers } : {});
}

/** Crawls `url` with change tracking to COMPLETED; its pages by path. */
export async function trackedCrawlByPath(system: TrawlSystem, url: string, limit = 10): Promise<Map<string, any>> {
  const created = await system.api('POST', '/api/v1/crawl', { url, limit, scrapeOptions: { formats: ['markdown', 'changeTracking'] } });
  assert.equal(created.status, 202, JSON.stringify(created.body));
  const job = await system.poll(`/api/v1/crawl/${created.body.id}`, (b: any) => ['COMPLETED', 'FAILED', 'CANCELLED'].includes(b.status), 120_000);
  assert.equal(job.status, 'COMPLETED', JSON.stringify(job));
  return new Map(job.data.map((p: any) => [new URL(p.url).pathname, p]));
}
