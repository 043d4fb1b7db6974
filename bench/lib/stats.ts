// Summary statistics for the benchmark report. Percentiles use the nearest-rank method
// (the value of an actual sample, never an interpolation), which is what "p95 of 30
// scrapes" means to a reader: the 29th slowest of 30.

/** Nearest-rank percentile (p in 0..100) of the samples; NaN when there are none. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  if (p < 0 || p > 100) throw new RangeError(`percentile must be within 0..100, got ${p}`);
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1]!;
}

export function median(samples: readonly number[]): number {
  return percentile(samples, 50);
}

export function mean(samples: readonly number[]): number {
  if (samples.length === 0) return Number.NaN;
  return samples.reduce((a, b) => a + b, 0) / samples.length;
}

/** Medians of each numeric field over a list of records (fields missing in a record are skipped). */
export function medianOfFields<K extends string>(records: readonly Partial<Record<K, number>>[], fields: readonly K[]): Record<K, number> {
  const out = {} as Record<K, number>;
  for (const field of fields) {
    const values = records.map((r) => r[field]).filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
    out[field] = median(values);
  }
  return out;
}

/** Rounds for display: integers above 100, one decimal above 10, two below. */
export function round(value: number): number {
  if (!Number.isFinite(value)) return value;
  const abs = Math.abs(value);
  if (abs >= 100) return Math.round(value);
  if (abs >= 10) return Math.round(value * 10) / 10;
  return Math.round(value * 100) / 100;
}
