import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readBoundedLines } from './read-bounded-lines.ts';

let directory = '';
afterEach(() => {
  if (directory !== '') rmSync(directory, { recursive: true, force: true });
  directory = '';
});
function fileWith(text: string, name = 'a.jsonl'): string {
  directory ||= mkdtempSync(path.join(os.tmpdir(), 'toolgate-lines-'));
  const file = path.join(directory, name);
  writeFileSync(file, text);
  return file;
}

/** Each line as read, decoded at once (a line's bytes are good until the next is asked for). */
function read(file: string, maxBytes = 1 << 24): Array<{ line: number; text: string } | { line: number; tooLong: number }> {
  const lines: Array<{ line: number; text: string } | { line: number; tooLong: number }> = [];
  for (const item of readBoundedLines({ file, maxBytes })) lines.push('bytes' in item ? { line: item.line, text: item.bytes.toString('utf8') } : item);
  return lines;
}

describe('readBoundedLines', () => {
  it('gives every line with its number, blank ones too, a last line without its newline, and CRLF ends cut', () => {
    expect(read(fileWith('{"a":1}\r\n\n{"b":2}\n{"c":3}'))).toEqual([
      { line: 1, text: '{"a":1}' },
      { line: 2, text: '' },
      { line: 3, text: '{"b":2}' },
      { line: 4, text: '{"c":3}' },
    ]);
  });

  it('joins a line that spans the reads of 1 MiB, and reads the next whole', () => {
    const long = 'x'.repeat((1 << 20) + 12_345);
    const lines = read(fileWith(`short\n${long}\nafter\n`));
    expect(lines).toEqual([
      { line: 1, text: 'short' },
      { line: 2, text: long },
      { line: 3, text: 'after' },
    ]);
  });

  it('skips a line past the bound, saying how long it was, without holding it, and reads on', () => {
    expect(read(fileWith(`${'y'.repeat(5_000)}\nok\n${'z'.repeat(3 << 20)}\nlast`), 4_096)).toEqual([
      { line: 1, tooLong: 5_000 },
      { line: 2, text: 'ok' },
      { line: 3, tooLong: 3 << 20 },
      { line: 4, text: 'last' },
    ]);
  });

  it('reads two files at once, each its own lines (read buffers are shared only between files read one after another)', () => {
    const first = readBoundedLines({ file: fileWith('a1\na2\na3\n', 'a.jsonl'), maxBytes: 1024 });
    const second = readBoundedLines({ file: fileWith('b1\nb2\n', 'b.jsonl'), maxBytes: 1024 });
    const seen: string[] = [];
    for (;;) {
      const a = first.next();
      const b = second.next();
      if (!a.done && 'bytes' in a.value) seen.push(a.value.bytes.toString());
      if (!b.done && 'bytes' in b.value) seen.push(b.value.bytes.toString());
      if (a.done === true && b.done === true) break;
    }
    expect(seen).toEqual(['a1', 'b1', 'a2', 'b2', 'a3']);
    // And a file read after both gets a buffer of theirs back, whole.
    expect(read(fileWith('c1\n', 'c.jsonl'))).toEqual([{ line: 1, text: 'c1' }]);
  });

  it('refuses what is not a regular file, without blocking on a named pipe', () => {
    directory ||= mkdtempSync(path.join(os.tmpdir(), 'toolgate-lines-'));
    const fifo = path.join(directory, 'pipe.jsonl');
    execFileSync('mkfifo', [fifo]);
    expect(() => read(fifo)).toThrow('not a regular file');
    expect(() => read(directory)).toThrow();
  });
});
