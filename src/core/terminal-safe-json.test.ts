import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sanitizeTerminalText } from './sanitize-terminal-text.ts';
import { terminalSafeJson } from './terminal-safe-json.ts';

const HOSTILE = ['\x1b]52;c;ZXZpbA==\x07', '\x1b[2A\x1b[1G', '\x1b]0;pwned\x07', 'a\u202eb\u2066c', 'zero\u200bwidth\ufeff', 'ok\r\x1b[2Kevil', '\x9b31m', '\u{e0041}tag', 'e\u0301\u0301\u0301\u0301\u0301\u0301'];

describe('terminalSafeJson', () => {
  it('escapes every hidden or control character as \\u, keeping the same JSON value', () => {
    for (const text of HOSTILE) {
      const json = terminalSafeJson({ text })!;
      expect(JSON.parse(json)).toEqual({ text });
      expect(sanitizeTerminalText(json)).toBe(json);
    }
  });

  it('keeps ordinary text, CJK and emoji as they are', () => {
    expect(terminalSafeJson({ path: '日本語/😀.txt', n: 1 })).toBe('{"path":"日本語/😀.txt","n":1}');
  });

  it('indents when asked, with real line breaks', () => {
    expect(terminalSafeJson({ a: '\u202e' }, 2)).toBe('{\n  "a": "\\u202e"\n}');
  });

  it('any value: same JSON value, nothing left for the sanitiser to escape (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const json = terminalSafeJson(value)!;
        expect(JSON.parse(json)).toEqual(JSON.parse(JSON.stringify(value)));
        expect(sanitizeTerminalText(json)).toBe(json);
      }),
    );
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        const json = terminalSafeJson(text)!;
        expect(JSON.parse(json)).toBe(text);
        expect(sanitizeTerminalText(json)).toBe(json);
      }),
    );
  });
});
