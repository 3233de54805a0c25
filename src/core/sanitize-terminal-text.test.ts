import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { codePointWidth, collapsePadding, displayWidth, escapeCodePoint, sanitizeTerminalSegments, sanitizeTerminalText } from './sanitize-terminal-text.ts';

/** Anything a terminal could interpret or not draw: C0 (except newline), DEL, C1, format characters, separators, surrogates. */
const UNSAFE = /[\x00-\x09\x0b-\x1f\x7f-\x9f\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u;

/** Inverse of the escaping, valid when the input had no backslash of its own: proves nothing was dropped. */
function unescape(text: string): string {
  const named: Record<string, string> = { b: '\b', t: '\t', n: '\n', v: '\v', f: '\f', r: '\r' };
  return text.replace(/\\(?:x([0-9a-f]{2})|u\{([0-9a-f]+)\}|u([0-9a-f]{4})|([btnvfr]))/g, (_match, hex2, braced, hex4, letter) => {
    if (letter !== undefined) return named[letter as string]!;
    return String.fromCodePoint(parseInt((hex2 ?? braced ?? hex4) as string, 16));
  });
}

describe('sanitizeTerminalText', () => {
  it('leaves ordinary text alone, in any script', () => {
    for (const text of ['plain ASCII ~!@#$%^&*()_+{}|:"<>?', 'Grüße, naïve café', '日本語のテキスト', '한국어', 'emoji 😀🚀 ✅', 'עברית', 'e\u0301 (combining acute)']) {
      expect(sanitizeTerminalText(text)).toBe(text);
    }
  });

  it('shows every C0 control, DEL and every C1 control as a visible escape', () => {
    for (let code = 0; code <= 0x9f; code += 1) {
      if (code >= 0x20 && code < 0x7f) continue;
      const output = sanitizeTerminalText(`a${String.fromCharCode(code)}b`);
      expect(output).toBe(`a${escapeCodePoint(code)}b`);
      expect(output).not.toMatch(UNSAFE);
    }
    expect(sanitizeTerminalText('\x00\x07\x08\x0d\x1b\x7f\x9b\x9d')).toBe('\\x00\\x07\\b\\r\\x1b\\x7f\\x9b\\x9d');
  });

  it('neutralises escape sequences: CSI, OSC hyperlinks, OSC 52 clipboard writes, DCS, 8-bit CSI', () => {
    expect(sanitizeTerminalText('\x1b[2K\x1b[1A\x1b[31mred')).toBe('\\x1b[2K\\x1b[1A\\x1b[31mred');
    expect(sanitizeTerminalText('\x1b]8;;http://evil\x07click\x1b]8;;\x07')).toBe('\\x1b]8;;http://evil\\x07click\\x1b]8;;\\x07');
    expect(sanitizeTerminalText('\x1b]52;c;cm0gLXJmIH4=\x07')).toBe('\\x1b]52;c;cm0gLXJmIH4=\\x07');
    expect(sanitizeTerminalText('\x1bP+q544e\x1b\\')).toBe('\\x1bP+q544e\\x1b\\');
    expect(sanitizeTerminalText('\u009b2J\u009d0;title\u009c')).toBe('\\x9b2J\\x9d0;title\\x9c');
  });

  it('shows carriage returns and backspaces instead of letting them overwrite text', () => {
    expect(sanitizeTerminalText('rm -rf ~\rls      ')).toBe('rm -rf ~\\rls      ');
    expect(sanitizeTerminalText('safe\b\b\b\bevil')).toBe('safe\\b\\b\\b\\bevil');
  });

  it('shows bidi controls, so text cannot be reordered', () => {
    const bidi = [0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069, 0x200e, 0x200f, 0x061c];
    for (const codePoint of bidi) {
      const hex = codePoint.toString(16).padStart(4, '0');
      expect(sanitizeTerminalText(`a${String.fromCodePoint(codePoint)}b`)).toBe(`a\\u${hex}b`);
    }
    expect(sanitizeTerminalText('access = "user\u202e \u2066// admin\u2069 \u2066"')).toBe('access = "user\\u202e \\u2066// admin\\u2069 \\u2066"');
  });

  it('shows zero-width and invisible characters, soft hyphens and tag characters', () => {
    const cases: Array<[string, string]> = [
      ['\u200b', '\\u200b'],
      ['\u200c', '\\u200c'],
      ['\u200d', '\\u200d'],
      ['\u2060', '\\u2060'],
      ['\u2061', '\\u2061'],
      ['\u2062', '\\u2062'],
      ['\u2063', '\\u2063'],
      ['\u2064', '\\u2064'],
      ['\ufeff', '\\ufeff'],
      ['\u180e', '\\u180e'],
      ['\u00ad', '\\xad'],
      ['\u{e0001}', '\\u{e0001}'],
      ['\u{e0041}', '\\u{e0041}'],
      ['\u{e007f}', '\\u{e007f}'],
      ['\u034f', '\\u034f'],
      ['\u3164', '\\u3164'],
      ['\u2800', '\\u2800'],
      ['\u00a0', '\\xa0'],
      ['\u2028', '\\u2028'],
      ['\u2029', '\\u2029'],
    ];
    for (const [input, escaped] of cases) expect(sanitizeTerminalText(`x${input}y`)).toBe(`x${escaped}y`);
    // "ignore previous instructions" smuggled in tag characters stays visible.
    const smuggled = [...'ignore'].map((character) => String.fromCodePoint(0xe0000 + character.charCodeAt(0))).join('');
    expect(sanitizeTerminalText(`ok${smuggled}`)).toBe('ok\\u{e0069}\\u{e0067}\\u{e006e}\\u{e006f}\\u{e0072}\\u{e0065}');
  });

  it('escapes lone surrogates but keeps valid pairs', () => {
    expect(sanitizeTerminalText('a\ud800b')).toBe('a\\ud800b');
    expect(sanitizeTerminalText('a\udc00b')).toBe('a\\udc00b');
    expect(sanitizeTerminalText('\udc00\ud800')).toBe('\\udc00\\ud800');
    expect(sanitizeTerminalText('😀')).toBe('😀');
  });

  it('keeps emoji presentation selectors after a character, escapes stray and smuggling selectors', () => {
    expect(sanitizeTerminalText('⚠️ careful')).toBe('⚠️ careful');
    expect(sanitizeTerminalText('\ufe0f')).toBe('\\ufe0f');
    expect(sanitizeTerminalText('a\ufe0f\ufe0f')).toBe('a\ufe0f\\ufe0f');
    expect(sanitizeTerminalText('a\ufe00')).toBe('a\\ufe00');
    expect(sanitizeTerminalText('a\u{e0100}\u{e01ef}')).toBe('a\\u{e0100}\\u{e01ef}');
  });

  it('escapes floods of combining marks that would paint over other lines', () => {
    const zalgo = `Z${'\u0336'.repeat(10)}`;
    expect(sanitizeTerminalText(zalgo)).toBe(`Z${'\u0336'.repeat(4)}${'\\u0336'.repeat(6)}`);
    expect(sanitizeTerminalText('tiê\u0301ng')).toBe('tiê\u0301ng');
  });

  it('keeps newlines and tabs only when asked, expanding tabs to tab stops', () => {
    expect(sanitizeTerminalText('a\nb\tc')).toBe('a\\nb\\tc');
    expect(sanitizeTerminalText('a\nb', { keepNewlines: true })).toBe('a\nb');
    expect(sanitizeTerminalText('a\tb\n\tc', { keepNewlines: true, keepTabs: true })).toBe('a   b\n    c');
    expect(sanitizeTerminalText('ab\tc', { keepTabs: true, tabWidth: 8 })).toBe('ab      c');
    expect(sanitizeTerminalText('日\tc', { keepTabs: true })).toBe('日  c');
  });

  it('never leaves an unsafe character, whatever the input (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.boolean(), fc.boolean(), fc.boolean(), (text, keepNewlines, keepTabs, collapse) => {
        const output = sanitizeTerminalText(text, { keepNewlines, keepTabs, collapse });
        expect(output).not.toMatch(UNSAFE);
        if (!keepNewlines) expect(output).not.toContain('\n');
      }),
      { numRuns: 500 },
    );
  });

  it('never drops a character: undoing the escapes gives the input back (property)', () => {
    const alphabet = fc.oneof(
      fc.string({ unit: 'binary' }),
      fc.string({ unit: fc.constantFrom('\x1b', '\r', '\b', '\u202e', '\u200b', '\ud800', '\u0301', '\ufe0f', '\u{e0041}', 'a', ' ', '\n', '\x9b', '日') }),
    );
    fc.assert(
      fc.property(
        alphabet.filter((text) => !text.includes('\\')),
        fc.boolean(),
        (text, keepNewlines) => {
          expect(unescape(sanitizeTerminalText(text, { keepNewlines }))).toBe(text);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('reports escapes and markers as their own segments', () => {
    expect(sanitizeTerminalSegments('a\x07b')).toEqual([
      { text: 'a', kind: 'text' },
      { text: '\\x07', kind: 'escape' },
      { text: 'b', kind: 'text' },
    ]);
    expect(sanitizeTerminalSegments(`a${' '.repeat(100)}b`, { collapse: true })).toEqual([
      { text: 'a', kind: 'text' },
      { text: '⟨… 100 spaces⟩', kind: 'marker' },
      { text: 'b', kind: 'text' },
    ]);
  });
});

describe('collapsing padding', () => {
  it('collapses 10,000 spaces into a visible marker, keeping what follows in view', () => {
    const output = sanitizeTerminalText(`echo hello${' '.repeat(10_000)}; rm -rf ~`, { collapse: true });
    expect(output).toBe('echo hello⟨… 10000 spaces⟩; rm -rf ~');
  });

  it('collapses runs of tabs, mixed blanks, ideographic spaces and repeated escapes', () => {
    expect(sanitizeTerminalText(`a${'\t'.repeat(50)}b`, { keepTabs: true, collapse: true })).toBe('a⟨… 50 tabs⟩b');
    expect(sanitizeTerminalText(`a${' \t'.repeat(30)}b`, { keepTabs: true, collapse: true })).toBe('a⟨… 60 blank characters⟩b');
    expect(sanitizeTerminalText(`a${'\u3000'.repeat(30)}b`, { collapse: true })).toBe('a⟨… 30 ideographic spaces⟩b');
    expect(sanitizeTerminalText(`a${'\x00'.repeat(1000)}b`, { collapse: true })).toBe('a⟨… 1000 × \\x00⟩b');
    expect(sanitizeTerminalText(`a${'\n'.repeat(1000)}b`, { collapse: true })).toBe('a⟨… 1000 × \\n⟩b');
    expect(sanitizeTerminalText(`a${'\u200b'.repeat(500)}b`, { collapse: true })).toBe('a⟨… 500 × \\u200b⟩b');
  });

  it('collapses long runs of blank lines into one marker line', () => {
    const output = sanitizeTerminalText(`top\n${'\n'.repeat(500)}  \n\t\nbottom`, { keepNewlines: true, keepTabs: true, collapse: true });
    expect(output).toBe('top\n⟨… 502 blank lines⟩\nbottom');
  });

  it('leaves ordinary indentation and a few blank lines alone', () => {
    const code = `def f():\n${' '.repeat(24)}return 1\n\n\nprint(f())`;
    expect(sanitizeTerminalText(code, { keepNewlines: true, collapse: true })).toBe(code);
    expect(sanitizeTerminalText(`a${'\x00'.repeat(3)}`, { collapse: true })).toBe('a\\x00\\x00\\x00');
  });

  it('honours custom limits', () => {
    expect(sanitizeTerminalText('a     b', { collapse: { maxRun: 4 } })).toBe('a⟨… 5 spaces⟩b');
    expect(sanitizeTerminalText('a\n\n\nb', { keepNewlines: true, collapse: { maxBlankLines: 1 } })).toBe('a\n⟨… 2 blank lines⟩\nb');
  });

  it('collapsePadding collapses without escaping anything', () => {
    expect(collapsePadding(`echo hi${' '.repeat(300)}; rm -rf ~`)).toBe('echo hi⟨… 300 spaces⟩; rm -rf ~');
    expect(collapsePadding('a\n\n\n\n\n\nb', { maxBlankLines: 2 })).toBe('a\n⟨… 5 blank lines⟩\nb');
    expect(collapsePadding('keep\x1b[0m')).toBe('keep\x1b[0m');
  });
});

describe('displayWidth', () => {
  it('counts wide characters as two columns and marks as none', () => {
    expect(displayWidth('abc')).toBe(3);
    expect(displayWidth('日本語')).toBe(6);
    expect(displayWidth('한국')).toBe(4);
    expect(displayWidth('ＡＢ')).toBe(4);
    expect(displayWidth('😀')).toBe(2);
    expect(displayWidth('e\u0301')).toBe(1);
    expect(displayWidth('⚠️')).toBe(1);
    expect(displayWidth('')).toBe(0);
  });

  it('gives every code point a width of 0, 1 or 2', () => {
    expect(codePointWidth(0x41)).toBe(1);
    expect(codePointWidth(0x3000)).toBe(2);
    expect(codePointWidth(0x20000)).toBe(2);
    expect(codePointWidth(0x0301)).toBe(0);
    expect(codePointWidth(0x1b)).toBe(0);
  });
});
