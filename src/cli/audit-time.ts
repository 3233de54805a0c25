import { UsageError } from './usage-error.ts';

const DURATION_UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
const ISO_TIME = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i;

/**
 * A --since/--until value in epoch milliseconds: an ISO date or time, or a
 * duration ago (`30m`, `2h`, `7d`). Only these shapes: `Date.parse` alone
 * would accept "March 7" or "1" and silently mean something else.
 *
 * @example
 * parseAuditTime('2h', Date.parse('2025-01-31T12:00:00Z')) // Date.parse('2025-01-31T10:00:00Z')
 * parseAuditTime('2025-01-31T12:00:00Z', Date.now())      // 1738324800000
 */
export function parseAuditTime(text: string, now: number): number {
  const trimmed = text.trim();
  const duration = /^(\d+(?:\.\d+)?)\s*([smhdw])$/.exec(trimmed);
  if (duration !== null) return now - Number(duration[1]) * DURATION_UNITS[duration[2]!]!;
  if (ISO_TIME.test(trimmed)) {
    // A bare date would be UTC midnight to Date.parse; people mean their own midnight.
    const time = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(trimmed) ? `${trimmed}T00:00` : trimmed.replace(' ', 'T'));
    if (Number.isFinite(time)) return time;
  }
  throw new UsageError(
    `${JSON.stringify(text)} is not a time: use an ISO date or time (2025-01-31, 2025-01-31T14:00:00Z) or how long ago (30m, 2h, 7d)`,
  );
}

