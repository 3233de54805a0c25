/** The text that replaces a redacted value. */
export const REDACTED = '[REDACTED]';

/**
 * A copy of `value` with the values of sensitive keys replaced, at any depth.
 * A key matches when, compared without case, `-` and `_`, it equals or
 * contains one of `keys` (`X-Api-Key` matches `api_key`).
 * Never mutates its input.
 *
 * @example
 * redact({ user: 'a', password: 'p' }, new Set(['password'])) // { user: 'a', password: '[REDACTED]' }
 */
export function redact(value: unknown, keys: ReadonlySet<string>): unknown {
  if (keys.size === 0 || value === null || typeof value !== 'object') return value;
  return redactDeep(value, normalizedKeys(keys), 0);
}

const normalized = new WeakMap<ReadonlySet<string>, ReadonlySet<string>>();

/** Keys compare case-insensitively and without `-`/`_`, however the caller spelled them. */
function normalizedKeys(keys: ReadonlySet<string>): ReadonlySet<string> {
  let result = normalized.get(keys);
  if (result === undefined) {
    result = new Set([...keys].map((key) => key.toLowerCase().replace(/[-_]/g, '')));
    normalized.set(keys, result);
  }
  return result;
}

function redactDeep(value: unknown, keys: ReadonlySet<string>, depth: number): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (depth > 64) return REDACTED;
  if (Array.isArray(value)) return value.map((member) => redactDeep(member, keys, depth + 1));
  const result: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const member = (value as Record<string, unknown>)[key];
    // defineProperty, not assignment: a `__proto__` key stays data.
    Object.defineProperty(result, key, {
      value: isSensitive(key, keys) ? REDACTED : redactDeep(member, keys, depth + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return result;
}

function isSensitive(key: string, keys: ReadonlySet<string>): boolean {
  const squashed = key.toLowerCase().replace(/[-_]/g, '');
  if (keys.has(squashed)) return true;
  for (const sensitive of keys) {
    if (squashed.includes(sensitive)) return true;
  }
  return false;
}
