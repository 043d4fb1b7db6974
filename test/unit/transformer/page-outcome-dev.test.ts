// The page outcome on both extraction dev sets (trafilatura-eval and WCXB dev, 1,758 real
// content pages, bench/lib/page-outcome.ts), issue 23's second gate: under 0.5% of the pages
// whose annotation has a main content are classified other than `ok`, and every page that
// is flagged at all is one docs/benchmarks.md lists and justifies ("Page outcome on the
// extraction dev sets"): a page newly flagged fails here until it is looked at. All pages,
// not a sample: the events counted are a handful in a thousand (about 2 CPU minutes, on
// two threads).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { runOutcomeDevInThreads } from '../../../bench/lib/page-outcome.js';
import { devSetDir, sharedDir } from '../../../bench/lib/extraction-dev.js';

const MAX_ANNOTATED_RATE = 0.005;

/**
 * The pages flagged on the dev sets, each `empty`: their saved HTML shows no text at all
 * (docs/benchmarks.md says why for each). Keyed `set/id`.
 */
const JUSTIFIED: Record<string, string> = {
  'wcxb-dev/4147': 'Discourse splash page; the topic is not in the saved HTML',
  'wcxb-dev/4314': 'Discourse splash page; the topic is not in the saved HTML',
  'wcxb-dev/4607': 'Discourse splash page; the topic is not in the saved HTML',
  'wcxb-dev/4838': 'Discourse splash page; the topic is not in the saved HTML',
  'wcxb-dev/4802': 'Discourse splash page; annotated with no main content',
  'wcxb-dev/4577': 'React shell (#root); annotated with no main content',
  'wcxb-dev/4681': 'Angular <gg-app> skeleton; annotated with no main content',
  'wcxb-dev/4871': 'Next.js client-rendered body; annotated with no main content',
  'wcxb-dev/0585': 'Next.js #__next shell, product only in __NEXT_DATA__; annotated with no main content',
};

const shared = sharedDir();

describe('page outcome on the extraction dev sets', { skip: shared && devSetDir(shared) ? false : 'the extraction dev sets (../shared/fixtures/extraction-dev) are not beside the repository' }, () => {
  test(`under ${MAX_ANNOTATED_RATE * 100}% of annotated content pages flagged, and only the justified pages`, { timeout: 1_200_000 }, async () => {
    // Two threads: the suite runs one file at a time, so the second core is otherwise idle.
    const run = await runOutcomeDevInThreads(2);
    assert.ok(run.pages > 1700, `${run.pages} pages`);
    const lines = run.flagged.map((f) => `${f.set}/${f.id} ${f.outcome}${f.annotated ? '' : ' (no annotated content)'}: ${f.evidence.join(' · ')}`);
    const annotatedFlagged = run.flagged.filter((f) => f.annotated).length;
    console.log(`${run.flagged.length} of ${run.pages} not ok (${(100 * run.rate).toFixed(2)}%); `
      + `annotated content pages: ${annotatedFlagged} of ${run.annotatedPages} (${(100 * run.annotatedRate).toFixed(2)}%)\n${lines.join('\n')}`);
    const unexplained = run.flagged.filter((f) => !(`${f.set}/${f.id}` in JUSTIFIED) || f.outcome !== 'empty');
    assert.deepEqual(unexplained.map((f) => `${f.set}/${f.id} ${f.outcome}`), [], 'pages flagged that docs/benchmarks.md does not justify');
    assert.ok(run.annotatedRate < MAX_ANNOTATED_RATE, `annotated content pages flagged: ${(100 * run.annotatedRate).toFixed(2)}%`);
  });
});
