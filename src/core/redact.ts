/** The text that replaces a redacted value. */
export const REDACTED = '[REDACTED]';

/**
 * A copy of `value` with the values of sensitive keys replaced, at any depth.
 * `keys` are lower-case; a key matches when it equals one of them or
 * contains it after removing `-` and `_` (`X-Api-Key` matches `api_key`).
 * Never mutates its input.
 *
 * @example
 * redact({ user: 'a', password: 'p' }, new Set(['password'])) // { user: 'a', password: '[REDACTED]' }
 */
export function redact(value: unknown, keys: ReadonlySet<string>, depth = 0): unknown {
  if (keys.size === 0 || value === null || typeof value !== 'object') return value;
  if (depth > 64) return REDACTED;
  if (Array.isArray(value)) return value.map((member) => redact(member, keys, depth + 1));
  const result: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const member = (value as Record<string, unknown>)[key];
    // defineProperty, not assignment: a `__proto__` key stays data.
    Object.defineProperty(result, key, {
      value: isSensitive(key, keys) ? REDACTED : redact(member, keys, depth + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return result;
}

function isSensitive(key: string, keys: ReadonlySet<string>): boolean {
  const lower = key.toLowerCase();
  if (keys.has(lower)) return true;
  const squashed = lower.replace(/[-_]/g, '');
  for (const sensitive of keys) {
    if (squashed.includes(sensitive.replace(/[-_]/g, ''))) return true;
  }
  return false;
}
