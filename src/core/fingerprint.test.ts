import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createInMemoryApprovalMemory, memoryKey, toolKey } from './approval-memory.ts';
import { fingerprint, FingerprintError } from './fingerprint.ts';
import type { GateContext } from './types.ts';

/** Builds an object with exactly these own keys, in this order; `__proto__` stays data. */
function objectWith(entries: readonly (readonly [string, unknown])[]): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const [key, value] of entries) {
    Object.defineProperty(result, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return result;
}

/** A deterministic permutation driven by `seed` (a small LCG). */
function permute<T>(items: readonly T[], seed: number): T[] {
  const copy = [...items];
  let state = (seed >>> 0) || 1;
  for (let index = copy.length - 1; index > 0; index--) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    const other = state % (index + 1);
    [copy[index], copy[other]] = [copy[other]!, copy[index]!];
  }
  return copy;
}

/** A deep copy of `value` whose objects list their keys in another order (at every depth). */
function shuffleKeys(value: unknown, seed: number): unknown {
  if (Array.isArray(value)) return value.map((member, index) => shuffleKeys(member, seed + index + 1));
  if (value === null || typeof value !== 'object') return value;
  const keys = permute(Object.keys(value), seed);
  return objectWith(keys.map((key, index) => [key, shuffleKeys((value as Record<string, unknown>)[key], seed * 31 + index + 7)] as const));
}

/**
 * The reference equality for JSON-like data: numbers by `Object.is` (so `0`
 * and `-0` differ), objects by their own keys whatever the order, arrays
 * element by element.
 */
function canonicalEqual(left: unknown, right: unknown): boolean {
  if (typeof left !== typeof right) return false;
  if (left === null || right === null || typeof left !== 'object') return Object.is(left, right);
  if (Array.isArray(left) !== Array.isArray(right)) return false;
  if (Array.isArray(left)) {
    const other = right as unknown[];
    return left.length === other.length && left.every((member, index) => canonicalEqual(member, other[index]));
  }
  const leftKeys = Object.keys(left).sort();
  const rightKeys = Object.keys(right as object).sort();
  if (leftKeys.length !== rightKeys.length || leftKeys.some((key, index) => key !== rightKeys[index])) return false;
  return leftKeys.every((key) => canonicalEqual((left as Record<string, unknown>)[key], (right as Record<string, unknown>)[key]));
}

const json = fc.jsonValue({ maxDepth: 4 });

describe('fingerprint: key order never matters', () => {
  it('gives the same string for any key order, at any depth (property)', () => {
    fc.assert(
      fc.property(json, fc.integer(), (value, seed) => {
        expect(fingerprint(shuffleKeys(value, seed))).toBe(fingerprint(value));
      }),
      { numRuns: 500 },
    );
  });

  it('ignores key order in hand-written nested objects', () => {
    const left = { b: 1, a: { d: [1, { y: 2, x: 1 }], c: 'x' } };
    const right = { a: { c: 'x', d: [1, { x: 1, y: 2 }] }, b: 1 };
    expect(fingerprint(left)).toBe(fingerprint(right));
  });

  it('does depend on array order', () => {
    expect(fingerprint([1, 2])).not.toBe(fingerprint([2, 1]));
    expect(fingerprint({ a: [{ x: 1 }, { y: 1 }] })).not.toBe(fingerprint({ a: [{ y: 1 }, { x: 1 }] }));
  });
});

describe('fingerprint: injective over JSON values', () => {
  it('gives equal fingerprints exactly for canonically equal values (random pairs)', () => {
    fc.assert(
      fc.property(json, json, (left, right) => {
        expect(fingerprint(left) === fingerprint(right)).toBe(canonicalEqual(left, right));
      }),
      { numRuns: 1000 },
    );
  });

  it('gives equal fingerprints exactly for canonically equal values (near-miss pairs)', () => {
    // A value next to a slightly changed copy of itself: the interesting pairs.
    const nearMiss = json.chain((value) =>
      fc.tuple(
        fc.constant(value),
        fc.oneof(
          fc.constant(value),
          fc.constant(shuffleKeys(value, 3)),
          fc.constant([value]),
          fc.constant({ v: value }),
          fc.constant(typeof value === 'string' ? Number(value) : typeof value === 'number' ? String(value) : value),
          fc.constant(value === null ? undefined : value),
          fc.constant(Array.isArray(value) ? [...value, null] : value),
          fc.constant(
            value !== null && typeof value === 'object' && !Array.isArray(value)
              ? objectWith([...Object.entries(value), ['extra', null] as const])
              : value,
          ),
        ),
      ),
    );
    fc.assert(
      fc.property(nearMiss, ([left, right]) => {
        expect(fingerprint(left) === fingerprint(right)).toBe(canonicalEqual(left, right));
      }),
      { numRuns: 1000 },
    );
  });
});

