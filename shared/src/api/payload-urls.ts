// Where the API serves a job's stored payloads (screenshots, document bytes): the gateway
// builds these into responses and serves the same paths, so both read them from here.
const API = '/api/v1';
const seg = (s: string | number): string => encodeURIComponent(String(s));

export const payloadUrls = {
  /** A scrape's screenshot, or with `action` the screenshot of its action at that index. */
  scrapeScreenshot: (base: string, jobId: string, action?: number): string =>
    `${base}${API}/scrape/${seg(jobId)}/${action === undefined ? 'screenshot' : `screenshots/${action}`}`,
  scrapeDocument: (base: string, jobId: string): string => `${base}${API}/scrape/${seg(jobId)}/document`,
  /** A batch page's screenshot (`action`: one of its action screenshots). */
  batchPageScreenshot: (base: string, batchId: string, pageIndex: number, action?: number): string =>
    `${base}${API}/batch/scrape/${seg(batchId)}/pages/${pageIndex}/${action === undefined ? 'screenshot' : `screenshots/${action}`}`,
  batchPageDocument: (base: string, batchId: string, pageIndex: number): string =>
    `${base}${API}/batch/scrape/${seg(batchId)}/pages/${pageIndex}/document`,
  crawlPageDocument: (base: string, crawlId: string, pageKey: string): string =>
    `${base}${API}/crawl/${seg(crawlId)}/pages/${seg(pageKey)}/document`,
} as const;
