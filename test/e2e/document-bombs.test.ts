// Bounded document parsing through the whole system (issue 20, item 4, and the slow body of
// item 6): compression bombs of every class served by the test, small on disk and 1.1 GiB
// inflated, fail as DOCUMENT_TOO_COMPLEX at the first attempt; three at once leave the
// transformer's memory within its budget while an ordinary scrape beside them completes;
// a PDF dripped at 1 KB/s fails as PAGE_TIMEOUT instead of completing as an empty page.
//
// Memory budget: the transformer's peak RSS (VmHWM, reset after warm-up through
// /proc/<pid>/clear_refs, else sampled) stays within TRANSFORMER_PEAK_BUDGET_BYTES above
// its warm idle RSS (what they cost before the budgets: docs/benchmarks.md "Documents (scenario 13)").
import assert from 'node:assert/strict';
import fs from 'node:fs';
import type http from 'node:http';
import { after, before, describe, test } from 'node:test';
import { contentBombPdf, entityBombDocx, manyElementsDocx, mediaBombDocx, metadataBombPdf, nestedXmlDocx, objectStreamBombPdf, zipEntryBombDocx } from '../support/document-bombs.js';
import { longReportPdf, memoDocx, reportPdf } from '../support/documents.js';
import { descendants } from '../support/processes.js';
import { startSite, type TestSite } from '../support/site.js';
import { startSystem, type TrawlSystem } from '../support/system.js';

const FINAL = new Set(['COMPLETED', 'FAILED', 'CANCELLED']);
const DOCX_TYPE = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
/** What three bombs at once may add to the transformer's warm idle RSS (docs/api.md "Documents"). */
const TRANSFORMER_PEAK_BUDGET_BYTES = 512 * 1024 * 1024;
/** What it may still hold above idle once the bombs have failed (docs/api.md "Documents"). */
// 41-137 MiB in eight runs (2026-11-27, before and after that day's changes alike; 137 failed
// a 128 MiB budget in CI): 160 still fails the 180-260 MiB held before (docs/api.md).
const TRANSFORMER_AFTER_BUDGET_BYTES = 160 * 1024 * 1024;

/** Status fields of /proc/<pid>/status in bytes (VmRSS, VmHWM). */
function memory(pid: number): { rss: number; peak: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}