describe('fingerprint: type-preserving', () => {
  const distinct: [string, unknown, unknown][] = [
    ['"1" vs 1', '1', 1],
    ['true vs "true"', true, 'true'],
    ['false vs "false"', false, 'false'],
    ['null vs "null"', null, 'null'],
    ['0 vs -0', 0, -0],
    ['0 vs "0"', 0, '0'],
    ['NaN vs null', Number.NaN, null],
    ['Infinity vs null', Number.POSITIVE_INFINITY, null],
    ['-Infinity vs null', Number.NEGATIVE_INFINITY, null],
    ['Infinity vs -Infinity', Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY],
    ['NaN vs "NaN"', Number.NaN, 'NaN'],
    ['1 vs 1n', 1, 1n],
    ['[] vs {}', [], {}],
    ['["a"] vs {0: "a"}', ['a'], { 0: 'a' }],
    ['"" vs null', '', null],
    ['[null] vs []', [null], []],
    ['Date vs its ISO string', new Date(0), new Date(0).toISOString()],
    ['Date vs its time', new Date(0), 0],
  ];
  it.each(distinct)('distinguishes %s', (_label, left, right) => {
    expect(fingerprint(left)).not.toBe(fingerprint(right));
    expect(fingerprint({ k: left })).not.toBe(fingerprint({ k: right }));
    expect(fingerprint([left])).not.toBe(fingerprint([right]));
  });

  it('keeps null, a missing key and an undefined member apart', () => {
    const withNull = fingerprint({ a: null });
    const missing = fingerprint({});
    const withUndefined = fingerprint({ a: undefined });
    expect(new Set([withNull, missing, withUndefined]).size).toBe(3);
  });

  it('does not follow toJSON (a payload cannot lie about itself)', () => {
    class Liar {
      path = '/etc/shadow';
      toJSON() {
        return { path: '/tmp/harmless' };
      }
    }
    // A class instance is refused outright: its state may hide where keys cannot see it.
    expect(() => fingerprint(new Liar())).toThrow(FingerprintError);
    expect(() => fingerprint(new (class Point { x = 1; })())).toThrow(/use plain data/);
    expect(() => fingerprint({ path: '/etc/shadow', toJSON: () => ({}) })).toThrow(FingerprintError); // a function member is not data
    const date = new Date(0);
    (date as unknown as { toJSON: () => string }).toJSON = () => 'anything';
    expect(fingerprint(date)).toBe(fingerprint(new Date(0)));
  });

  it('distinguishes equal-looking numbers only where they differ', () => {
    expect(fingerprint(1)).toBe(fingerprint(1.0));
    expect(fingerprint(0.1 + 0.2)).not.toBe(fingerprint(0.3));
    expect(fingerprint(Number.NaN)).toBe(fingerprint(Number.NaN));
  });
});

describe('fingerprint: __proto__ and constructor are data', () => {
  it('reads a JSON __proto__ key as data, distinct from an object without it', () => {
    const withProto = JSON.parse('{"__proto__": {"admin": true}}') as unknown;
    const otherProto = JSON.parse('{"__proto__": {"admin": false}}') as unknown;
    expect(fingerprint(withProto)).not.toBe(fingerprint({}));
    expect(fingerprint(withProto)).not.toBe(fingerprint(otherProto));
    expect(fingerprint(withProto)).toBe(fingerprint(objectWith([['__proto__', { admin: true }]])));
    expect(fingerprint(withProto)).not.toBe(fingerprint({ admin: true }));
  });

  it('reads a JSON constructor key as data', () => {
    const withConstructor = JSON.parse('{"constructor": {"name": "x"}}') as unknown;
    expect(fingerprint(withConstructor)).not.toBe(fingerprint({}));
    expect(fingerprint(withConstructor)).not.toBe(fingerprint(JSON.parse('{"constructor": {"name": "y"}}')));
    expect(fingerprint(JSON.parse('{"constructor": 1, "a": 2}'))).toBe(fingerprint(JSON.parse('{"a": 2, "constructor": 1}')));
  });

  it('never lets __proto__ or constructor keys collide with ordinary ones (property)', () => {
    const key = fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'a');
    fc.assert(
      fc.property(key, json, key, json, (leftKey, leftValue, rightKey, rightValue) => {
        const left = objectWith([[leftKey, leftValue]]);
        const right = objectWith([[rightKey, rightValue]]);
        const equal = leftKey === rightKey && canonicalEqual(leftValue, rightValue);
        expect(fingerprint(left) === fingerprint(right)).toBe(equal);
      }),
      { numRuns: 300 },
    );
  });
});

