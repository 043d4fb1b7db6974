// Validation with the contract's TypeBox schemas (compiled by Ajv), for the gateway's routes
// and the MCP server's tools. Bodies are validated strictly: a number sent as "5" is a
// wrong type, not something to coerce, and they stay as asked (no defaults filled in): the
// request's resolver applies the defaults once (normalizeScrapeOptions, normalizeCrawlRequest)
// and the log keeps the request as asked beside what was granted. Query strings and path
// params are text by nature, so there numbers are coerced and the schema's defaults apply.
// Errors name the field: `viewport.width must be <= 3840`.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { ValidationError } from '../domain/errors.js';
import { isCssSelector } from '../domain/scrape-options.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

function makeAjv(text: boolean): Ajv {
  const ajv = new Ajv({ coerceTypes: text, useDefaults: text, removeAdditional: false, allErrors: true, strict: false });
  addFormats(ajv);
  ajv.addFormat('css-selector', { type: 'string', validate: isCssSelector });
  return ajv;
}

const strict = makeAjv(false);
const coercing = makeAjv(true);

// Each route's validator is compiled on the route's first request, not when Fastify
// registers it: compiling every route's schema was the gateway's largest cost at start-up
// (a third of its CPU before it listened), paid on every start for routes a run may never call.
export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? strict : coercing;
  let validate: ValidateFunction | undefined;
  return (data: unknown) => {
    validate ??= ajv.compile(schema as object) as ValidateFunction;
    if (validate(data)) return { value: data };
    return { error: toValidationError(validate.errors ?? [], httpPart ?? 'body') };
  };
};

function fieldOf(err: ErrorObject): string {
  const path = err.instancePath.replace(/^\//, '').split('/').filter(Boolean);
  if (err.keyword === 'required') path.push(String((err.params as { missingProperty: string }).missingProperty));
  if (err.keyword === 'additionalProperties') path.push(String((err.params as { additionalProperty: string }).additionalProperty));
  return path.map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~')).join('.') || '(body)';
}

function describe(err: ErrorObject): string {
  const field = fieldOf(err);
  switch (err.keyword) {
    case 'required': return `${field} is required`;
    case 'additionalProperties': return `${field} is not a known field`;
    case 'enum': return `${field} must be one of: ${(err.params as { allowedValues: unknown[] }).allowedValues.join(', ')}`;
    case 'format':
      if ((err.params as { format: string }).format === 'css-selector') return `${field} is not a valid CSS selector`;
      return `${field} ${err.message ?? 'is invalid'}`;
    case 'type':
      if (field === '(body)') return 'the request body must be a JSON object';
      return `${field} must be of type ${(err.params as { type: string }).type}`;
    default: return `${field} ${err.message ?? 'is invalid'}`;
  }
}

/**
 * Picks the most useful message. Union schemas (waitFor, actions) report one error per
 * branch plus an `anyOf`; the deepest non-union error is the one a user can act on.
 */
/**
 * For a union discriminated by `type` (actions), drop the errors of every branch whose
 * `type` did not match: what is left are the errors of the branch the client meant.
 */
function matchingBranchErrors(errors: ErrorObject[]): ErrorObject[] {
  const wrongBranches = errors
    .map((e) => /^(.*\/anyOf\/\d+)\/properties\/type\/const$/.exec(e.schemaPath)?.[1])
    .filter((p): p is string => Boolean(p));
  if (wrongBranches.length === 0) return errors;
  const kept = errors.filter((e) => !wrongBranches.some((prefix) => e.schemaPath.startsWith(`${prefix}/`)));
  return kept.some((e) => e.keyword !== 'anyOf') ? kept : errors;
}

export function toValidationError(all: ErrorObject[], httpPart: string): ValidationError {
  const errors = matchingBranchErrors(all);
  const specific = errors.filter((e) => e.keyword !== 'anyOf' && e.keyword !== 'oneOf' && e.keyword !== 'const' && e.keyword !== 'if');
  const ranked = (specific.length ? specific : errors).slice().sort((a, b) => fieldOf(b).split('.').length - fieldOf(a).split('.').length);
  const best = ranked[0];
  if (!best) return new ValidationError(`invalid ${httpPart}`);
  // An action whose `type` is unknown fails every branch on `type`: say so plainly.
  const unionAtPath = all.find((e) => e.keyword === 'anyOf');
  if (unionAtPath && /^\/actions\/\d+$/.test(unionAtPath.instancePath) && all.some((e) => e.keyword === 'const' && e.instancePath === `${unionAtPath.instancePath}/type`)) {
    const field = fieldOf(unionAtPath);
    const typeErrors = all.filter((e) => e.keyword === 'const' && e.instancePath === `${unionAtPath.instancePath}/type`);
    const allTypesWrong = typeErrors.length >= 6;
    if (allTypesWrong) return new ValidationError(`${field}.type must be one of: wait, click, type, press, scroll, screenshot`, `${field}.type`);
  }
  const where = httpPart === 'querystring' ? 'query parameter ' : '';
  return new ValidationError(`${where}${describe(best)}`, fieldOf(best));
}
