// Renders a Helm chart the way `helm template` does, for the chart tests: values.yaml
// coalesced with override files (maps merge, lists replace, null deletes), every file in
// templates/ parsed into one set so `define`s are shared, files starting with "_" not
// rendered, "<no value>" blanked, and the sprig/Helm functions the Trawl chart uses.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { isMap, printValue, TemplateError, TemplateSet, truth, type Func, type Value } from './gotemplate.js';

export interface RenderOptions {
  releaseName?: string;
  namespace?: string;
  /** Extra values files, applied in order after the chart's values.yaml. */
  valuesFiles?: string[];
  /** Values applied last (like --set, but structured). */
  values?: Record<string, unknown>;
}

export interface Rendered {
  /** Rendered output per template file (chart/templates/<file>), empty ones included. */
  files: Map<string, string>;
  /** Every non-empty YAML document of every manifest file, NOTES.txt excluded. */
  manifests: Array<Record<string, any>>;
  notes: string;
}

/** Helm's coalesce for override values: maps merge key by key, null deletes a key. */
export function mergeValues(base: Record<string, unknown>, override: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(override)) {
    if (value === null) delete out[key];
    else if (isMap(value) && isMap(out[key])) out[key] = mergeValues(out[key] as Record<string, unknown>, value);
    else out[key] = value;
  }
  return out;
}

function str(v: Value): string {
  if (v == null) return '';
  return typeof v === 'string' ? v : printValue(v);
}

function toInt(v: Value): bigint {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number') return BigInt(Math.trunc(v));
  if (typeof v === 'boolean') return v ? 1n : 0n;
  if (typeof v === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(v)) return BigInt(Math.trunc(Number(v)));
  return 0n;
}

function num(v: Value): number {
  return typeof v === 'bigint' ? Number(v) : Number(v);
}

/** Plain JSON-like data for the YAML writer (bigint -> number). */
function plain(v: Value): unknown {
  if (typeof v === 'bigint') return Number(v);
  if (Array.isArray(v)) return v.map(plain);
  if (isMap(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]));
  return v;
}

/** Go's %q for the strings charts quote (JSON escapes agree for the printable range). */
function goQuote(s: string): string {
  return JSON.stringify(s);
}

