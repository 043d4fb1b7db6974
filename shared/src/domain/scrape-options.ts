// The scrape request of the spec as TypeBox schemas: the single source of validation
// (gateway), of the TypeScript types (every service) and of the OpenAPI document.
// Defaults are written here once; `normalizeScrapeOptions` applies them so that every
// event carries fully resolved options and the cache key sees one canonical form.
import { FormatRegistry, Type, type Static } from '@sinclair/typebox';
import { parse as parseCss } from 'css-what';
import { ValidationError } from './errors.js';
import { checkExtractOptions, ExtractOptions, type ExtractOptionsInput } from './extract-schema.js';
import { selectorCostProblem } from './selector-cost.js';
import { StringEnum } from './string-enum.js';
import { ENGINES } from './engines.js';
import { PAGE_OUTCOMES } from './page-outcome/outcome.js';

export { StringEnum };

/**
 * The spec's five formats, then `extract` (structured json by CSS selectors, docs/api.md
 * "extract") and `changeTracking` (docs/api.md "Change tracking"): the page's markdown
 * compared with the key's last observation of the URL. It needs the markdown but does not
 * imply returning it: the markdown is in the answer only when `markdown` is asked.
 */
export const FORMATS = ['markdown', 'html', 'rawHtml', 'links', 'screenshot', 'extract', 'changeTracking'] as const;
export type Format = (typeof FORMATS)[number];
/** Document types a request may have parsed to markdown (scrape option `parsers`; docs/api.md "Documents"). */
export const PARSERS = ['pdf', 'docx'] as const;
export type Parser = (typeof PARSERS)[number];
/** Upper bound of the `maxPages` option; servers may cap lower (DOCUMENT_MAX_PAGES). */
export const MAX_DOCUMENT_PAGES = 10_000;
export const DEVICES = ['desktop', 'tablet', 'mobile'] as const;
export type Device = (typeof DEVICES)[number];

export { ENGINE_DEFAULTS, ENGINES, type Engine, type EngineDefaults } from './engines.js';

export const SCRAPE_DEFAULTS = {
  formats: ['markdown'] as Format[],
  onlyMainContent: true,
  viewport: { width: 1280, height: 800 },
  mobile: false,
  darkMode: false,
  timeoutMs: 30_000,
  screenshot: { fullPage: false, format: 'png' as const, quality: 80, response: 'url' as const },
};

/** Upper bound for `timeout` and numeric `waitFor` (decided in docs/api.md). */
export const MAX_TIMEOUT_MS = 300_000;
export const MAX_ACTIONS = 50;

const Selector = Type.String({ minLength: 1, maxLength: 1000 });

/** A CSS selector the transformer can apply (include/excludeTags): checked at the gateway. */
export function isCssSelector(value: string): boolean {
  try {
    return parseCss(value).length > 0;
  } catch {
    return false;
  }
}
if (!FormatRegistry.Has('css-selector')) FormatRegistry.Set('css-selector', isCssSelector);
const CssSelector = Type.String({ minLength: 1, maxLength: 1000, format: 'css-selector' });

// Keys the browser can press (Playwright's names), optionally with modifiers: "Enter",
// "ArrowDown", "a", "Control+A", "Shift+Tab". Unknown names are a 400, not a failed job.
const KEY_NAMES = [
  'Backquote', 'Minus', 'Equal', 'Backslash', 'Backspace', 'Tab', 'Delete', 'Escape', 'ArrowDown', 'ArrowUp', 'ArrowLeft',
  'ArrowRight', 'End', 'Enter', 'Home', 'Insert', 'PageDown', 'PageUp', 'Space', 'Shift', 'Control', 'Alt', 'Meta', 'CapsLock',
  'BracketLeft', 'BracketRight', 'Semicolon', 'Quote', 'Comma', 'Period', 'Slash', 'NumpadEnter', 'NumpadAdd', 'NumpadSubtract',
  'NumpadMultiply', 'NumpadDivide', 'NumpadDecimal', 'ControlOrMeta',
];
export const KEY_PATTERN = `^((Shift|Control|Alt|Meta|ControlOrMeta)\\+)*([^\\s]|F([1-9]|1[0-2])|Digit[0-9]|Key[A-Z]|Numpad[0-9]|${KEY_NAMES.join('|')})$`;

