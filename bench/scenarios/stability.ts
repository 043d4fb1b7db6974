// 7. Stability: many scrapes in a row with bounded concurrency, each a distinct URL. RSS
// of the whole process tree after the first quarter and at the end (growth beyond noise
// would be a leak), and the number of Chromium processes before and after (a leaked
// context or page keeps its renderer alive).
import { snapshotTree, type TreeSnapshot } from '../lib/proc.js';
import { JobWatcher, mapConcurrent, sleep, submitScrape } from '../lib/system.js';
import { mb, row } from '../lib/table.js';
import { SCRAPE_BODY, type BenchContext, type ScenarioResult } from './context.js';

const B = '7. Stability';
export const STABILITY_PATH = '/stable';

function memory(s: TreeSnapshot): { rssMb: number; pssMb: number; byName: Record<string, number> } {
  const byName = Object.fromEntries(Object.entries(s.byName).map(([k, v]) => [k, Math.round(mb(v.rssKb))]));
  return { rssMb: Math.round(mb(s.rssKb)), pssMb: Math.round(mb(s.pssKb)), byName };
}

export async function stability(ctx: BenchContext): Promise<ScenarioResult> {
  const { sys, rootPid } = ctx.bs;
  const { stabilityScrapes: n, stabilityConcurrency: concurrency } = ctx.sizes;
  const checkpoint = Math.min(500, Math.floor(n / 4));
  const watcher = new JobWatcher(sys, 150);
  // One scrape first, so Chromium is up (it may be launched lazily) before counting its processes.
  await watcher.wait((await submitScrape(sys, { url: ctx.site.url(`${STABILITY_PATH}?warm`), ...SCRAPE_BODY })).id);
  await sleep(2_000);
  const before = snapshotTree(rootPid);
  let done = 0;
  let failed = 0;
  let atCheckpoint: TreeSnapshot | undefined;
  const started = performance.now();
  const failures: string[] = [];
  await mapConcurrent(Array.from({ length: n }, (_, i) => i), concurrency, async (i) => {
    const created = await submitScrape(sys, { url: ctx.site.url(`${STABILITY_PATH}?i=${i}`), ...SCRAPE_BODY });
    const item = await watcher.wait(created.id);
    if (item.status !== 'COMPLETED') {
      failed++;
      if (failures.length < 5) failures.push(created.id);
    }
    done++;
    if (done === checkpoint) atCheckpoint = snapshotTree(rootPid);
    if (done % 250 === 0) ctx.log(`  ${done}/${n}`);
  });
  const wallMs = performance.now() - started;
  watcher.stop();
  const atEnd = snapshotTree(rootPid);
  // Let closed contexts' renderers exit before counting Chromium processes.
  await sleep(3_000);
  const after = snapshotTree(rootPid);
  const mid = atCheckpoint ?? atEnd;
  const growth = mb(atEnd.rssKb - mid.rssKb);
  return {
    rows: [
      row(B, `RSS after ${checkpoint} / after ${n}`, `${Math.round(mb(mid.rssKb))} / ${Math.round(mb(atEnd.rssKb))} MB`, {
        note: `${growth >= 0 ? '+' : ''}${Math.round(growth)} MB; PSS ${Math.round(mb(mid.pssKb))} / ${Math.round(mb(atEnd.pssKb))} MB; ${concurrency} at once, ${(n / (wallMs / 1000)).toFixed(1)} pages/s`,
      }),
      row(B, 'Chromium processes before / after', `${before.chromiumProcesses} / ${after.chromiumProcesses}`, {
        note: after.chromiumProcesses > before.chromiumProcesses ? 'more after: leaked renderers?' : 'no leak',
      }),
      row(B, 'failed scrapes', failed, { note: failures.length ? `e.g. ${failures.join(', ')}` : `of ${n}` }),
    ],
    details: { scrapes: n, concurrency, wallMs, failed, before: memory(before), checkpoint: { at: checkpoint, ...memory(mid) }, end: memory(atEnd), after: memory(after), chromiumBefore: before.chromiumProcesses, chromiumAfter: after.chromiumProcesses },
  };
}
