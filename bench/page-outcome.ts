// The page outcome over both extraction dev sets: prints every page not classified `ok`
// (each a false positive: the dev sets are real content pages) and the rate.
//
//   npx tsx bench/page-outcome.ts
import { outcomeDevPages, runOutcomeDev } from './lib/page-outcome.js';

const run = runOutcomeDev(outcomeDevPages());
if (run.pages === 0) {
  console.error('the extraction dev sets (../shared/fixtures/extraction-dev) are not beside the repository');
  process.exit(2);
}
for (const f of run.flagged) console.log(`${f.set} ${f.id} ${f.outcome}${f.annotated ? '' : ' (annotated with no main content)'}  ${f.url}\n    ${f.evidence.join(' · ')}`);
for (const [set, s] of Object.entries(run.bySet)) console.log(`${set}: ${s.flagged} of ${s.pages} not ok (${((100 * s.flagged) / s.pages).toFixed(2)}%)`);
console.log(`all: ${run.flagged.length} of ${run.pages} not ok (${(100 * run.rate).toFixed(2)}%)`);
const annotatedFlagged = run.flagged.filter((f) => f.annotated).length;
console.log(`pages annotated with a main content: ${annotatedFlagged} of ${run.annotatedPages} not ok (${(100 * run.annotatedRate).toFixed(2)}%)`);