export const Viewport = Type.Object(
  {
    width: Type.Optional(Type.Integer({ minimum: 100, maximum: 3840, default: 1280 })),
    height: Type.Optional(Type.Integer({ minimum: 100, maximum: 2160, default: 800 })),
  },
  { additionalProperties: false },
);

export const ScreenshotOptions = Type.Object(
  {
    fullPage: Type.Optional(Type.Boolean({ default: false })),
    format: Type.Optional(StringEnum(['png', 'jpeg', 'webp'] as const, { default: 'png' })),
    quality: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 80 })),
    clip: Type.Optional(Selector),
    response: Type.Optional(StringEnum(['url', 'base64'] as const, { default: 'url' })),
  },
  { additionalProperties: false },
);

export const Action = Type.Union([
  Type.Object({ type: Type.Literal('wait'), milliseconds: Type.Integer({ minimum: 0, maximum: MAX_TIMEOUT_MS }) }, { additionalProperties: false }),
  Type.Object({ type: Type.Literal('click'), selector: Selector }, { additionalProperties: false }),
  Type.Object({ type: Type.Literal('type'), selector: Selector, text: Type.String({ maxLength: 10_000 }) }, { additionalProperties: false }),
  Type.Object({ type: Type.Literal('press'), key: Type.String({ minLength: 1, maxLength: 50, pattern: KEY_PATTERN }) }, { additionalProperties: false }),
  Type.Object(
    {
      type: Type.Literal('scroll'),
      direction: Type.Optional(StringEnum(['up', 'down'] as const, { default: 'down' })),
      amount: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
    },
    { additionalProperties: false },
  ),
  Type.Object({ type: Type.Literal('screenshot') }, { additionalProperties: false }),
]);
export type Action = Static<typeof Action>;

const HeaderName = '^[!#$%&\'*+\\-.^_`|~0-9A-Za-z]{1,256}$';

