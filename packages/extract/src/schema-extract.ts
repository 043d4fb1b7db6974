// The `extract` format: evaluates an extraction schema (shared/src/domain/extract-schema.ts) on the
// page's final DOM, before any clean-up (so selectors see the page as the user sees it in
// DevTools, scripts' output included). Pure and synchronous, run in the transform worker.
//
// Value rules (docs/api.md "extract"):
//   - a field without `list` takes the first match; nothing matched, or an empty value -> `default` ?? null;
//   - `list: true` takes every match in document order (empty values left out), at most maxItems;
//   - `required: true` on a missing value makes the enclosing object null, and a null object
//     is left out of its list (the way to skip ad tiles in a product grid);
//   - text is textContent with whitespace collapsed; html the trimmed innerHTML;
//   - url reads `attribute` (else href, then src) and resolves it against <base href> or the
//     page URL; anything but http(s) (javascript:, mailto:, data:) is null;
//   - number parses the text (or `attribute`), see parseNumber;
//   - boolean is whether the selector matched (and the element has `attribute`, when given).
// Output is bounded by MAX_EXTRACT_OUTPUT_CHARS (text summed) and MAX_EXTRACT_OUTPUT_ITEMS
// (list items summed, empty objects included): past either, lists stop and strings are
// cut, and the caller marks metadata.extractTruncated.
import {
  DEFAULT_EXTRACT_ITEMS, MAX_EXTRACT_OUTPUT_CHARS, MAX_EXTRACT_OUTPUT_ITEMS, type ExtractField, type ExtractSchemaInput,
} from '../../../shared/src/domain/extract-schema.js';
import { resolveHttpUrl, selectAll } from './dom.js';

export interface ExtractResult {
  json: unknown;
  truncated: boolean;
}

type Value = string | number | boolean | null | Value[] | { [key: string]: Value };

class Budget {
  left: number;
  itemsLeft: number;
  truncated = false;
  constructor(chars: number, items: number) {
    this.left = chars;
    this.itemsLeft = items;
  }
  /** Takes one list item from the budget; false (and truncated) when none is left. */
  takeItem(): boolean {
    if (this.itemsLeft <= 0 || this.left <= 0) {
      this.truncated = true;
      return false;
    }
    this.itemsLeft -= 1;
    return true;
  }
  /** Takes a string's length from the budget; cuts the string when it does not fit. */
  take(text: string): string {
    if (text.length <= this.left) {
      this.left -= text.length;
      return text;
    }
    this.truncated = true;
    const cut = text.slice(0, Math.max(0, this.left));
    this.left = 0;
    return cut;
  }
}

export function extractJson(document: Document, schema: ExtractSchemaInput, base: URL, maxChars = MAX_EXTRACT_OUTPUT_CHARS, maxItems = MAX_EXTRACT_OUTPUT_ITEMS): ExtractResult {
  const budget = new Budget(maxChars, maxItems);
  const evaluator = new Evaluator(base, budget);
  const root = document.documentElement;
  let json: Value;
  if (schema.baseSelector !== undefined) {
    const items: Value[] = [];
    for (const el of selectAll(root, schema.baseSelector, 'extract.schema.baseSelector').slice(0, schema.maxItems ?? DEFAULT_EXTRACT_ITEMS)) {
      if (!budget.takeItem()) break;
      const item = evaluator.object(el, schema.fields, 'extract.schema.fields');
      if (item !== null) items.push(item);
    }
    json = items;
  } else {
    json = evaluator.object(root, schema.fields, 'extract.schema.fields');
  }
  return { json, truncated: budget.truncated };
}

class Evaluator {
  constructor(private readonly base: URL, private readonly budget: Budget) {}

  /** The fields evaluated inside `scope`; null when a required field is missing. */
  object(scope: Element, fields: Record<string, ExtractField>, path: string): Value {
    const entries: Array<[string, Value]> = [];
    for (const [name, field] of Object.entries(fields)) {
      const value = this.field(scope, field, `${path}.${name}`);
      if ((value === null || (Array.isArray(value) && value.length === 0)) && field.required) return null;
      entries.push([name, value]);
    }
    // fromEntries defines own properties: a field named "__proto__" is a key like any other.
    return Object.fromEntries(entries);
  }

