// The `extract` scrape option: a schema of CSS selectors that the transformer evaluates on
// the page's final DOM to return `json` (the `extract` format), without an LLM; the shape
// and its design: docs/api.md "The `extract` format". Every bound (depth, field count,
// list size) is enforced by the schema itself, so a bad schema is a 400 naming the field,
// never a failed page.
import { createRequire } from 'node:module';
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { ValidationError } from './errors.js';
import { selectorCostProblem } from './selector-cost.js';
import { StringEnum } from './string-enum.js';

export const EXTRACT_TYPES = ['text', 'html', 'attribute', 'url', 'number', 'boolean', 'object'] as const;
export type ExtractType = (typeof EXTRACT_TYPES)[number];

// The TypeBox schema is unrolled to MAX_EXTRACT_DEPTH levels rather than recursive
// (Type.Recursive): the depth bound is then part of the schema, and the OpenAPI document
// needs no $ref resolution. The rest (kind-specific options, field count, selectors our DOM
// can run) is checked by checkExtractOptions.

/** Nested `object` fields at most this deep below the schema's own fields. */
export const MAX_EXTRACT_DEPTH = 4;
/** Fields in a whole schema, all levels together. */
export const MAX_EXTRACT_FIELDS = 200;
/**
 * Lists inside lists at most (baseSelector counts as one): each level multiplies the items
 * the one before made, and three levels of `div` ran a transform thread out of memory.
 */
export const MAX_EXTRACT_LIST_NESTING = 2;
/**
 * List items in one page's `json` at most, all lists together (objects count, even empty
 * ones); past it lists stop and metadata.extractTruncated is set. MAX_EXTRACT_OUTPUT_CHARS
 * bounds text only, and a list of empty objects has none.
 */
export const MAX_EXTRACT_OUTPUT_ITEMS = 100_000;
/** Items of one list (baseSelector or a `list` field); `maxItems` lowers it per list. */
export const MAX_EXTRACT_ITEMS = 10_000;
export const DEFAULT_EXTRACT_ITEMS = 1000;
/**
 * Characters of text in one page's `json` at most (values summed); past it lists stop
 * growing, strings are cut and metadata.extractTruncated is set. Keeps the result payload
 * and the read models bounded whatever the page holds.
 */
export const MAX_EXTRACT_OUTPUT_CHARS = 2_000_000;

const FIELD_NAME = '^[A-Za-z_][A-Za-z0-9_-]{0,63}$';
const FIELD_NAME_RE = new RegExp(FIELD_NAME);
const ATTRIBUTE_NAME = '^[^\\s"\'>/=]{1,100}$';
// A function, not a spread of one schema: a spread copies TypeBox's symbol keys into the
// type, which declaration emit cannot name (TS4023), and the SDK's .d.ts needs these types.
const Selector = (description: string) => Type.String({ minLength: 1, maxLength: 1000, format: 'css-selector', description });
// One JSON Schema type list rather than a union: one clear error ("must be of type string,number,boolean,null").
const DefaultValue = Type.Unsafe<string | number | boolean | null>({
  type: ['string', 'number', 'boolean', 'null'],
  maxLength: 1000,
  description: 'The value when nothing matched (or the value is empty); must suit the type. Without it: null.',
});

function fieldSchema(depth: number): TSchema {
  return Type.Object(
    {
      selector: Type.Optional(Selector('CSS selector, relative to the enclosing element; omitted: the enclosing element itself')),
      type: Type.Optional(StringEnum(EXTRACT_TYPES, {
        default: 'text',
        description: 'text: whitespace-collapsed text; html: inner HTML; attribute: the `attribute` value; url: `attribute` (default href, then src) resolved '
          + 'to an absolute http(s) URL; number: a number parsed from the text or `attribute` ("1.299,50 €" -> 1299.5); boolean: whether the selector '
          + '(and `attribute`, when given) matched; object: the nested `fields`',
      })),
      attribute: Type.Optional(Type.String({ pattern: ATTRIBUTE_NAME, description: 'Attribute to read (attribute, url, number, boolean types)' })),
      list: Type.Optional(Type.Boolean({ default: false, description: 'Every match as an array (empty values left out) instead of the first match' })),
      maxItems: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_EXTRACT_ITEMS, description: `With list: at most this many items (default ${DEFAULT_EXTRACT_ITEMS})` })),
      required: Type.Optional(Type.Boolean({ default: false, description: 'When the value is missing, the enclosing object is null (and left out of its list)' })),
      default: Type.Optional(DefaultValue),
      // The last level takes any object so that nesting too deep gets its own message (checkExtractOptions).
      fields: Type.Optional(depth > 0 ? fieldsSchema(depth - 1) : Type.Record(Type.String(), Type.Unknown(), { description: `Nesting ends here (${MAX_EXTRACT_DEPTH} levels)` })),
    },
    { additionalProperties: false },
  );
}

// Field names are checked by checkExtractOptions (a message naming the key, not its parent).
function fieldsSchema(depth: number): TSchema {
  return Type.Record(Type.String(), fieldSchema(depth), {
    minProperties: 1, maxProperties: 50, description: `Field name (${FIELD_NAME}) -> field`,
  });
}

export const ExtractSchema = Type.Object(
  {
    baseSelector: Type.Optional(Selector('When given, json is a list: the fields evaluated in each matching element')),
    maxItems: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_EXTRACT_ITEMS, description: `With baseSelector: at most this many items (default ${DEFAULT_EXTRACT_ITEMS})` })),
    fields: fieldsSchema(MAX_EXTRACT_DEPTH),
  },
  { additionalProperties: false },
);

