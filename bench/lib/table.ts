// The report: one row per measured figure, with the baseline measured in the same run and
// the ratio where there is one. Printed as a Markdown table (so it pastes into
// docs/benchmarks.md as it is) and kept as data in bench/results.json.
import { round } from './stats.js';

export interface Row {
  /** Benchmark number and name, e.g. "1. Scrape latency". */
  bench: string;
  metric: string;
  /** A number, or a text such as "n/a (endpoint missing)". */
  value: number | string;
  unit?: string;
  baseline?: number;
  /** value / baseline, set by row() when both are numbers. */
  ratio?: number;
  note?: string;
}

export function row(bench: string, metric: string, value: number | string, extra: Omit<Row, 'bench' | 'metric' | 'value' | 'ratio'> = {}): Row {
  const out: Row = { bench, metric, value, ...extra };
  if (typeof value === 'number' && typeof extra.baseline === 'number' && extra.baseline > 0) out.ratio = value / extra.baseline;
  return out;
}

export function missing(bench: string, what = 'endpoint missing'): Row {
  return { bench, metric: '-', value: `n/a (${what})` };
}

function show(value: number | string | undefined, unit?: string): string {
  if (value === undefined) return '';
  if (typeof value === 'string') return value;
  if (!Number.isFinite(value)) return 'n/a';
  return unit ? `${round(value)} ${unit}` : String(round(value));
}

const escapeCell = (s: string): string => s.replaceAll('|', '\\|');

export function formatTable(rows: readonly Row[]): string {
  const header = ['Benchmark', 'Metric', 'Trawl', 'Baseline', 'Ratio', 'Note'];
  const cells = rows.map((r, i) => [
    i > 0 && rows[i - 1]!.bench === r.bench ? '' : r.bench,
    r.metric,
    show(r.value, r.unit),
    show(r.baseline, r.unit),
    r.ratio === undefined ? '' : `${round(r.ratio)}×`,
    r.note ?? '',
  ].map(escapeCell));
  const widths = header.map((h, c) => Math.max(h.length, ...cells.map((line) => line[c]!.length)));
  const line = (values: string[]): string => `| ${values.map((v, c) => v.padEnd(widths[c]!)).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...cells.map(line)].join('\n');
}

export const mb = (kb: number): number => kb / 1024;
