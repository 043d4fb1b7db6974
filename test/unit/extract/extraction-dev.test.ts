// Quality floor of main-content extraction on the 400-page dev set
// (../shared/fixtures/extraction-dev/trafilatura-eval), scored in-process with the dev set's
// own metric (bench/lib/extraction-dev.ts). The floors sit 0.01 under what the extractor
// reached (bench/extraction-dev.ts prints it), so a change that costs quality fails `npm test`.
// A quality gate, not a timing.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { devSetDir, loadDevPages, loadMarkdownToText, runExtractor, scoreSnippets, serviceExtractor, sharedDir } from '../../../bench/lib/extraction-dev.js';

/** Reached: F1 0.953, precision 0.949, recall 0.957 (2026-11-27). */
const MIN_F1 = 0.943;
const MIN_PRECISION = 0.939;
const MIN_RECALL = 0.947;

const shared = sharedDir();
const dir = devSetDir(shared);

describe('extraction quality on the dev set', { skip: dir ? false : 'the extraction dev set (../shared/fixtures/extraction-dev) is not beside the repository' }, () => {
  test(`F1 >= ${MIN_F1}, precision >= ${MIN_PRECISION}, recall >= ${MIN_RECALL}, and no page fails`, { timeout: 300_000 }, async () => {
    const pages = loadDevPages(dir!);
    assert.equal(pages.length, 400);
    const run = runExtractor(pages, serviceExtractor);
    assert.deepEqual(run.errors, [], 'a transform threw');
    const score = scoreSnippets(pages, run.markdown, await loadMarkdownToText(shared!));
    const summary = `P ${score.precision.toFixed(4)} R ${score.recall.toFixed(4)} F1 ${score.f1.toFixed(4)}`;
    assert.ok(score.f1 >= MIN_F1, `F1 below the floor: ${summary}`);
    assert.ok(score.precision >= MIN_PRECISION, `precision below the floor: ${summary}`);
    assert.ok(score.recall >= MIN_RECALL, `recall below the floor: ${summary}`);
    assert.equal(score.empty, 0, 'pages with an empty extraction');
  });
});
