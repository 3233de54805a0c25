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
  return write(value, []);
}

/**
 * The fingerprint, or undefined for a value that has none (a function, a cycle).
 *
 * @example
 * safeFingerprint(() => 1) // undefined
 */
export function safeFingerprint(value: unknown): string | undefined {
  try {
    return fingerprint(value);
  } catch {
    return undefined;
  }
}

/**
 * Whether two values have one fingerprint (false when either has none).
 *
 * @example
 * sameFingerprint({ a: 1, b: 2 }, { b: 2, a: 1 }) // true
 */
export function sameFingerprint(left: unknown, right: unknown): boolean {
  const print = safeFingerprint(left);
  return print !== undefined && print === safeFingerprint(right);
}

/** Thrown for values that have no stable meaning as data: functions, symbols, cycles. */
export class FingerprintError extends TypeError {
  constructor(message: string) {
    super(message);
    this.name = 'FingerprintError';
  }
}

const MAX_DEPTH = 256;

// Strings are built by concatenation: V8 joins them as ropes, which measured
// faster here than collecting parts and joining them.
function write(value: unknown, ancestors: object[]): string {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      if (Number.isFinite(value)) return Object.is(value, -0) ? '!-0' : String(value);
      return `!${String(value)}`;
    case 'boolean':
      return value ? 'true' : 'false';
    case 'undefined':
      return '!undefined';
    case 'bigint':
      return `!bigint:${value.toString()}`;
    case 'function':
    case 'symbol':
      throw new FingerprintError(`a ${typeof value} cannot be part of an approval payload`);
  }
  if (value === null) return 'null';
  const object = value as object;
  // Ancestors, not every object seen: a value shared by two branches is no cycle.
  if (ancestors.includes(object)) throw new FingerprintError('an approval payload cannot contain a cycle');
  if (ancestors.length >= MAX_DEPTH) throw new FingerprintError(`an approval payload cannot nest deeper than ${MAX_DEPTH}`);
  ancestors.push(object);
  try {
    return Object.getPrototypeOf(object) === Object.prototype ? writeProperties(object, '{', ancestors) : writeObject(object, ancestors);
  } finally {
    ancestors.pop();
  }
}

function writeObject(object: object, seen: object[]): string {
  if (Array.isArray(object)) {
    let text = '[';
    for (let index = 0; index < object.length; index++) {
      if (index > 0) text += ',';
      // Holes read as undefined, which differs from null.
      text += write(object[index], seen);
    }
    return `${text}]`;
  }
  if (object instanceof Date) {
    return `!Date:${Number.isNaN(object.getTime()) ? 'invalid' : object.toISOString()}`;
  }
  if (ArrayBuffer.isView(object)) {
    return `!${object.constructor.name}:${hex(new Uint8Array(object.buffer, object.byteOffset, object.byteLength))}`;
  }
  if (object instanceof Map) {
    const entries = [...object.entries()].map(([key, member]) => [write(key, seen), member] as const);
    entries.sort((left, right) => compare(left[0], right[0]));
    let text = '!Map{';
    entries.forEach(([key, member], index) => {
      if (index > 0) text += ',';
      text += `${key}:${write(member, seen)}`;
    });
    return `${text}}`;
  }
  if (object instanceof Set) {
    const members = [...object].map((member) => write(member, seen)).sort(compare);
    return `!Set[${members.join(',')}]`;
  }
  if (object instanceof ArrayBuffer) return `!ArrayBuffer:${hex(new Uint8Array(object))}`;
  if (object instanceof RegExp) return `!RegExp:${JSON.stringify(object.source)}/${object.flags}`;
  if (typeof URL !== 'undefined' && object instanceof URL) return `!URL:${JSON.stringify(object.href)}`;
  if (object instanceof Number || object instanceof String || object instanceof Boolean) {
    return `!${object.constructor.name}(${write(object.valueOf(), seen)})`;
  }
  if (Object.getPrototypeOf(object) === null) return writeProperties(object, '!null{', seen);
  // Any other class instance may keep its state where keys cannot see it
  // (internal slots, private fields): two different ones could look equal.
  throw new FingerprintError(
    `a ${object.constructor?.name ?? 'class instance'} cannot be part of an approval payload: use plain data (objects, arrays, strings, numbers)`,
  );
}

function hex(bytes: Uint8Array): string {
  let text = '';
  for (const byte of bytes) text += byte.toString(16).padStart(2, '0');
  return text;
}

function writeProperties(object: object, opening: string, seen: object[]): string {
  let text = opening;
  const keys = Object.keys(object);
  if (keys.length > 1) keys.sort(compare);
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index]!;
    if (index > 0) text += ',';
    text += `${JSON.stringify(key)}:${write((object as Record<string, unknown>)[key], seen)}`;
  }
  return `${text}}`;
}

/** Code-unit order: the same on every machine and locale. */
function compare(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}
