/** Latency percentiles, in microseconds. */
export interface LatencySummary {
  count: number;
  p50_us: number | null;
  p99_us: number | null;
}

/** What the gateway measures about itself (for benchmarks and `--stats-file`). */
export interface GatewayStatsSnapshot {
  /** Calls forwarded upstream. */
  forwarded: number;
  /** Calls refused (blocked, denied, unknown). */
  refused: number;
  /** Calls that failed upstream (crash, timeout, bad response). */
  failed: number;
  /**
   * Time inside the gateway from receiving a call to forwarding it (the gate's
   * verdict, memory, audit), for calls no person was asked about.
   */
  beforeForward: LatencySummary;
  /**
   * With the durable audit log: time a call's answer waited, after the server
   * answered, for its records to be fdatasync'ed (0 when the sync finished
   * while the server worked).
   */
  heldUntilDurable: LatencySummary;
}

const WINDOW = 16_384;

/**
 * Counters and a window of the most recent samples; cheap enough to stay on
 * in production (two array writes per call).
 *
 * @example
 * const stats = createGatewayStats();
 * stats.sample('beforeForward', 0.042);
 * stats.snapshot().beforeForward.p50_us // 42
 */
export function createGatewayStats() {
  const counters = { forwarded: 0, refused: 0, failed: 0 };
  const windows = { beforeForward: new Float64Array(WINDOW), heldUntilDurable: new Float64Array(WINDOW) };
  const counts = { beforeForward: 0, heldUntilDurable: 0 };
  return {
    count(what: keyof typeof counters): void {
      counters[what] += 1;
    },
    /** `ms` in milliseconds (performance.now() differences). */
    sample(what: keyof typeof windows, ms: number): void {
      windows[what][counts[what] % WINDOW] = ms;
      counts[what] += 1;
    },
    snapshot(): GatewayStatsSnapshot {
      return {
        ...counters,
        beforeForward: summarize(windows.beforeForward, counts.beforeForward),
        heldUntilDurable: summarize(windows.heldUntilDurable, counts.heldUntilDurable),
      };
    },
  };
}

export type GatewayStats = ReturnType<typeof createGatewayStats>;

function summarize(window: Float64Array, count: number): LatencySummary {
  const sorted = window.slice(0, Math.min(count, WINDOW)).sort();
  const at = (fraction: number) => (sorted.length === 0 ? null : Math.round(sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)]! * 1000 * 10) / 10);
  return { count, p50_us: at(0.5), p99_us: at(0.99) };
}
