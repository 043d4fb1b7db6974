// Documents through the whole system (docs/api.md "Documents"): PDFs and a DOCX made at
// test time and served by the test, detected from the response (not the URL), fetched
// without the browser, parsed in the transformer's threads; a scan is flagged, encrypted
// and corrupt files fail with their code without hurting the next job; crawl and batch
// take documents like pages; parsers and maxPages; the stored bytes behind `document.url`.
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import { corruptPdf, longReportPdf, MEMO, memoDocx, mixedPdf, REPORT, reportPdf, scannedPdf } from '../support/documents.js';
import { startSite, type TestSite } from '../support/site.js';
import { startSystem, type TrawlSystem } from '../support/system.js';

const FINAL = new Set(['COMPLETED', 'FAILED', 'CANCELLED']);
const DOCX_TYPE = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

describe('documents end to end', () => {
  let site: TestSite;
  let system: TrawlSystem;
  let report: Buffer;

  before(async () => {
    report = await reportPdf();
    const untyped = (body: Buffer) => (_req: http.IncomingMessage, res: http.ServerResponse) => {
      res.writeHead(200, { 'content-length': String(body.length) }).end(body); // no Content-Type at all
    };
    site = await startSite({
      '/files/report.pdf': { body: report, contentType: 'application/pdf' },
      '/download': { body: report, contentType: 'application/octet-stream', headers: { 'content-disposition': 'attachment' } },
      '/blob': untyped(report),
      '/mislabelled': { body: report, contentType: 'text/plain' },
      '/as-html': { body: report, contentType: 'text/html' },
      '/scan.pdf': { body: await scannedPdf(), contentType: 'application/pdf' },
      '/mixed.pdf': { body: await mixedPdf(), contentType: 'application/pdf' },
      '/secret.pdf': { body: await reportPdf({ userPassword: 'hunter2' }), contentType: 'application/pdf' },
      '/broken.pdf': { body: corruptPdf(), contentType: 'application/pdf' },
      '/long.pdf': { body: await longReportPdf(5), contentType: 'application/pdf' },
      '/memo.docx': { body: await memoDocx(), contentType: DOCX_TYPE },
      '/data.json': { body: '{"fish":["cod","hake"]}', contentType: 'application/json' },
      '/notes.md': { body: '# Notes\n\n- one\n- two\n', contentType: 'text/markdown; charset=utf-8' },
      '/huge.txt': { body: 'x'.repeat(70_000), contentType: 'text/plain' },
      '/page': '<!doctype html><html><head><title>Fine page</title></head><body><main><h1>Still fine</h1><p>The transformer still serves pages after a bad document.</p></main></body></html>',
      '/hub': `<!doctype html><html><head><title>Library</title></head><body><main><h1>Library</h1>
<p>Reports: <a href="/files/report.pdf">annual</a>, <a href="/download?id=7">download</a>, <a href="/memo.docx">memo</a>, <a href="/page">a page</a>.</p></main></body></html>`,
    });
    system = await startSystem({ env: { DOCUMENT_MAX_BYTES: String(64 * 1024) } });
  });
  after(async () => {
    await system?.stop();
    await site?.close();
  });

  async function scrape(body: Record<string, unknown>): Promise<any> {
    const created = await system.api('POST', '/api/v1/scrape', body);
    if (created.status === 200 && created.body.fromCache) return { ...created.body, status: 'COMPLETED' }; // parsers false and [] are one request
    assert.equal(created.status, 202, JSON.stringify(created.body));
    const job = await system.poll(`/api/v1/scrape/${created.body.id}`, (b: any) => FINAL.has(b.status), 120_000);
    return { ...job, id: created.body.id };
  }

  async function events(kind: string, id: string): Promise<any[]> {
    const res = await system.api('GET', `/api/v1/${kind}/${id}/events?limit=1000`);
    assert.equal(res.status, 200);
    return res.body.events;
  }

  function assertReport(markdown: string): void {
    assert.match(markdown, new RegExp(`^# ${REPORT.heading}$`, 'm'));
    assert.match(markdown, new RegExp(`^## ${REPORT.section}$`, 'm'));
    assert.ok(markdown.includes(REPORT.paragraph), markdown);
    for (const bullet of REPORT.bullets) assert.match(markdown, new RegExp(`^- ${bullet}$`, 'm'));
    assert.match(markdown, /^\| Region \| Revenue \| Growth \|\n\| --- \| --- \| --- \|\n\| North \| 1200 \| 5% \|\n\| South \| 900 \| 3% \|$/m);
  }

  test('a PDF becomes markdown with headings, paragraph, list and table; metadata; fetched over HTTP; its bytes behind document.url', async () => {
    const job = await scrape({ url: site.url('/files/report.pdf'), formats: ['markdown', 'html', 'rawHtml', 'links'] });
    assert.equal(job.status, 'COMPLETED', JSON.stringify(job.error));
    assertReport(job.markdown);
    assert.match(job.html, /<h1>Annual Results<\/h1>/);
    assert.match(job.html, /<table>/);
    assert.equal(job.rawHtml, undefined, 'a document has no raw HTML');
    assert.deepEqual(job.links, []);
    assert.equal(job.metadata.title, REPORT.title);
    assert.equal(job.metadata.author, REPORT.author);
    assert.equal(job.metadata.contentType, 'application/pdf');
    assert.equal(job.metadata.pageCount, 1);
    assert.equal(job.metadata.needsOcr, false);
    assert.equal(job.metadata.engine, 'http');
    const fetched = (await events('scrape', job.id)).find((e) => e.event === 'page_fetched');
    assert.deepEqual([fetched.data.engine.used, fetched.data.engine.requested, fetched.data.engine.reason], ['http', 'browser', 'document']);
    assert.equal(fetched.data.document.type, 'pdf');
    assert.equal(fetched.data.rawHtml, undefined);

    assert.equal(job.document.contentType, 'application/pdf');
    assert.equal(job.document.fileSize, report.length);
    const res = await fetch(job.document.url, { headers: { authorization: `Bearer ${system.apiKey}` } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/pdf');
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    assert.ok(Buffer.from(await res.arrayBuffer()).equals(report));
    assert.equal((await fetch(job.document.url)).status, 401, 'the link needs the API key');
  });

  test('the type comes from the response: a PDF without .pdf, labelled octet-stream, unlabelled or mislabelled (text, HTML)', async () => {
    for (const [path, engine] of [['/download?id=7', undefined], ['/blob', undefined], ['/mislabelled', undefined], ['/as-html', undefined], ['/download?id=8', 'http'], ['/blob?x=1', 'auto'], ['/as-html?x=1', 'auto']] as const) {
      const job = await scrape({ url: site.url(path), ...(engine ? { engine } : {}) });
      assert.equal(job.status, 'COMPLETED', `${path}: ${JSON.stringify(job.error)}`);
      assert.equal(job.metadata.engine, 'http', `${path}: ${JSON.stringify(job.metadata)} ${JSON.stringify((await events('scrape', job.id)).find((e) => e.event === 'page_fetched')?.data)}`);
      assertReport(job.markdown);
      assert.equal(job.metadata.title, REPORT.title, path);
      assert.equal(job.metadata.engine, 'http', path);
    }
  });

  test('a scanned PDF is flagged needsOcr with no markdown; a scanned page in a typed PDF is named', async () => {
    const job = await scrape({ url: site.url('/scan.pdf') });
    assert.equal(job.status, 'COMPLETED', JSON.stringify(job.error));
    assert.equal(job.metadata.needsOcr, true);
    assert.equal(job.metadata.pageCount, 1);
    assert.equal(job.markdown, '');

    const mixed = await scrape({ url: site.url('/mixed.pdf') });
    assert.equal(mixed.metadata.needsOcr, false);
    assert.deepEqual(mixed.metadata.pagesWithoutText, [2], 'the scanned page of a typed document is named');
    assertReport(mixed.markdown);
  });

  test('encrypted, corrupt and too large documents fail with their code, once, and the next job is served', async () => {
    const cases = [['/secret.pdf', 'DOCUMENT_ENCRYPTED', /password/], ['/broken.pdf', 'DOCUMENT_UNREADABLE', /could not be read/], ['/huge.txt', 'DOCUMENT_TOO_LARGE', /DOCUMENT_MAX_BYTES/]] as const;
    for (const [path, code, message] of cases) {
      const job = await scrape({ url: site.url(path) });
      assert.equal(job.status, 'FAILED', path);
      assert.equal(job.error.code, code, path);
      assert.match(job.error.message, message);
      const log = await events('scrape', job.id);
      assert.equal(log.filter((e) => e.event === 'page_failed').length, 1);
      assert.equal(log.find((e) => e.event === 'page_failed').data.attempt, 1, `${path}: a file that cannot be read is not tried again`);
    }
    const next = await scrape({ url: site.url('/page') });
    assert.equal(next.status, 'COMPLETED');
    assert.match(next.markdown, /# Still fine/);
  });

  test('a DOCX becomes markdown with heading, list and table, with its title and author', async () => {
    const job = await scrape({ url: site.url('/memo.docx'), formats: ['markdown', 'html'] });
    assert.equal(job.status, 'COMPLETED', JSON.stringify(job.error));
    assert.match(job.markdown, new RegExp(`^# ${MEMO.heading}$`, 'm'));
    for (const item of MEMO.items) assert.match(job.markdown, new RegExp(`^- ${item}$`, 'm'));
    assert.match(job.markdown, /^\| Task \| Owner \|\n\| --- \| --- \|\n\| Docs \| Ada \|\n\| Tests \| Alan \|$/m);
    assert.match(job.markdown, /\*\*Everyone\*\*/);
    assert.match(job.markdown, new RegExp(`^${MEMO.imageAlt}$`, 'm'), 'an embedded image is its alt text');
    assert.doesNotMatch(job.markdown + job.html, /data:image/);
    assert.match(job.html, /<h1>Launch Plan<\/h1>/);
    assert.deepEqual([job.metadata.title, job.metadata.author, job.metadata.contentType], [MEMO.title, MEMO.author, DOCX_TYPE]);
  });

  test('JSON is fenced, markdown and text pass through', async () => {
    const json = await scrape({ url: site.url('/data.json') });
    assert.equal(json.markdown, '```json\n{"fish":["cod","hake"]}\n```');
    const md = await scrape({ url: site.url('/notes.md') });
    assert.equal(md.markdown, '# Notes\n\n- one\n- two\n');
    assert.equal(md.metadata.contentType, 'text/markdown; charset=utf-8');
  });

  test('parsers false (or a list without the type) gives metadata and the link only; maxPages caps the parse', async () => {
    for (const parsers of [false, [], ['docx']]) {
      const job = await scrape({ url: site.url('/files/report.pdf'), parsers });
      assert.equal(job.status, 'COMPLETED', JSON.stringify(job.error));
      assert.equal(job.markdown, undefined, JSON.stringify(parsers));
      assert.equal(job.metadata.parsed, false);
      assert.equal(job.metadata.pageCount, 1);
      assert.equal(job.metadata.title, REPORT.title);
      const res = await fetch(job.document.url, { headers: { authorization: `Bearer ${system.apiKey}` } });
      assert.ok(Buffer.from(await res.arrayBuffer()).equals(report));
    }
    const capped = await scrape({ url: site.url('/long.pdf'), maxPages: 2 });
    assert.equal(capped.status, 'COMPLETED', JSON.stringify(capped.error));
    assert.deepEqual([capped.metadata.pageCount, capped.metadata.pagesParsed], [5, 2]);
    assert.match(capped.markdown, /^# Annual Results 2$/m);
    assert.doesNotMatch(capped.markdown, /Annual Results 3/);
    assert.doesNotMatch(capped.markdown, /^\d+$/m, 'page numbers are dropped');
  });

  test('a crawl follows links to documents and gives each a page; documents link nowhere', async () => {
    const created = await system.api('POST', '/api/v1/crawl', { url: site.url('/hub'), limit: 10, maxDepth: 2 });
    assert.equal(created.status, 202, JSON.stringify(created.body));
    const job = await system.poll(`/api/v1/crawl/${created.body.id}`, (b: any) => FINAL.has(b.status), 180_000);
    assert.equal(job.status, 'COMPLETED');
    const byPath = new Map<string, any>(job.data.map((p: any) => [new URL(p.url).pathname + new URL(p.url).search, p]));
    assert.deepEqual([...byPath.keys()].sort(), ['/download?id=7', '/files/report.pdf', '/hub', '/memo.docx', '/page']);
    assertReport(byPath.get('/files/report.pdf').markdown);
    assertReport(byPath.get('/download?id=7').markdown);
    assert.match(byPath.get('/memo.docx').markdown, /# Launch Plan/);
    assert.equal(byPath.get('/files/report.pdf').metadata.pageCount, 1);
    assert.equal(byPath.get('/page').document, undefined);
    const res = await fetch(byPath.get('/files/report.pdf').document.url, { headers: { authorization: `Bearer ${system.apiKey}` } });
    assert.equal(res.status, 200);
    assert.ok(Buffer.from(await res.arrayBuffer()).equals(report));
    const missing = await system.api('GET', `/api/v1/crawl/${created.body.id}/pages/nope/document`);
    assert.equal(missing.status, 404);
  });

  test('a batch takes documents beside pages, each with its document link', async () => {
    const created = await system.api('POST', '/api/v1/batch/scrape', { urls: [site.url('/files/report.pdf'), site.url('/memo.docx'), site.url('/page')] });
    assert.equal(created.status, 202, JSON.stringify(created.body));
    const job = await system.poll(`/api/v1/batch/scrape/${created.body.id}`, (b: any) => FINAL.has(b.status), 180_000);
    assert.equal(job.status, 'COMPLETED');
    const [pdf, docx, page] = job.data;
    assertReport(pdf.markdown);
    assert.match(docx.markdown, /# Launch Plan/);
    assert.equal(page.document, undefined);
    const res = await fetch(pdf.document.url, { headers: { authorization: `Bearer ${system.apiKey}` } });
    assert.equal(res.status, 200);
    assert.ok(Buffer.from(await res.arrayBuffer()).equals(report));
    assert.equal(docx.document.contentType, DOCX_TYPE);
  });

  test('document options are validated in crawl scrapeOptions and batch too (RFC 7807, field named)', async () => {
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ['/api/v1/crawl', { url: site.url('/hub'), scrapeOptions: { maxPages: 0 } }, /scrapeOptions\.maxPages must be >= 1/],
      ['/api/v1/batch/scrape', { urls: [site.url('/page')], maxPages: 20_000 }, /maxPages must be <= 10000/],
      ['/api/v1/batch/scrape', { urls: [site.url('/page')], parsers: ['xls'] }, /parsers/],
    ];
    for (const [path, body, detail] of cases) {
      const res = await system.api('POST', path, body);
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.equal(res.body.code, 'VALIDATION_ERROR');
      assert.match(res.body.detail, detail);
    }
  });
});