/** The page options shared by scrape and by crawl's scrapeOptions (everything but url). */
export const ScrapeOptionsSchema = Type.Object(
  {
    formats: Type.Optional(
      Type.Array(StringEnum(FORMATS), { minItems: 1, maxItems: FORMATS.length, uniqueItems: true, default: ['markdown'] }),
    ),
    onlyMainContent: Type.Optional(Type.Boolean({ default: true })),
    includeTags: Type.Optional(Type.Array(CssSelector, { maxItems: 100 })),
    excludeTags: Type.Optional(Type.Array(CssSelector, { maxItems: 100 })),
    viewport: Type.Optional(Viewport),
    mobile: Type.Optional(Type.Boolean({ default: false })),
    device: Type.Optional(StringEnum(DEVICES)),
    darkMode: Type.Optional(Type.Boolean({ default: false })),
    headers: Type.Optional(
      Type.Record(Type.String({ pattern: HeaderName }), Type.String({ maxLength: 8192 }), { maxProperties: 50 }),
    ),
    waitFor: Type.Optional(Type.Union([Type.Integer({ minimum: 0, maximum: MAX_TIMEOUT_MS }), Selector])),
    timeout: Type.Optional(Type.Integer({ minimum: 1000, maximum: MAX_TIMEOUT_MS, default: 30_000 })),
    screenshotOptions: Type.Optional(ScreenshotOptions),
    actions: Type.Optional(Type.Array(Action, { maxItems: MAX_ACTIONS })),
    parsers: Type.Optional(Type.Union([
      Type.Array(StringEnum(PARSERS), { maxItems: PARSERS.length, uniqueItems: true }),
      Type.Literal(false),
    ], {
      description: 'Document types turned into markdown (default: all, ["pdf","docx"]). A type left out, or false / [], '
        + 'gives only metadata and a `document` link to the stored bytes. Text, markdown and JSON are always passed through.',
    })),
    maxPages: Type.Optional(Type.Integer({
      minimum: 1, maximum: MAX_DOCUMENT_PAGES,
      description: 'Documents: parse at most this many pages (default and cap: the server\'s DOCUMENT_MAX_PAGES, 1000 unless set).',
    })),
    engine: Type.Optional(StringEnum(ENGINES, {
      description: 'browser: render in Chromium; http: one HTTP GET, no browser (no screenshot, actions, waitFor, darkMode or viewport); '
        + 'auto: HTTP when the host is verified to give the same page, else the browser. '
        + 'Default: browser for a scrape, auto for crawl and batch pages (server settings may change these).',
    })),
    extract: Type.Optional(ExtractOptions),
    acceptOutcomes: Type.Optional(Type.Array(StringEnum(PAGE_OUTCOMES.filter((o) => o !== 'ok')), {
      maxItems: PAGE_OUTCOMES.length - 1, uniqueItems: true,
      description: 'Page outcomes to take as content (docs/api.md "Page outcome"): a page classified challenge, blocked or empty '
        + 'fails with PAGE_CHALLENGE, PAGE_BLOCKED or PAGE_EMPTY unless its outcome is listed here. Default: none.',
    })),
    consent: Type.Optional(StringEnum(['reject', 'accept'] as const, {
      description: 'Before capture, click the reject (choose this unless you mean to consent) or accept button of a consent platform\'s dialog: '
        + 'OneTrust, Cookiebot, Didomi, Quantcast, TrustArc, Usercentrics. Needs the browser. Default: the dialog is left as it is.',
    })),
    conditional: Type.Optional(Type.Boolean({
      default: true,
      description: 'Send If-None-Match / If-Modified-Since with the validators the page gave at this key\'s last observation of it (HTTP engine: '
        + 'engine http, or auto on hosts served over HTTP); a 304 completes the page from that observation (metadata.notModified). '
        + 'false: always a full load.',
    })),
    changeTrackingOptions: Type.Optional(Type.Object({
      tag: Type.Optional(Type.String({
        minLength: 1, maxLength: 128,
        description: 'A history of its own: compare only with earlier scrapes of the URL that named the same tag (e.g. one per monitor or per option set)',
      })),
    }, { additionalProperties: false })),
  },
  { additionalProperties: false },
);
export type ScrapeOptionsInput = Static<typeof ScrapeOptionsSchema>;

export const ScrapeRequestSchema = Type.Composite(
  [Type.Object({ url: Type.String({ minLength: 1, maxLength: 8192 }) }), ScrapeOptionsSchema],
  { additionalProperties: false },
);
export type ScrapeRequest = Static<typeof ScrapeRequestSchema>;

