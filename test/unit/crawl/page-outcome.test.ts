// The crawl decider and page outcomes (docs/api.md "Page outcome"): a soft 404 counts as
// failed like an HTTP 404 and its links are not followed; a soft-404 start page fails the
// crawl and says why.
import { describe, test } from 'node:test';
import { advance, finished, given, linksDiscovered, pageCompleted, pageRequested, requested, started } from './helpers.js';
import type { LogEvent } from '../../../services/crawler-frontier/src/crawl/decider.js';

const soft404 = (path: string, links: string[] = []): LogEvent => {
  const page = pageCompleted(path, links, 200) as unknown as { data: { metadata: Record<string, unknown> } };
  return { ...page, data: { ...page.data, metadata: { ...page.data.metadata, pageOutcome: 'soft-404', pageOutcomeEvidence: ['title "Page not found"'] } } } as unknown as LogEvent;
};

describe('crawl decider: page outcomes', () => {
  test('a soft 404 counts as failed and its links are not followed', () => {
    given([
      requested(), started(), pageRequested('/', 0), pageCompleted('/', ['/gone', '/ok'], 200),
      linksDiscovered('/', 1, ['/gone', '/ok']), pageRequested('/gone', 1), pageRequested('/ok', 1),
      soft404('/gone', ['/from-error-template']), pageCompleted('/ok', [], 200),
    ])
      .when(advance)
      .then([linksDiscovered('/ok', 2, []), finished('COMPLETED', 3, 2, 1)]);
  });

  test('a soft-404 start page fails the crawl, naming it', () => {
    given([requested(), started(), pageRequested('/', 0), soft404('/', ['/a'])])
      .when(advance)
      .then([finished('FAILED', 1, 0, 1, 'start page failed: the page is an error page served with HTTP 200 (soft-404)')]);
  });
});
