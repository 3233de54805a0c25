/**
 * How many asks each person decided in the last hour, for the policy's
 * attention budget (`attention.asks_per_hour`): the inbox gathers asks of
 * the same kind on one card once a person is past it, and the rest wait.
 * Kept in this server's memory (a restart starts the hour afresh; servers
 * sharing a store each count the decisions made through them).
 */
const HOUR_MS = 3_600_000;
/** Decisions remembered per person: past a budget this large, the count only says "past it". */
const MAX_KEPT = 10_000;

export interface AttentionMeter {
  /** One decision by `name`. */
  decided(name: string): void;
  /** `name`'s decisions in the hour before now. */
  lastHour(name: string): number;
}

/**
 * @example
 * const meter = createAttentionMeter();
 * meter.decided('alice');
 * meter.lastHour('alice') // 1
 */
export function createAttentionMeter(options: { now?: () => number } = {}): AttentionMeter {
  const now = options.now ?? Date.now;
  const times = new Map<string, number[]>();
  const prune = (name: string): number[] => {
    const kept = (times.get(name) ?? []).filter((time) => time > now() - HOUR_MS);
    if (kept.length === 0) times.delete(name);
    else times.set(name, kept);
    return kept;
  };
  return {
    decided(name) {
      const kept = prune(name);
      kept.push(now());
      if (kept.length > MAX_KEPT) kept.shift();
      times.set(name, kept);
    },
    lastHour: (name) => prune(name).length,
  };
}