describe('fingerprint: duplicate JSON keys', () => {
  it('fingerprints what actually runs (the last value wins)', () => {
    const parsed = JSON.parse('{"a":1,"a":2}') as unknown;
    expect(fingerprint(parsed)).toBe(fingerprint({ a: 2 }));
    expect(fingerprint(parsed)).not.toBe(fingerprint({ a: 1 }));
  });

  it('does so when nested, too', () => {
    const parsed = JSON.parse('{"cmd":{"path":"/tmp/x","path":"/etc/passwd"}}') as unknown;
    expect(fingerprint(parsed)).toBe(fingerprint({ cmd: { path: '/etc/passwd' } }));
    expect(fingerprint(parsed)).not.toBe(fingerprint({ cmd: { path: '/tmp/x' } }));
  });
});

describe('fingerprint: lookalike Unicode stays distinct', () => {
  const pairs: [string, string, string][] = [
    ['Cyrillic \u0430 vs Latin a', 'write_\u0430', 'write_a'],
    ['Cyrillic е vs Latin e', 'r\u0435ad_file', 'read_file'],
    ['NFC vs NFD', 'caf\u00e9', 'cafe\u0301'],
    ['zero-width joiner', 'send\u200Demail', 'sendemail'],
    ['zero-width space', 'rm\u200B', 'rm'],
    ['BOM prefix', '\uFEFFls', 'ls'],
    ['fullwidth letters', '\uFF52\uFF4D', 'rm'],
    ['right-to-left override', 'txt.\u202Eexe', 'txt.exe'],
    ['lone surrogate vs replacement char', '\uD800', '\uFFFD'],
    ['NUL byte', 'a\u0000b', 'ab'],
  ];
  it.each(pairs)('keeps %s apart as values and as keys', (_label, left, right) => {
    expect(left).not.toBe(right);
    expect(fingerprint(left)).not.toBe(fingerprint(right));
    expect(fingerprint(objectWith([[left, 1]]))).not.toBe(fingerprint(objectWith([[right, 1]])));
    expect(memoryKey({ context: { sessionId: 's' }, tool: left, payloadFingerprint: fingerprint(1) })).not.toBe(
      memoryKey({ context: { sessionId: 's' }, tool: right, payloadFingerprint: fingerprint(1) }),
    );
  });

  it('keeps any two different strings apart (property, full Unicode)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }), (left, right) => {
        expect(fingerprint(left) === fingerprint(right)).toBe(left === right);
        expect(fingerprint(objectWith([[left, 0]])) === fingerprint(objectWith([[right, 0]]))).toBe(left === right);
      }),
      { numRuns: 500 },
    );
  });
});