function sprintf(format: string, args: Value[]): string {
  let n = 0;
  return format.replace(/%([-+# 0]*\d*(?:\.\d+)?)([sdvqt%])/g, (_m, _flags: string, verb: string) => {
    if (verb === '%') return '%';
    const arg = args[n++];
    if (verb === 'q') return goQuote(str(arg));
    if (verb === 'd') return toInt(arg).toString();
    return str(arg);
  });
}

function helmFuncs(set: () => TemplateSet): Record<string, Func> {
  return {
    include: (name, data) => set().execute(str(name), data),
    tpl: () => { throw new TemplateError('tpl is not supported by helm-lite'); },
    required: (message, value) => {
      if (value == null || value === '') throw new TemplateError(str(message));
      return value;
    },
    fail: (message) => { throw new TemplateError(str(message)); },
    toYaml: (v) => (v == null ? 'null' : stringify(plain(v), { sortMapEntries: true, indentSeq: false, lineWidth: 0 }).replace(/\n$/, '')),
    fromYaml: (s) => parse(str(s)) as Value,
    indent: (n, s) => { const pad = ' '.repeat(Number(n)); return pad + str(s).replaceAll('\n', `\n${pad}`); },
    nindent: (n, s) => { const pad = ' '.repeat(Number(n)); return `\n${pad}${str(s).replaceAll('\n', `\n${pad}`)}`; },
    quote: (...args) => args.filter((a) => a != null).map((a) => goQuote(str(a))).join(' '),
    squote: (...args) => args.filter((a) => a != null).map((a) => `'${str(a)}'`).join(' '),
    default: (...args) => { const given = args.length > 1 ? args[args.length - 1] : undefined; return truth(given) ? given : args[0]; },
    empty: (v) => !truth(v),
    coalesce: (...args) => args.find(truth),
    ternary: (a, b, cond) => (truth(cond) ? a : b),
    printf: (format, ...args) => sprintf(str(format), args),
    print: (...args) => args.map((a, i) => (i > 0 && typeof a !== 'string' && typeof args[i - 1] !== 'string' ? ' ' : '') + str(a)).join(''),
    toString: (v: Value) => str(v),
    trunc: (n, s) => { const c = Number(n); const text = str(s); return c >= 0 ? text.slice(0, c) : text.slice(c); },
    trim: (s) => str(s).trim(),
    trimSuffix: (suffix, s) => (str(s).endsWith(str(suffix)) ? str(s).slice(0, -str(suffix).length || undefined) : str(s)),
    trimPrefix: (prefix, s) => (str(s).startsWith(str(prefix)) ? str(s).slice(str(prefix).length) : str(s)),
    contains: (sub, s) => str(s).includes(str(sub)),
    hasPrefix: (prefix, s) => str(s).startsWith(str(prefix)),
    hasSuffix: (suffix, s) => str(s).endsWith(str(suffix)),
    replace: (from, to, s) => str(s).replaceAll(str(from), str(to)),
    lower: (s) => str(s).toLowerCase(),
    upper: (s) => str(s).toUpperCase(),
    int: toInt,
    int64: toInt,
    add: (...args) => args.reduce<bigint>((a, b) => a + toInt(b), 0n),
    len: (v) => BigInt(Array.isArray(v) || typeof v === 'string' ? v.length : isMap(v) ? Object.keys(v).length : 0),
    dict: (...args) => { const d: Record<string, Value> = {}; for (let i = 0; i < args.length; i += 2) d[str(args[i])] = args[i + 1]; return d; },
    list: (...args) => args,
    until: (n) => Array.from({ length: Number(toInt(n)) }, (_, i) => BigInt(i)),
    set: (d, k, v) => { (d as Record<string, Value>)[str(k)] = v; return d; },
    hasKey: (d, k) => isMap(d) && Object.hasOwn(d, str(k)),
    has: (needle, haystack) => Array.isArray(haystack) && haystack.some((x) => x === needle),
    index: (coll, ...keys) => keys.reduce<Value>((c, k) => {
      if (Array.isArray(c)) { const i = Number(k); if (i < 0 || i >= c.length) throw new TemplateError(`index out of range: ${i}`); return c[i]; }
      if (isMap(c)) return c[str(k)];
      if (c == null) return undefined;
      throw new TemplateError(`can't index item of type ${typeof c}`);
    }, coll),
    not: (v) => !truth(v),
    eq: (a, ...bs) => bs.some((b) => (typeof a === 'bigint' || typeof b === 'bigint' ? num(a) === num(b) : a === b)),
    ne: (a, b) => (typeof a === 'bigint' || typeof b === 'bigint' ? num(a) !== num(b) : a !== b),
    lt: (a, b) => num(a) < num(b),
    le: (a, b) => num(a) <= num(b),
    gt: (a, b) => num(a) > num(b),
    ge: (a, b) => num(a) >= num(b),
    sha256sum: (s) => createHash('sha256').update(str(s)).digest('hex'),
    b64enc: (s) => Buffer.from(str(s)).toString('base64'),
  };
}

export interface Chart {
  dir: string;
  name: string;
  metadata: Record<string, any>;
  values: Record<string, unknown>;
  templates: Map<string, string>;
}

export function loadChart(dir: string): Chart {
  const metadata = parse(fs.readFileSync(path.join(dir, 'Chart.yaml'), 'utf8')) as Record<string, any>;
  const values = (parse(fs.readFileSync(path.join(dir, 'values.yaml'), 'utf8')) ?? {}) as Record<string, unknown>;
  const templates = new Map<string, string>();
  for (const file of fs.readdirSync(path.join(dir, 'templates')).sort()) {
    templates.set(`${metadata.name}/templates/${file}`, fs.readFileSync(path.join(dir, 'templates', file), 'utf8'));
  }
  return { dir, name: String(metadata.name), metadata, values, templates };
}

export function renderChart(chart: Chart, options: RenderOptions = {}): Rendered {
  let values = chart.values;
  for (const file of options.valuesFiles ?? []) {
    values = mergeValues(values, (parse(fs.readFileSync(file, 'utf8')) ?? {}) as Record<string, unknown>);
  }
  if (options.values) values = mergeValues(values, options.values);

  let set: TemplateSet | undefined;
  set = new TemplateSet(helmFuncs(() => set!));
  for (const [name, source] of chart.templates) set.parse(name, source);

  const top = {
    Values: values,
    Release: { Name: options.releaseName ?? 'trawl', Namespace: options.namespace ?? 'default', Service: 'Helm', IsInstall: true, IsUpgrade: false, Revision: 1 },
    Chart: { Name: chart.metadata.name, Version: chart.metadata.version, AppVersion: chart.metadata.appVersion },
    Capabilities: { KubeVersion: { Version: 'v1.31.0', Major: '1', Minor: '31' } },
  };
  const files = new Map<string, string>();
  const manifests: Array<Record<string, any>> = [];
  let notes = '';
  for (const name of chart.templates.keys()) {
    if (path.basename(name).startsWith('_')) continue;
    const output = set.execute(name, { ...top, Template: { Name: name, BasePath: `${chart.name}/templates` } }).replaceAll('<no value>', '');
    files.set(name, output);
    if (name.endsWith('/NOTES.txt')) { notes = output; continue; }
    for (const doc of parseAllDocuments(output)) {
      if (doc.errors.length) throw new Error(`${name}: invalid YAML: ${doc.errors[0]!.message}\n${output}`);
      const js = doc.toJS() as unknown;
      if (js != null) manifests.push(js as Record<string, any>);
    }
  }
  return { files, manifests, notes };
}