/** Fully resolved options as carried by events: every default applied, nothing optional that has a default. */
export const ResolvedScrapeOptions = Type.Object({
  formats: Type.Array(Type.Union(FORMATS.map((f) => Type.Literal(f)))),
  onlyMainContent: Type.Boolean(),
  includeTags: Type.Array(Type.String()),
  excludeTags: Type.Array(Type.String()),
  viewport: Type.Object({ width: Type.Integer(), height: Type.Integer() }),
  mobile: Type.Boolean(),
  device: Type.Optional(Type.Union([Type.Literal('desktop'), Type.Literal('tablet'), Type.Literal('mobile')])),
  darkMode: Type.Boolean(),
  headers: Type.Record(Type.String(), Type.String()),
  waitFor: Type.Optional(Type.Union([Type.Integer(), Type.String()])),
  timeoutMs: Type.Integer(),
  screenshot: Type.Optional(
    Type.Object({
      fullPage: Type.Boolean(),
      format: Type.Union([Type.Literal('png'), Type.Literal('jpeg'), Type.Literal('webp')]),
      quality: Type.Integer(),
      clip: Type.Optional(Type.String()),
      response: Type.Union([Type.Literal('url'), Type.Literal('base64')]),
    }),
  ),
  actions: Type.Array(Action),
  /** Only when the request named one; otherwise the fetcher applies ENGINE_DEFAULTS for the job kind. */
  engine: Type.Optional(Type.Union(ENGINES.map((e) => Type.Literal(e)))),
  /** Only with the extract format (and only then): the schema, as validated (in the cache key). */
  extract: Type.Optional(Type.Unsafe<ExtractOptionsInput>(Type.Object({ schema: Type.Object({}, { additionalProperties: true }) }))),
  /** changeTrackingOptions.tag: the observation history the page belongs to (none: the URL's own). */
  changeTrackingTag: Type.Optional(Type.String()),
  /** Only when false (conditional fetches off for this request); absent: on. */
  conditional: Type.Optional(Type.Literal(false)),
  /** Only when given and not empty (older events and requests without it keep their form and cache key). */
  acceptOutcomes: Type.Optional(Type.Array(Type.String())),
  /** Only when given (the consent option). */
  consent: Type.Optional(Type.Union([Type.Literal('reject'), Type.Literal('accept')])),
  /** Only when not every parser (absent: all of PARSERS; events from before documents have none). */
  parsers: Type.Optional(Type.Array(Type.Union(PARSERS.map((p) => Type.Literal(p))))),
  /** Only when the request named one (absent: the server's DOCUMENT_MAX_PAGES). */
  maxPages: Type.Optional(Type.Integer()),
});
export type ResolvedScrapeOptions = Static<typeof ResolvedScrapeOptions>;

/**
 * Applies defaults once. Formats keep the canonical order of FORMATS so that
 * ["links","markdown"] and ["markdown","links"] share a cache entry; header names are
 * lower-cased for the same reason. Screenshot options exist only when a screenshot is asked for.
 */
export function normalizeScrapeOptions(input: ScrapeOptionsInput, field = ''): ResolvedScrapeOptions {
  if (input.engine === 'http') {
    const needs = browserOnlyOptions(input);
    if (needs.length > 0) {
      throw new ValidationError(
        `engine "http" fetches without a browser, but ${needs.join(', ')} ${needs.length > 1 ? 'need' : 'needs'} one: use engine "browser" or "auto", or drop ${needs.length > 1 ? 'them' : 'it'}`,
        `${field}engine`,
      );
    }
  }
  const asked = new Set(input.formats ?? SCRAPE_DEFAULTS.formats);
  if (asked.has('extract') && !input.extract) throw new ValidationError('the extract format needs an extraction schema in extract.schema', `${field}extract`);
  if (input.extract && !asked.has('extract')) throw new ValidationError('extract.schema is given but formats does not include "extract"', `${field}formats`);
  if (input.extract) checkExtractOptions(input.extract as ExtractOptionsInput, field);
  // The transformer runs these on the page too: the same cost check as extract's selectors.
  for (const name of ['includeTags', 'excludeTags'] as const) {
    input[name]?.forEach((selector, i) => {
      const costly = selectorCostProblem(selector);
      if (costly) throw new ValidationError(`${field}${name}[${i}]: the selector ${JSON.stringify(selector.slice(0, 100))} ${costly}`, `${field}${name}`);
    });
  }
  const formats = FORMATS.filter((f) => asked.has(f));
  if (input.changeTrackingOptions && !asked.has('changeTracking')) {
    throw new ValidationError('changeTrackingOptions needs the changeTracking format in formats', `${field}changeTrackingOptions`);
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(input.headers ?? {}).sort(([a], [b]) => a.localeCompare(b))) {
    headers[name.toLowerCase()] = value;
  }
  const shot = input.screenshotOptions ?? {};
  return {
    formats,
    onlyMainContent: input.onlyMainContent ?? SCRAPE_DEFAULTS.onlyMainContent,
    includeTags: input.includeTags ?? [],
    excludeTags: input.excludeTags ?? [],
    viewport: {
      width: input.viewport?.width ?? SCRAPE_DEFAULTS.viewport.width,
      height: input.viewport?.height ?? SCRAPE_DEFAULTS.viewport.height,
    },
    mobile: input.mobile ?? SCRAPE_DEFAULTS.mobile,
    ...(input.device ? { device: input.device } : {}),
    darkMode: input.darkMode ?? SCRAPE_DEFAULTS.darkMode,
    headers,
    ...(input.waitFor !== undefined ? { waitFor: input.waitFor } : {}),
    timeoutMs: input.timeout ?? SCRAPE_DEFAULTS.timeoutMs,
    ...(asked.has('screenshot')
      ? {
          screenshot: {
            fullPage: shot.fullPage ?? SCRAPE_DEFAULTS.screenshot.fullPage,
            format: shot.format ?? SCRAPE_DEFAULTS.screenshot.format,
            quality: shot.quality ?? SCRAPE_DEFAULTS.screenshot.quality,
            ...(shot.clip ? { clip: shot.clip } : {}),
            response: shot.response ?? SCRAPE_DEFAULTS.screenshot.response,
          },
        }
      : {}),
    actions: input.actions ?? [],
    ...(input.engine ? { engine: input.engine } : {}),
    ...(input.extract ? { extract: input.extract as ExtractOptionsInput } : {}),
    ...(input.changeTrackingOptions?.tag !== undefined ? { changeTrackingTag: input.changeTrackingOptions.tag } : {}),
    ...(input.conditional === false ? { conditional: false as const } : {}),
    ...(input.acceptOutcomes?.length ? { acceptOutcomes: [...input.acceptOutcomes].sort() } : {}),
    ...(input.consent ? { consent: input.consent } : {}),
    ...documentOptions(input),
  };
}

