import { describe, expect, it } from 'vitest';
import type { TerminalOutput } from './prompt-input.ts';
import { lineEditor } from './prompt-line-editor.ts';

function typing(raw: boolean, maxLength = 10) {
  let screen = '';
  const output = { write: (text: string) => ((screen += text), true) } as unknown as TerminalOutput;
  const lines: (string | undefined)[] = [];
  const feed = lineEditor({ raw, output, maxLength, done: (line) => lines.push(line) });
  return { feed, lines, screen: () => screen };
}

describe('lineEditor', () => {
  it('echoes what is typed in raw mode and ends the line at Enter', () => {
    const { feed, lines, screen } = typing(true);
    feed('no');
    feed('\r');
    expect(lines).toEqual(['no']);
    expect(screen()).toBe('no\n');
  });

  it('erases with backspace and Ctrl-U', () => {
    const { feed, lines } = typing(true);
    feed('abc\x7f');
    feed('\x15xy\r');
    expect(lines).toEqual(['xy']);
  });

  it('gives undefined for Esc, and ignores arrow keys and controls', () => {
    const escaped = typing(true);
    escaped.feed('\x1b');
    expect(escaped.lines).toEqual([undefined]);
    const arrows = typing(true);
    arrows.feed('a');
    arrows.feed('\x1b[D');
    arrows.feed('b\x07\n');
    expect(arrows.lines).toEqual(['ab']);
  });

  it('keeps no more than maxLength characters', () => {
    const { feed, lines } = typing(true, 3);
    feed('abcdef\r');
    expect(lines).toEqual(['abc']);
  });

  it('in line mode, strips controls from the line and cuts it', () => {
    const { feed, lines } = typing(false, 4);
    feed('a\x07bcdef');
    expect(lines).toEqual(['abcd']);
  });
});
