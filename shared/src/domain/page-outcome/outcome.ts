// What a page *is* (issue 23, docs/api.md "Page outcome"): every result's
// metadata.pageOutcome says whether the page is the content asked for or something served
// in its place (a bot check, a block, a wall, an error page served with 200, an empty
// shell), with the evidence that decided it. The transformer classifies
// (services/transformer/src/outcome); this module holds the vocabulary every service shares.
import { Type, type Static } from '@sinclair/typebox';
import { StringEnum } from '../string-enum.js';

export const PAGE_OUTCOMES = ['ok', 'challenge', 'blocked', 'login-wall', 'paywall', 'consent-wall', 'soft-404', 'empty'] as const;
export type PageOutcome = (typeof PAGE_OUTCOMES)[number];

export const PageOutcomeSchema = StringEnum(PAGE_OUTCOMES);

/** The outcome and what was seen (a short list of plain-language facts, at most MAX_EVIDENCE). */
export const PageOutcomeVerdict = Type.Object({
  outcome: PageOutcomeSchema,
  evidence: Type.Array(Type.String({ maxLength: 200 }), { maxItems: 12 }),
});
export type PageOutcomeVerdict = Static<typeof PageOutcomeVerdict>;
export const MAX_EVIDENCE = 12;

/**
 * Outcomes that are not the page at all: a scrape (or crawl/batch page) with one of them
 * fails with its code, unless the request accepts it (`acceptOutcomes`). The walls
 * (login, paywall, consent) complete: what they show is what a reader gets there too.
 */
export const FAILING_OUTCOMES = {
  challenge: 'PAGE_CHALLENGE',
  blocked: 'PAGE_BLOCKED',
  empty: 'PAGE_EMPTY',
} as const satisfies Partial<Record<PageOutcome, string>>;
export type OutcomeErrorCode = (typeof FAILING_OUTCOMES)[keyof typeof FAILING_OUTCOMES];

/** The error code the page fails with, or undefined when the outcome completes (or is accepted). */
export function outcomeFailure(outcome: PageOutcome, accepted: readonly PageOutcome[] = []): OutcomeErrorCode | undefined {
  if (accepted.includes(outcome)) return undefined;
  return (FAILING_OUTCOMES as Partial<Record<PageOutcome, OutcomeErrorCode>>)[outcome];
}

/** Outcomes that make a crawl back off a host (services/crawler-frontier/src/crawl/host-blocks.ts). */
export const HOST_REFUSAL_OUTCOMES: readonly PageOutcome[] = ['challenge', 'blocked'];

/**
 * Response headers the classifier reads, recorded on page_fetched (`outcomeHeaders`): bot
 * managers and CDNs name themselves there. Only these, and only cookie *names* from
 * Set-Cookie (never values): the event log keeps them.
 */
export const OUTCOME_HEADERS = [
  'server', 'cf-mitigated', 'cf-ray', 'x-datadome', 'x-dd-b', 'x-amzn-waf-action', 'x-iinfo', 'x-cdn',
  'x-px-block', 'akamai-grn', 'retry-after', 'www-authenticate', 'x-cache',
] as const;
const MAX_HEADER_VALUE = 120;

/** The classifier's headers from a response's (lower-cased names; Set-Cookie as its cookie names). */
export function pickOutcomeHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [rawName, rawValue] of Object.entries(headers)) {
    if (rawValue === undefined) continue;
    const name = rawName.toLowerCase();
    const value = Array.isArray(rawValue) ? rawValue.join('\n') : rawValue;
    if (name === 'set-cookie') {
      const names = value.split('\n').map((c) => c.split('=')[0]!.trim()).filter(Boolean);
      if (names.length) out['set-cookie'] = names.join(' ').slice(0, MAX_HEADER_VALUE);
    } else if ((OUTCOME_HEADERS as readonly string[]).includes(name)) {
      out[name] = value.slice(0, MAX_HEADER_VALUE);
    }
  }
  return out;
}
