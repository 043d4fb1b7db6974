// What the page outcome does to a page (docs/api.md "Page outcome"): a challenge, a block
// page or an empty page is not the content asked for, so the page fails with its code and
// the evidence, instead of completing with the interstitial's text as its markdown. The
// request's acceptOutcomes takes any outcome as content. Walls and soft 404s complete.
import { outcomeFailure, type PageOutcome } from '../../../../shared/src/domain/page-outcome/outcome.js';
import type { ResolvedScrapeOptions } from '../../../../shared/src/domain/scrape-options.js';
import type { TransformMetadata } from '../types.js';

const WHAT: Record<string, string> = {
  challenge: 'a bot check or CAPTCHA',
  blocked: 'an access-denied or rate-limit page',
  empty: 'empty (no content after rendering)',
};

const UNRENDERED = 'empty as served (read over HTTP, without running its scripts)';

/** Pages that fail on their outcome: the ones whose content is the result (a map reads only links). */
const JUDGED_KINDS = new Set(['scrape', 'crawl', 'batch']);

export interface OutcomeRefusal {
  code: string;
  message: string;
  pageOutcome: PageOutcome;
  evidence: string[];
}

/**
 * `engine`: the engine that fetched the page. An empty page read over HTTP was never rendered:
 * its message says so and names the engine that runs the page's scripts.
 */
export function outcomeRefusal(kind: string, metadata: TransformMetadata, options: Pick<ResolvedScrapeOptions, 'acceptOutcomes' | 'formats'>, engine?: 'browser' | 'http'): OutcomeRefusal | undefined {
  const outcome = metadata.pageOutcome;
  if (!outcome || !JUDGED_KINDS.has(kind)) return undefined;
  // Who asked for rawHtml gets the HTML as it came, which an empty page still has (an app
  // shell's data islands, under engine http): the outcome is reported, not a failure.
  if (outcome === 'empty' && options.formats.includes('rawHtml')) return undefined;
  const code = outcomeFailure(outcome, (options.acceptOutcomes ?? []) as PageOutcome[]);
  if (!code) return undefined;
  const evidence = metadata.pageOutcomeEvidence ?? [];
  return {
    code,
    message: `the page is ${outcome === 'empty' && engine === 'http' ? UNRENDERED : WHAT[outcome] ?? outcome}, not the content asked for (${evidence.slice(0, 4).join('; ')}); `
      + `${outcome === 'empty' && engine === 'http' ? 'engine "browser" runs its scripts; ' : ''}acceptOutcomes ["${outcome}"] takes it as content`,
    pageOutcome: outcome,
    evidence,
  };
}