describe('fingerprint: tagged non-JSON values never collide with JSON', () => {
  const tagged: [string, () => unknown][] = [
    ['undefined', () => undefined],
    ['NaN', () => Number.NaN],
    ['Infinity', () => Number.POSITIVE_INFINITY],
    ['-Infinity', () => Number.NEGATIVE_INFINITY],
    ['-0', () => -0],
    ['bigint', () => 10n],
    ['Date', () => new Date(0)],
    ['invalid Date', () => new Date(Number.NaN)],
    ['Uint8Array', () => new Uint8Array([1, 2])],
    ['Map', () => new Map([['a', 1]])],
    ['Set', () => new Set([1])],
    ['null-prototype object', () => Object.assign(Object.create(null), { x: 1 })],
    ['RegExp', () => /a+/gi],
    ['URL', () => new URL('https://example.com/a')],
    ['boxed number', () => new Number(1)],
  ];

  it.each(tagged)('the string that spells the tag of %s is not that value', (_label, make) => {
    const value = make();
    const text = fingerprint(value);
    expect(fingerprint(text)).not.toBe(text);
    for (const spelled of ['!undefined', '!NaN', '!Infinity', '!-Infinity', '!-0', '!bigint:10', 'undefined', 'NaN']) {
      expect(fingerprint(spelled)).not.toBe(text);
    }
  });

  it('no JSON value, alone or nested, fingerprints like a tagged value (property)', () => {
    fc.assert(
      fc.property(json, fc.constantFrom(...tagged), (jsonValue, [label, make]) => {
        // -0 is a JSON value too (JSON.parse('-0')), and it is the tagged -0.
        fc.pre(!(label === '-0' && Object.is(jsonValue, -0)));
        const value = make();
        expect(fingerprint(jsonValue)).not.toBe(fingerprint(value));
        expect(fingerprint([jsonValue])).not.toBe(fingerprint([value]));
        expect(fingerprint({ k: jsonValue })).not.toBe(fingerprint({ k: value }));
      }),
      { numRuns: 500 },
    );
  });

  it('holes and undefined members of arrays differ from null', () => {
    expect(fingerprint([, 1])).not.toBe(fingerprint([null, 1]));
    expect(fingerprint([undefined, 1])).not.toBe(fingerprint([null, 1]));
  });

  it('distinguishes Maps, Sets and typed arrays by content, not by order', () => {
    expect(fingerprint(new Map([['a', 1], ['b', 2]]))).toBe(fingerprint(new Map([['b', 2], ['a', 1]])));
    expect(fingerprint(new Map([['a', 1]]))).not.toBe(fingerprint(new Map([['a', 2]])));
    expect(fingerprint(new Map([[1, 'x']]))).not.toBe(fingerprint(new Map([['1', 'x']])));
    expect(fingerprint(new Set([1, 2]))).toBe(fingerprint(new Set([2, 1])));
    expect(fingerprint(new Set([1]))).not.toBe(fingerprint(new Set(['1'])));
    expect(fingerprint(new Uint8Array([1]))).not.toBe(fingerprint(new Uint8Array([2])));
    expect(fingerprint(new Uint8Array([1, 0]))).not.toBe(fingerprint(new Uint16Array([1])));
    expect(fingerprint(new Map([['a', 1]]))).not.toBe(fingerprint({ a: 1 }));
    expect(fingerprint(new Set([1]))).not.toBe(fingerprint([1]));
  });

  it('never gives two objects with different hidden state the same fingerprint (URL, RegExp, Error, boxed numbers, ArrayBuffer)', () => {
    // A payload object whose meaning is not in its own enumerable keys must
    // either be told apart or be refused (FingerprintError): a shared
    // fingerprint would let "approve for session" on one approve the other.
    const pairs: [unknown, unknown][] = [
      [new URL('https://example.com/safe'), new URL('https://evil.example/steal')],
      [/^safe$/, /.*/],
      [new Error('a'), new Error('b')],
      [Object(1), Object(2)],
      [new Uint8Array([1]).buffer, new Uint8Array([2]).buffer],
    ];
    for (const [left, right] of pairs) {
      let leftPrint: string | FingerprintError;
      let rightPrint: string | FingerprintError;
      try {
        leftPrint = fingerprint(left);
      } catch (error) {
        expect(error).toBeInstanceOf(FingerprintError);
        continue;
      }
      try {
        rightPrint = fingerprint(right);
      } catch (error) {
        expect(error).toBeInstanceOf(FingerprintError);
        continue;
      }
      expect(leftPrint, `${String(left)} vs ${String(right)}`).not.toBe(rightPrint);
    }
  });
});

describe('fingerprint: values that are not data', () => {
  it('throws FingerprintError for a cycle through an object', () => {
    const value: Record<string, unknown> = { a: 1 };
    value.self = value;
    expect(() => fingerprint(value)).toThrow(FingerprintError);
  });

  it('throws FingerprintError for a cycle through an array, nested', () => {
    const list: unknown[] = [1];
    list.push({ inner: [list] });
    expect(() => fingerprint({ payload: list })).toThrow(FingerprintError);
  });

  it('throws FingerprintError for a cycle through a Map or a Set', () => {
    const set = new Set<unknown>();
    set.add(set);
    expect(() => fingerprint(set)).toThrow(FingerprintError);
    const map = new Map<unknown, unknown>();
    map.set('self', map);
    expect(() => fingerprint(map)).toThrow(FingerprintError);
    const keyed = new Map<unknown, unknown>();
    keyed.set(keyed, 1);
    expect(() => fingerprint(keyed)).toThrow(FingerprintError);
  });

  it('accepts shared (acyclic) references', () => {
    const shared = { a: 1 };
    expect(fingerprint({ p: shared, q: shared })).toBe(fingerprint({ p: { a: 1 }, q: { a: 1 } }));
  });

  it('throws FingerprintError for functions and symbols, at any depth', () => {
    expect(() => fingerprint(() => 1)).toThrow(FingerprintError);
    expect(() => fingerprint(Symbol('x'))).toThrow(FingerprintError);
    expect(() => fingerprint({ a: [{ b: () => 1 }] })).toThrow(FingerprintError);
    expect(() => fingerprint(new Map([['a', Symbol('x')]]))).toThrow(FingerprintError);
  });

  it('throws FingerprintError for absurd nesting instead of overflowing the stack', () => {
    let deep: unknown = 1;
    for (let index = 0; index < 10_000; index++) deep = [deep];
    expect(() => fingerprint(deep)).toThrow(FingerprintError);
  });

  it('is a TypeError subclass named FingerprintError', () => {
    try {
      fingerprint(() => 1);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(TypeError);
      expect((error as Error).name).toBe('FingerprintError');
    }
  });
});

