/**
 * A canonical, type-preserving serialisation of an approval payload: equal
 * payloads give equal strings whatever their key order, and payloads that
 * differ in type (`"1"` and `1`, `0` and `-0`, `null` and a missing key) give
 * different strings.
 *
 * Why not `JSON.stringify(value, sortedKeys)`: it is not type-preserving
 * (`NaN`, `Infinity` and `null` all print `null`; `undefined` members vanish;
 * a `Date` and its ISO string print the same) and it follows `toJSON`, which a
 * payload can use to lie about itself. Values JSON cannot express are written
 * with a `!` tag outside any string, so no JSON payload can collide with them.
 *
 * Own enumerable string keys are read as data: `__proto__` and `constructor`
 * are ordinary keys here, never prototype lookups.
 *
 * @example
 * fingerprint({ b: 1, a: '1' }) === fingerprint({ a: '1', b: 1 }) // true
 * fingerprint({ a: 1 }) === fingerprint({ a: '1' })               // false
 */
export function fingerprint(value: unknown): string {
  const parts: string[] = [];
  write(value, parts, new Set());
  return parts.join('');
}

/** Thrown for values that have no stable meaning as data: functions, symbols, cycles. */
export class FingerprintError extends TypeError {
  constructor(message: string) {
    super(message);
    this.name = 'FingerprintError';
  }
}

const MAX_DEPTH = 256;

function write(value: unknown, parts: string[], seen: Set<object>): void {
  switch (typeof value) {
    case 'string':
      parts.push(JSON.stringify(value));
      return;
    case 'number':
      if (Number.isFinite(value)) parts.push(Object.is(value, -0) ? '!-0' : String(value));
      else parts.push(`!${String(value)}`);
      return;
    case 'boolean':
      parts.push(value ? 'true' : 'false');
      return;
    case 'undefined':
      parts.push('!undefined');
      return;
    case 'bigint':
      parts.push(`!bigint:${value.toString()}`);
      return;
    case 'function':
    case 'symbol':
      throw new FingerprintError(`a ${typeof value} cannot be part of an approval payload`);
  }
  if (value === null) {
    parts.push('null');
    return;
  }
  const object = value as object;
  if (seen.has(object)) throw new FingerprintError('an approval payload cannot contain a cycle');
  if (seen.size >= MAX_DEPTH) throw new FingerprintError(`an approval payload cannot nest deeper than ${MAX_DEPTH}`);
  seen.add(object);
  try {
    writeObject(object, parts, seen);
  } finally {
    seen.delete(object);
  }
}

function writeObject(object: object, parts: string[], seen: Set<object>): void {
  if (Array.isArray(object)) {
    parts.push('[');
    for (let index = 0; index < object.length; index++) {
      if (index > 0) parts.push(',');
      // Holes and undefined differ from null, and from each other only in ways no tool sees.
      write(object[index], parts, seen);
    }
    parts.push(']');
    return;
  }
  if (object instanceof Date) {
    parts.push(`!Date:${Number.isNaN(object.getTime()) ? 'invalid' : object.toISOString()}`);
    return;
  }
  if (ArrayBuffer.isView(object)) {
    const bytes = new Uint8Array(object.buffer, object.byteOffset, object.byteLength);
    parts.push(`!${object.constructor.name}:`);
    for (const byte of bytes) parts.push(byte.toString(16).padStart(2, '0'));
    return;
  }
  if (object instanceof Map) {
    const entries = [...object.entries()].map(([key, member]) => [fingerprint(key), member] as const);
    entries.sort((left, right) => compare(left[0], right[0]));
    parts.push('!Map{');
    entries.forEach(([key, member], index) => {
      if (index > 0) parts.push(',');
      parts.push(key, ':');
      write(member, parts, seen);
    });
    parts.push('}');
    return;
  }
  if (object instanceof Set) {
    const members = [...object].map((member) => fingerprint(member)).sort(compare);
    parts.push('!Set[', members.join(','), ']');
    return;
  }
  const prototype = Object.getPrototypeOf(object);
  if (prototype !== Object.prototype && prototype !== null) {
    // A class instance: its class is part of what it is.
    parts.push(`!${String(prototype?.constructor?.name ?? 'Object')}`);
  }
  const keys = Object.keys(object).sort(compare);
  parts.push('{');
  keys.forEach((key, index) => {
    if (index > 0) parts.push(',');
    parts.push(JSON.stringify(key), ':');
    write((object as Record<string, unknown>)[key], parts, seen);
  });
  parts.push('}');
}

/** Code-unit order: the same on every machine and locale. */
function compare(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}
