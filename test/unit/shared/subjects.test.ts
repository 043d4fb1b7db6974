// NATS subject filters as the worker's re-drive checks them (shared/src/infra/subjects.ts).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { subjectMatches } from '../../../shared/src/infra/subjects.js';

describe('subject filters', () => {
  test('`*` matches one token, `>` one or more, literals themselves', () => {
    assert.ok(subjectMatches('trawl.crawl.*.*.page_requested', 'trawl.crawl.j1.p1.page_requested'));
    assert.ok(!subjectMatches('trawl.crawl.*.*.page_requested', 'trawl.batch.j1.p1.page_requested'));
    assert.ok(!subjectMatches('trawl.crawl.*.*.page_requested', 'trawl.crawl.j1.page_requested'));
    assert.ok(subjectMatches('trawl.>', 'trawl.crawl.j1.job.crawl_requested'));
    assert.ok(!subjectMatches('trawl.>', 'trawl'));
    assert.ok(!subjectMatches('trawl.crawl.*.job.*', 'trawl.crawl.j1.job.crawl_requested.x'));
  });
});