describe('memory keys', () => {
  const payload = fingerprint({ to: 'a@example.com' });
  const key = (context: GateContext, tool = 'send_email', identity?: string) => memoryKey({ context, tool, identity, payloadFingerprint: payload });

  it('never match across sessions or chats', () => {
    const base = key({ sessionId: 's1', chatId: 'c1' });
    expect(key({ sessionId: 's1', chatId: 'c1' })).toBe(base);
    expect(key({ sessionId: 's2', chatId: 'c1' })).not.toBe(base);
    expect(key({ sessionId: 's1', chatId: 'c2' })).not.toBe(base);
    expect(key({ sessionId: 's1' })).not.toBe(base);
    expect(key({ sessionId: 's1', chatId: 'null' })).not.toBe(key({ sessionId: 's1' }));
  });

  it('ignore the caller (sub-agents share the parent memory) but not the tool', () => {
    expect(key({ sessionId: 's', caller: 'worker' })).toBe(key({ sessionId: 's', caller: 'parent' }));
    expect(key({ sessionId: 's' }, 'send_mail')).not.toBe(key({ sessionId: 's' }, 'send_email'));
  });

  it('change when the tool identity changes (e.g. an MCP definition hash)', () => {
    const first = key({ sessionId: 's' }, 'files__read', 'mcp:files#sha256:aaaa');
    expect(key({ sessionId: 's' }, 'files__read', 'mcp:files#sha256:bbbb')).not.toBe(first);
    expect(key({ sessionId: 's' }, 'files__read')).not.toBe(first);
    expect(key({ sessionId: 's' }, 'files__read', 'null')).not.toBe(key({ sessionId: 's' }, 'files__read'));
  });

  it('cannot be forged by a session or chat id that embeds separators (property)', () => {
    const id = fc.oneof(fc.string(), fc.constantFrom('a","b', '"]', 'a\\', '', 'null', '["x"]'));
    const chat = fc.option(id, { nil: undefined });
    fc.assert(
      fc.property(id, chat, id, chat, (leftSession, leftChat, rightSession, rightChat) => {
        const left = memoryKey({ context: { sessionId: leftSession, chatId: leftChat }, tool: 't', payloadFingerprint: payload });
        const right = memoryKey({ context: { sessionId: rightSession, chatId: rightChat }, tool: 't', payloadFingerprint: payload });
        expect(left === right).toBe(leftSession === rightSession && leftChat === rightChat);
      }),
      { numRuns: 500 },
    );
  });

  it('differ for different payloads and agree for reordered ones (property)', () => {
    fc.assert(
      fc.property(json, json, fc.integer(), (left, right, seed) => {
        const make = (value: unknown) => memoryKey({ context: { sessionId: 's' }, tool: 't', payloadFingerprint: fingerprint(value) });
        expect(make(left) === make(right)).toBe(canonicalEqual(left, right));
        expect(make(shuffleKeys(left, seed))).toBe(make(left));
      }),
      { numRuns: 300 },
    );
  });

  it('toolKey (approve always) ignores the session but not the identity or payload', () => {
    expect(toolKey({ tool: 't', payload: { a: 1, b: 2 } })).toBe(toolKey({ tool: 't', payload: { b: 2, a: 1 } }));
    expect(toolKey({ tool: 't', payload: { a: 1 } })).not.toBe(toolKey({ tool: 't', payload: { a: '1' } }));
    expect(toolKey({ tool: 't', identity: 'v1', payload: 1 })).not.toBe(toolKey({ tool: 't', identity: 'v2', payload: 1 }));
  });

  it('the in-memory store forgets the oldest entries past its bound, and only them', () => {
    const memory = createInMemoryApprovalMemory({ maxEntries: 2 });
    memory.store('a', { approved: true });
    memory.store('b', { approved: false, reason: 'no' });
    memory.store('a', { approved: true }); // refreshes a
    memory.store('c', { approved: true });
    expect(memory.lookup('b')).toBeUndefined();
    expect(memory.lookup('a')).toEqual({ approved: true });
    expect(memory.lookup('c')).toEqual({ approved: true });
  });
});