/**
 * parsers and maxPages, only when they differ from the defaults: requests that do not use
 * them keep the resolved form (and the cache key) they had before documents.
 */
function documentOptions(input: ScrapeOptionsInput): Pick<ResolvedScrapeOptions, 'parsers' | 'maxPages'> {
  const parsers = input.parsers === false ? [] : input.parsers;
  const canonical = parsers === undefined ? undefined : PARSERS.filter((p) => parsers.includes(p));
  return {
    ...(canonical && canonical.length < PARSERS.length ? { parsers: canonical } : {}),
    ...(input.maxPages !== undefined ? { maxPages: input.maxPages } : {}),
  };
}

/** The parsers a resolved request asks for (all when it names none). */
export function parsersOf(options: Pick<ResolvedScrapeOptions, 'parsers'>): readonly Parser[] {
  return options.parsers ?? PARSERS;
}

/** A viewport that gives the default page (unset sides take the default). */
function isDefaultViewport({ width, height }: { width?: number; height?: number }): boolean {
  return (width ?? SCRAPE_DEFAULTS.viewport.width) === SCRAPE_DEFAULTS.viewport.width && (height ?? SCRAPE_DEFAULTS.viewport.height) === SCRAPE_DEFAULTS.viewport.height;
}

/**
 * The options of a request that only a browser can honour (named as the request names
 * them), for validation and for the fetcher's engine alike (one rule). `mobile` and
 * `device` are not among them: the HTTP engine sends their user agent; nor is a viewport
 * equal to the default, which is the page every engine gives.
 */
export function browserOnlyOptions(input: Pick<ScrapeOptionsInput, 'formats' | 'actions' | 'waitFor' | 'darkMode' | 'viewport' | 'consent'>): string[] {
  const needs: string[] = [];
  if (input.consent) needs.push('consent');
  if (input.formats?.includes('screenshot')) needs.push('the screenshot format');
  if (input.actions?.length) needs.push('actions');
  if (input.waitFor !== undefined) needs.push('waitFor');
  if (input.darkMode) needs.push('darkMode');
  if (input.viewport && !isDefaultViewport(input.viewport)) needs.push('viewport');
  return needs;
}