  private field(scope: Element, field: ExtractField, path: string): Value {
    const type = field.type ?? 'text';
    if (field.list) {
      const matches = field.selector === undefined ? [scope] : selectAll(scope, field.selector, `${path}.selector`);
      const values: Value[] = [];
      for (const el of matches.slice(0, field.maxItems ?? DEFAULT_EXTRACT_ITEMS)) {
        if (!this.budget.takeItem()) break;
        const value = this.value(el, field, path);
        if (value !== null) values.push(value);
      }
      return values;
    }
    const el = field.selector === undefined ? scope : scope.querySelector(field.selector);
    if (type === 'boolean') return !!el && (field.attribute === undefined || el.hasAttribute(field.attribute));
    const value = el ? this.value(el, field, path) : null;
    return value ?? field.default ?? null;
  }

  private value(el: Element, field: ExtractField, path: string): Value {
    switch (field.type ?? 'text') {
      case 'text':
        return this.string(collapse(el.textContent));
      case 'html':
        return this.string(el.innerHTML.trim());
      case 'attribute':
        return this.string(el.getAttribute(field.attribute!)?.trim() ?? '');
      case 'url': {
        const raw = field.attribute !== undefined ? el.getAttribute(field.attribute) : (el.getAttribute('href') ?? el.getAttribute('src'));
        const url = raw ? resolveHttpUrl(raw, this.base) : undefined;
        return url ? this.string(url.href) : null;
      }
      case 'number':
        return parseNumber(field.attribute !== undefined ? (el.getAttribute(field.attribute) ?? '') : (el.textContent ?? ''));
      case 'boolean':
        return field.attribute === undefined || el.hasAttribute(field.attribute);
      case 'object':
        return this.object(el, field.fields ?? {}, `${path}.fields`);
    }
  }

  private string(text: string): string | null {
    return text ? this.budget.take(text) : null;
  }
}

function collapse(text: string | null | undefined): string {
  return (text ?? '').replace(/\s+/g, ' ').trim();
}

/**
 * The first number in a text, with the grouping and decimal conventions of prices:
 * "$1,299.99" -> 1299.99, "1.299,99 €" -> 1299.99, "12,50" -> 12.5, "1 234" -> 1234, "10 12" -> 10,
 * "-3" -> -3, "1,234" -> 1234 (a lone comma before exactly three digits groups thousands),
 * "1.5" -> 1.5 (a lone dot is a decimal point). No digits: null.
 */
export function parseNumber(text: string): number | null {
  // Spaces and apostrophes group digits only before exactly three digits ("1 234", "1'234"),
  // so "sizes 10 12" is 10, not 1012.
  const match = /([-+\u2212]?)(\d{1,3}(?:['\u00a0\u202f ]\d{3})+(?:[.,]\d+)?(?!\d)|\d[\d.,]*)/.exec(text);
  if (!match) return null;
  const sign = match[1] === '-' || match[1] === '\u2212' ? -1 : 1;
  const digits = match[2]!.replace(/['\u00a0\u202f ]/g, '').replace(/[.,]+$/, '');
  const lastDot = digits.lastIndexOf('.');
  const lastComma = digits.lastIndexOf(',');
  let decimal: '.' | ',' | null = null;
  if (lastDot >= 0 && lastComma >= 0) decimal = lastDot > lastComma ? '.' : ',';
  else if (lastComma >= 0) decimal = digits.split(',').length === 2 && digits.length - lastComma - 1 !== 3 ? ',' : null;
  else if (lastDot >= 0) decimal = digits.split('.').length === 2 ? '.' : null;
  const grouping = decimal === ',' ? '.' : decimal === '.' ? ',' : /[.,]/;
  let normalized = digits.split(grouping).join('');
  if (decimal === null) normalized = normalized.replace(/[.,]/g, '');
  else if (decimal === ',') normalized = normalized.replace(',', '.');
  const value = Number(normalized);
  return Number.isFinite(value) ? sign * value : null;
}