describe('document bombs end to end', () => {
  let site: TestSite;
  let system: TrawlSystem;
  let transformerPid: number;
  const drips = new Set<NodeJS.Timeout>();

  before(async () => {
    const slowPdf = await longReportPdf(40);
    // 1 KB a second of a PDF far longer than the page's timeout allows.
    const drip = (_req: http.IncomingMessage, res: http.ServerResponse): void => {
      res.writeHead(200, { 'content-type': 'application/pdf', 'content-length': String(slowPdf.length) });
      let sent = 0;
      const timer = setInterval(() => {
        res.write(slowPdf.subarray(sent, sent + 1024));
        sent += 1024;
        if (sent >= slowPdf.length) {
          clearInterval(timer);
          res.end();
        }
      }, 1000);
      drips.add(timer);
      res.on('close', () => clearInterval(timer));
    };
    site = await startSite({
      '/bombs/content.pdf': { body: await contentBombPdf(), contentType: 'application/pdf' },
      '/bombs/metadata.pdf': { body: await metadataBombPdf(), contentType: 'application/pdf' },
      '/bombs/objects.pdf': { body: await objectStreamBombPdf(), contentType: 'application/pdf' },
      '/bombs/entry.docx': { body: await zipEntryBombDocx(), contentType: DOCX_TYPE },
      '/bombs/nested.docx': { body: await nestedXmlDocx(), contentType: DOCX_TYPE },
      '/bombs/elements.docx': { body: await manyElementsDocx(), contentType: DOCX_TYPE },
      '/bombs/entities.docx': { body: await entityBombDocx(), contentType: DOCX_TYPE },
      '/bombs/media.docx': { body: await mediaBombDocx(), contentType: DOCX_TYPE },
      '/report.pdf': { body: await reportPdf(), contentType: 'application/pdf' },
      '/memo.docx': { body: await memoDocx(), contentType: DOCX_TYPE },
      '/slow.pdf': drip,
      '/page': '<!doctype html><html><head><title>Canary</title></head><body><main><h1>Canary</h1><p>An ordinary page scraped beside the bombs.</p></main></body></html>',
    });
    system = await startSystem();
    const transformer = descendants(system.pid).find((p) => p.cmdline.includes('services/transformer/src/main.js'));
    assert.ok(transformer, 'the transformer runs as its own process');
    transformerPid = transformer.pid;
  });
  after(async () => {
    for (const timer of drips) clearInterval(timer);
    await system?.stop();
    await site?.close();
  });

  async function start(body: Record<string, unknown>): Promise<string> {
    const created = await system.api('POST', '/api/v1/scrape', body);
    assert.equal(created.status, 202, JSON.stringify(created.body));
    return created.body.id;
  }
  async function finished(id: string): Promise<any> {
    return { ...(await system.poll(`/api/v1/scrape/${id}`, (b: any) => FINAL.has(b.status), 180_000)), id };
  }
  async function attempts(id: string): Promise<number[]> {
    const res = await system.api('GET', `/api/v1/scrape/${id}/events?limit=1000`);
    return res.body.events.filter((e: any) => e.event === 'page_failed').map((e: any) => e.data.attempt);
  }

  test('three bombs at once fail as DOCUMENT_TOO_COMPLEX, once; a scrape beside them completes; the transformer stays within its memory budget', async (t) => {
    // Warm: every transformer thread has loaded pdf.js and mammoth, as in a running service.
    for (const id of await Promise.all(['/report.pdf', '/memo.docx', '/report.pdf', '/memo.docx'].map((p) => start({ url: site.url(p) })))) {
      assert.equal((await finished(id)).status, 'COMPLETED');
    }
    const idle = memory(transformerPid).rss;
    let peakBytes = idle;
    let resetPeak = true;
    try {
      fs.writeFileSync(`/proc/${transformerPid}/clear_refs`, '5'); // VmHWM := VmRSS
    } catch {
      resetPeak = false;
    }
    const sampler = setInterval(() => { peakBytes = Math.max(peakBytes, memory(transformerPid).rss); }, 20);
    try {
      const bombs = await Promise.all(['/bombs/content.pdf', '/bombs/metadata.pdf', '/bombs/entry.docx'].map((p) => start({ url: site.url(p) })));
      const canaryStarted = performance.now();
      const canary = await finished(await start({ url: site.url('/page') }));
      const canaryMs = Math.round(performance.now() - canaryStarted);
      assert.equal(canary.status, 'COMPLETED', JSON.stringify(canary.error));
      assert.match(canary.markdown, /# Canary/);
      for (const id of bombs) {
        const job = await finished(id);
        assert.equal(job.status, 'FAILED', `${id}: ${JSON.stringify(job)}`);
        assert.equal(job.error.code, 'DOCUMENT_TOO_COMPLEX', JSON.stringify(job.error));
        assert.deepEqual(await attempts(id), [1], 'a bomb is not delivered again');
      }
      if (resetPeak) peakBytes = Math.max(peakBytes, memory(transformerPid).peak);
      t.diagnostic(`transformer idle ${Math.round(idle / 2 ** 20)} MiB, peak ${Math.round(peakBytes / 2 ** 20)} MiB (${resetPeak ? 'VmHWM' : 'sampled'}), after ${Math.round(memory(transformerPid).rss / 2 ** 20)} MiB; canary ${canaryMs} ms`);
      assert.ok(peakBytes - idle <= TRANSFORMER_PEAK_BUDGET_BYTES, `the transformer peaked ${Math.round((peakBytes - idle) / 2 ** 20)} MiB above idle (budget ${TRANSFORMER_PEAK_BUDGET_BYTES / 2 ** 20} MiB)`);
      // The threads that held the bombs' memory are recycled (docs/architecture.md "The
      // transform pool") and the transformer's big buffers are unmapped when freed
      // (scripts/services.ts SERVICE_ENV), so the process gives the memory back, to within
      // TRANSFORMER_AFTER_BUDGET_BYTES of idle (it held 180-260 MiB more before).
      let after = memory(transformerPid).rss;
      for (let i = 0; i < 150 && after - idle > TRANSFORMER_AFTER_BUDGET_BYTES; i++) {
        await new Promise((r) => setTimeout(r, 200));
        after = memory(transformerPid).rss;
      }
      t.diagnostic(`transformer back to ${Math.round(after / 2 ** 20)} MiB (idle ${Math.round(idle / 2 ** 20)} MiB)`);
      assert.ok(after - idle <= TRANSFORMER_AFTER_BUDGET_BYTES, `the transformer holds ${Math.round(after / 2 ** 20)} MiB after the bombs, idle was ${Math.round(idle / 2 ** 20)} MiB`);
    } finally {
      clearInterval(sampler);
    }
  });

  test('every other bomb class fails as DOCUMENT_TOO_COMPLEX with its reason', async () => {
    const cases = [
      ['/bombs/objects.pdf', /decompresses to more than/],
      ['/bombs/nested.docx', /nests XML elements deeper/],
      ['/bombs/elements.docx', /XML elements/],
      ['/bombs/entities.docx', /declares a DTD/],
      ['/bombs/media.docx', /decompresses to more than/],
    ] as const;
    const ids = await Promise.all(cases.map(([p]) => start({ url: site.url(p) })));
    for (const [i, [p, reason]] of cases.entries()) {
      const job = await finished(ids[i]!);
      assert.equal(job.status, 'FAILED', p);
      assert.equal(job.error.code, 'DOCUMENT_TOO_COMPLEX', `${p}: ${JSON.stringify(job.error)}`);
      assert.match(job.error.message, reason);
    }
  });

  test('a PDF dripped at 1 KB/s fails as PAGE_TIMEOUT within the page timeout, not as an empty page', async () => {
    // Waited out on purpose: 3 s of the drip is as far from the whole PDF as 8 s were.
    const job = await finished(await start({ url: site.url('/slow.pdf'), timeout: 3000 }));
    assert.equal(job.status, 'FAILED', JSON.stringify({ markdown: job.markdown, metadata: job.metadata }));
    assert.equal(job.error.code, 'PAGE_TIMEOUT', JSON.stringify(job.error));
  });
});
