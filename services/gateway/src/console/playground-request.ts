// What the playground's form means as an API request body, per tab (scrape, crawl, map,
// batch, extract): one function, used both to submit and to show the same request as
// code, so the two never differ. Values the form leaves at the API's defaults are left out.
import { ValidationError } from '../../../../shared/src/domain/errors.js';
import type { RequestKind } from './snippets.js';

export const PLAYGROUND_FORMATS = ['markdown', 'html', 'rawHtml', 'links', 'screenshot', 'changeTracking'] as const;

/** The extract tab's schema editor starts with this (docs/api.md "The extract format"). */
export const EXAMPLE_EXTRACT_SCHEMA = JSON.stringify({
  fields: {
    title: { selector: 'h1', required: true },
    paragraphs: { selector: 'p', list: true },
    links: { selector: 'a', type: 'url', list: true },
  },
}, null, 2);

export interface PlaygroundValues {
  kind: RequestKind;
  keyId: string;
  url: string;
  /** Batch: one URL a line. */
  urls: string;
  formats: string[];
  onlyMainContent: boolean;
  mobile: boolean;
  waitFor: string;
  timeout: string;
  /** Crawl and map. */
  limit: string;
  /** Crawl. */
  maxDepth: string;
  /** Map. */
  search: string;
  /** Extract: the schema as JSON text. */
  schema: string;
}

export const DEFAULT_VALUES: PlaygroundValues = {
  kind: 'scrape', keyId: '', url: '', urls: '', formats: ['markdown'], onlyMainContent: true, mobile: false, waitFor: '', timeout: '',
  limit: '', maxDepth: '', search: '', schema: EXAMPLE_EXTRACT_SCHEMA,
};

const whole = (text: string, name: string): number => {
  if (!/^\d{1,9}$/.test(text)) throw new ValidationError(`${name} must be a whole number`, name);
  return Number(text);
};

/** The page options the scrape, crawl (as scrapeOptions) and batch tabs share. */
function pageOptions(v: PlaygroundValues): Record<string, unknown> {
  return {
    ...(v.formats.length && v.formats.join() !== 'markdown' ? { formats: v.formats } : {}),
    ...(v.onlyMainContent ? {} : { onlyMainContent: false }),
    ...(v.mobile ? { mobile: true } : {}),
    ...(v.waitFor ? { waitFor: /^\d+$/.test(v.waitFor) ? Number(v.waitFor) : v.waitFor } : {}),
    ...(v.timeout ? { timeout: whole(v.timeout, 'timeout') } : {}),
  };
}

/**
 * The request body of the form's values (the URL as typed: the example one when empty and
 * `forDisplay`). Throws ValidationError for what the form itself can tell is wrong (a
 * schema that is not JSON); the API's schema checks the rest.
 */
export function requestOf(v: PlaygroundValues, forDisplay = false): Record<string, unknown> {
  const url = v.url || (forDisplay ? 'https://example.com' : '');
  switch (v.kind) {
    case 'scrape':
      return { url, ...pageOptions(v) };
    case 'extract': {
      let schema: unknown;
      try {
        schema = JSON.parse(v.schema);
      } catch (err) {
        if (forDisplay) return { url, formats: ['extract'], extract: { schema: v.schema } };
        throw new ValidationError(`the schema is not JSON: ${(err as Error).message}`, 'extract.schema');
      }
      return { url, formats: ['extract'], extract: { schema } };
    }
    case 'crawl': {
      const options = pageOptions(v);
      return {
        url, ...(v.limit ? { limit: whole(v.limit, 'limit') } : {}), ...(v.maxDepth ? { maxDepth: whole(v.maxDepth, 'maxDepth') } : {}),
        ...(Object.keys(options).length ? { scrapeOptions: options } : {}),
      };
    }
    case 'map':
      return { url, ...(v.search ? { search: v.search } : {}), ...(v.limit ? { limit: whole(v.limit, 'limit') } : {}) };
    case 'batch': {
      const urls = v.urls.split(/\r?\n/).map((u) => u.trim()).filter(Boolean);
      return { urls: urls.length || !forDisplay ? urls : ['https://example.com', 'https://example.org'], ...pageOptions(v) };
    }
  }
}