export const ExtractOptions = Type.Object(
  { schema: ExtractSchema },
  { additionalProperties: false, description: 'Structured extraction by CSS selectors (the `extract` format): see docs/api.md "extract"' },
);

/** One field of an extraction schema (the static type of the unrolled TypeBox schema). */
export interface ExtractField {
  selector?: string;
  type?: ExtractType;
  attribute?: string;
  list?: boolean;
  maxItems?: number;
  required?: boolean;
  default?: string | number | boolean | null;
  fields?: Record<string, ExtractField>;
}
export interface ExtractSchemaInput {
  baseSelector?: string;
  maxItems?: number;
  fields: Record<string, ExtractField>;
}
export interface ExtractOptionsInput {
  schema: ExtractSchemaInput;
}
// The unrolled schema's Static is a deep union-free object type; the interfaces above say the same.
export type ExtractOptionsStatic = Static<typeof ExtractOptions>;

const ATTRIBUTE_TYPES = new Set<ExtractType>(['attribute', 'url', 'number', 'boolean']);

/**
 * The checks JSON Schema cannot state: kind-specific options, defaults that suit the type,
 * the total field count, and selectors that the transformer's DOM (linkedom) can run
 * (css-what accepts pseudo-classes it cannot). `field` prefixes the path in errors
 * ("scrapeOptions." in a crawl), e.g. extract.schema.fields.price.selector.
 */
export function checkExtractOptions(options: ExtractOptionsInput, field: string): void {
  const path = `${field}extract.schema`;
  const { schema } = options;
  if (schema.baseSelector !== undefined) checkSelector(schema.baseSelector, `${path}.baseSelector`);
  let count = 0;
  const walk = (fields: Record<string, ExtractField>, at: string, depth: number, lists: number): void => {
    for (const [name, f] of Object.entries(fields)) {
      count += 1;
      const nestedLists = lists + (f.list ? 1 : 0);
      if (f.list && nestedLists > MAX_EXTRACT_LIST_NESTING) {
        fail(`${at}.${name}.list: lists nest at most ${MAX_EXTRACT_LIST_NESTING} levels (baseSelector counts as one); each level multiplies the items of the one above`, `${at}.${name}.list`);
      }
      if (!FIELD_NAME_RE.test(name)) fail(`${at}.${name}: a field name is a letter or _ then letters, digits, _ or - (64 characters at most)`, `${at}.${name}`);
      if (count > MAX_EXTRACT_FIELDS) fail(`${path} has more than ${MAX_EXTRACT_FIELDS} fields`, `${at}.${name}`);
      if (f.fields && depth >= MAX_EXTRACT_DEPTH) fail(`${at}.${name}.fields: objects nest at most ${MAX_EXTRACT_DEPTH} levels below ${path}.fields`, `${at}.${name}.fields`);
      checkField(f, `${at}.${name}`);
      if (f.fields) walk(f.fields, `${at}.${name}.fields`, depth + 1, nestedLists);
    }
  };
  walk(schema.fields, `${path}.fields`, 0, schema.baseSelector !== undefined ? 1 : 0);
}

function checkField(f: ExtractField, at: string): void {
  const type = f.type ?? 'text';
  if (f.selector !== undefined) checkSelector(f.selector, `${at}.selector`);
  if (type === 'attribute' && f.attribute === undefined) fail(`${at}.attribute is required when type is "attribute"`, `${at}.attribute`);
  if (f.attribute !== undefined && !ATTRIBUTE_TYPES.has(type)) fail(`${at}.attribute only applies to types attribute, url, number and boolean (type is "${type}")`, `${at}.attribute`);
  if (type === 'object' && f.fields === undefined) fail(`${at}.fields is required when type is "object"`, `${at}.fields`);
  if (type !== 'object' && f.fields !== undefined) fail(`${at}.fields only applies to type "object" (type is "${type}")`, `${at}.fields`);
  if (f.maxItems !== undefined && !f.list) fail(`${at}.maxItems only applies with list: true`, `${at}.maxItems`);
  if (f.default !== undefined && f.default !== null) {
    if (f.list || type === 'object') fail(`${at}.default does not apply to ${f.list ? 'a list (it is [] when nothing matches)' : 'type "object"'}`, `${at}.default`);
    const expected = type === 'number' ? 'number' : type === 'boolean' ? 'boolean' : 'string';
    if (typeof f.default !== expected) fail(`${at}.default must be a ${expected} for type "${type}"`, `${at}.default`);
  }
  if (type === 'boolean' && f.required) fail(`${at}.required does not apply to type "boolean" (it is false when nothing matches)`, `${at}.required`);
}

function fail(message: string, field: string): never {
  throw new ValidationError(message, field);
}

let probe: Element | undefined;
/**
 * Checks the selector's cost (selector-cost.ts: a selector that can take exponential time is
 * refused), then runs it once on an empty document with the transformer's DOM: throws if it
 * cannot. linkedom is loaded on the first extract schema (synchronously, its CommonJS
 * build): the gateway and the service host validate options on every request, and most
 * never see an extract schema (linkedom's memory: docs/benchmarks.md "Third session").
 */
function checkSelector(selector: string, field: string): void {
  const costly = selectorCostProblem(selector);
  if (costly) throw new ValidationError(`${field}: the selector ${JSON.stringify(selector.slice(0, 100))} ${costly}`, field);
  if (!probe) {
    const { parseHTML } = createRequire(import.meta.url)('linkedom') as typeof import('linkedom');
    probe = (parseHTML('<!DOCTYPE html><html><head></head><body><p></p></body></html>').document as unknown as Document).body;
  }
  try {
    probe.querySelectorAll(selector);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new ValidationError(`${field} is not a CSS selector the extraction can run (${reason})`, field);
  }
}
