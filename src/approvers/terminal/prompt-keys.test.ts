import { describe, expect, it } from 'vitest';
import { countKeys, isControl, parseKey, parseLineAsKey, stripControls } from './prompt-keys.ts';

describe('prompt keys', () => {
  it('reads a raw chunk as one key', () => {
    expect(parseKey('\r')).toEqual({ kind: 'enter' });
    expect(parseKey('\r\n')).toEqual({ kind: 'enter' });
    expect(parseKey('\x1b')).toEqual({ kind: 'escape' });
    expect(parseKey('\x1b[A')).toEqual({ kind: 'other' });
    expect(parseKey('\x7f')).toEqual({ kind: 'backspace' });
    expect(parseKey('y')).toEqual({ kind: 'character', character: 'y' });
    expect(parseKey('yes')).toEqual({ kind: 'text', text: 'yes' });
    expect(parseKey('\x07')).toEqual({ kind: 'other' });
  });

  it('reads a line as the key it stands for', () => {
    expect(parseLineAsKey('')).toEqual({ kind: 'enter' });
    expect(parseLineAsKey(' y \r')).toEqual({ kind: 'character', character: 'y' });
    expect(parseLineAsKey('\x1b')).toEqual({ kind: 'escape' });
    expect(parseLineAsKey('yes')).toEqual({ kind: 'text', text: 'yes' });
  });

  it('counts an escape sequence as one key', () => {
    expect(countKeys('yy')).toBe(2);
    expect(countKeys('\x1b[A\x1bOP')).toBe(2);
    expect(countKeys('é')).toBe(1);
  });

  it('knows control characters', () => {
    expect(isControl('\x9b')).toBe(true);
    expect(isControl('a')).toBe(false);
    expect(stripControls('a\x07b\x7fc')).toBe('abc');
  });
});
