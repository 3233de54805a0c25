import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { shortFieldsFirstJson, shortFieldsFirstKeys } from './short-fields-first.ts';

describe('shortFieldsFirstJson', () => {
  it('moves a long body after the short fields, whatever the model put first', () => {
    const body = 'x'.repeat(3000);
    const ordered = shortFieldsFirstJson(JSON.stringify({ body, to: 'attacker@example.com', subject: 'hi' }))!;
    expect(Object.keys(JSON.parse(ordered))).toEqual(['to', 'subject', 'body']);
    expect(ordered.indexOf('"to"')).toBeLessThan(ordered.indexOf('"body"'));
  });

  it('keeps the text of values as sent (big numbers are not rounded)', () => {
    expect(shortFieldsFirstJson('{"long": "' + 'y'.repeat(100) + '", "id": 12345678901234567890}')).toBe(`{"id":12345678901234567890,"long":"${'y'.repeat(100)}"}`);
  });

  it('refuses duplicate keys (also spelled with escapes) and anything but an object', () => {
    expect(shortFieldsFirstJson('{"to": "a", "\\u0074o": "b"}')).toBeUndefined();
    expect(shortFieldsFirstJson('[1, 2]')).toBeUndefined();
    expect(shortFieldsFirstJson('not json')).toBeUndefined();
  });

  it('keeps strings with braces, commas and quotes whole', () => {
    const value = { a: 'x, "y": {z}', b: ['p', { q: 'r,}' }], c: 'z'.repeat(90) };
    expect(JSON.parse(shortFieldsFirstJson(JSON.stringify(value, null, 2))!)).toEqual(value);
  });

  it('never changes the value (property)', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (value) => {
        const ordered = shortFieldsFirstJson(JSON.stringify(value));
        expect(ordered).toBeDefined();
        expect(JSON.parse(ordered!)).toEqual(JSON.parse(JSON.stringify(value)));
      }),
    );
  });
});

describe('shortFieldsFirstKeys', () => {
  it('orders keys short first, then long ones from shortest', () => {
    expect(shortFieldsFirstKeys({ body: 'x'.repeat(500), cc: 'y'.repeat(100), to: 'a', subject: 's' })).toEqual(['to', 'subject', 'cc', 'body']);
  });
});
