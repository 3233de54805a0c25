/**
 * The benchmark harness: latency samples, medians over repetitions, and one
 * row format for every suite. Ratios always compare against a baseline
 * measured in the same run, because these machines are noisy.
 */

export interface BenchContext {
  quick: boolean;
  /** A scratch directory on the same disk as the project, removed after the run. */
  scratch: string;
}

export interface BenchRow {
  suite: string;
  case: string;
  /** Median over repetitions of the per-repetition median, in microseconds. */
  p50_us: number | null;
  p99_us: number | null;
  ops_per_s: number | null;
  /** `case` against `baseline`: for latency, ours / theirs (lower is better); see `ratio_meaning`. */
  ratio: number | null;
  baseline: string | null;
  ratio_meaning?: string;
  /** What the row must reach, or null for rows that only inform; `met` says whether it did (null without a target). */
  target?: string | null;
  met?: boolean | null;
  /**
   * How far apart the repetitions behind the targeted figure were: the lowest
   * and highest per-repetition value of `of` (the figure the target is about),
   * over `repetitions` interleaved repetitions. A miss within the spread of a
   * met row is noise; outside it, it is not.
   */
  spread?: Spread | null;
  note?: string;
}

export interface Spread {
  of: string;
  low: number;
  high: number;
  repetitions: number;
}

export interface BenchSuite {
  name: string;
  run(context: BenchContext): Promise<BenchRow[]>;
}

export interface LatencyStats {
  p50_us: number;
  p99_us: number;
  ops_per_s: number;
  /** Per repetition, in order: the figures the medians above were taken of. */
  repetitions?: { p50_us: number[]; p99_us: number[]; ops_per_s: number[] };
}

/**
 * Measures `fn` (sync or async) `iterations` times per repetition after
 * `warmup` calls, and returns the median of each repetition's p50 and p99 and
 * the median throughput.
 */
export async function measure(options: {
  fn: (index: number) => unknown;
  iterations: number;
  warmup?: number;
  repetitions?: number;
}): Promise<LatencyStats> {
  const { fn, iterations } = options;
  const repetitions = options.repetitions ?? 5;
  for (let index = 0; index < (options.warmup ?? Math.min(iterations, 1000)); index++) await fn(index);
  const p50s: number[] = [];
  const p99s: number[] = [];
  const rates: number[] = [];
  const samples = new Float64Array(iterations);
  for (let repetition = 0; repetition < repetitions; repetition++) {
    const started = performance.now();
    for (let index = 0; index < iterations; index++) {
      const before = performance.now();
      const result = fn(index);
      if (result instanceof Promise) await result;
      samples[index] = performance.now() - before;
    }
    const elapsed = performance.now() - started;
    const sorted = Float64Array.from(samples).sort();
    p50s.push(percentile(sorted, 0.5) * 1000);
    p99s.push(percentile(sorted, 0.99) * 1000);
    rates.push((iterations / elapsed) * 1000);
  }
  return { p50_us: median(p50s), p99_us: median(p99s), ops_per_s: median(rates), repetitions: { p50_us: p50s, p99_us: p99s, ops_per_s: rates } };
}

/**
 * The spread of a targeted figure over its repetitions (lowest and highest).
 *
 * @example
 * spreadOf({ of: 'p50 us', values: stats.repetitions!.p50_us }) // { of: 'p50 us', low: 18.2, high: 21.4, repetitions: 5 }
 */
export function spreadOf(options: { of: string; values: readonly number[]; digits?: number }): Spread | null {
  if (options.values.length === 0) return null;
  return {
    of: options.of,
    low: round(Math.min(...options.values), options.digits ?? 3)!,
    high: round(Math.max(...options.values), options.digits ?? 3)!,
    repetitions: options.values.length,
  };
}

/**
 * Throughput only: runs `fn` in batches of `batch` calls without timing each
 * call (for operations far below a microsecond, where timer cost dominates).
 */
export async function measureThroughput(options: { fn: (index: number) => unknown; iterations: number; repetitions?: number }): Promise<number> {
  return median(await measureThroughputRepetitions(options));
}

/** `measureThroughput`'s rate of each repetition, in order. */
export async function measureThroughputRepetitions(options: { fn: (index: number) => unknown; iterations: number; repetitions?: number }): Promise<number[]> {
  const rates: number[] = [];
  for (let index = 0; index < Math.min(options.iterations, 10_000); index++) await options.fn(index);
  for (let repetition = 0; repetition < (options.repetitions ?? 5); repetition++) {
    const started = performance.now();
    for (let index = 0; index < options.iterations; index++) {
      const result = options.fn(index);
      if (result instanceof Promise) await result;
    }
    rates.push((options.iterations / (performance.now() - started)) * 1000);
  }
  return rates;
}

export function percentile(sorted: ArrayLike<number>, fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1));
  return sorted[index]!;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export function round(value: number | null, digits = 3): number | null {
  if (value === null || !Number.isFinite(value)) return null;
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}
