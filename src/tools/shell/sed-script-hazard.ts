/**
 * Reads a sed script the way GNU sed does, far enough to find the commands
 * and flags that leave the stream: `e` and `s///e` run programs, `w`, `W`
 * and `s///w` write files, `r` and `R` read them. A script this reader cannot
 * follow is itself a hazard: what is not understood is never allowed.
 */
import type { ScriptHazard } from './hazard.ts';

const SIMPLE_COMMANDS = new Set(['=', 'd', 'D', 'F', 'g', 'G', 'h', 'H', 'n', 'N', 'p', 'P', 'x', 'z']);

/**
 * The first hazard in a sed script, or undefined when it only edits the stream.
 *
 * @example
 * sedScriptHazard('s/a/b/g')      // undefined
 * sedScriptHazard('s/x/date/e')   // { kind: 'exec', ... }
 * sedScriptHazard('1w /etc/x')    // { kind: 'write', ... }
 */
export function sedScriptHazard(script: string): ScriptHazard | undefined {
  const reader = new ScriptReader(script);
  for (;;) {
    reader.skip(/[\s;]/);
    if (reader.done()) return undefined;
    if (reader.peek() === '#') {
      reader.skipLine();
      continue;
    }
    if (reader.peek() === '}') {
      reader.next();
      continue;
    }
    if (!readAddress(reader, false)) return unreadable(reader);
    reader.skip(/[ \t]/);
    if (reader.peek() === ',') {
      reader.next();
      reader.skip(/[ \t]/);
      if (!readAddress(reader, true)) return unreadable(reader);
    }
    reader.skip(/[ \t!]/);
    const command = reader.next();
    if (command === undefined) return unreadable(reader);
    if (command === '{' || SIMPLE_COMMANDS.has(command)) continue;
    switch (command) {
      case 's': {
        const delimiter = reader.next();
        if (!readRegex(reader, delimiter) || !readReplacement(reader, delimiter)) return unreadable(reader);
        const flags = reader.take(/[0-9gpiImMew]/);
        if (flags.includes('e')) return { kind: 'exec', reason: 'the sed script runs a program (s///e)' };
        if (flags.includes('w')) return { kind: 'write', reason: 'the sed script writes a file (s///w)' };
        continue;
      }
      case 'y': {
        const delimiter = reader.next();
        if (!readReplacement(reader, delimiter) || !readReplacement(reader, delimiter)) return unreadable(reader);
        continue;
      }
      case 'a':
      case 'i':
      case 'c':
        reader.skipText();
        continue;
      case ':':
      case 'v':
      case 'b':
      case 't':
      case 'T':
        // GNU sed ends a label (and v's version) at whitespace too, and reads what follows as the next
        // command: `:a e id` runs id. Reading it so here can only find more, never less.
        reader.skip(/[ \t]/);
        reader.skip(/[^\s;}]/);
        continue;
      case 'q':
      case 'Q':
      case 'l':
      case 'L':
        reader.skip(/[ \t0-9]/);
        continue;
      case 'e':
        return { kind: 'exec', reason: 'the sed script runs a program (e)' };
      case 'w':
      case 'W':
        return { kind: 'write', reason: `the sed script writes a file (${command})` };
      case 'r':
      case 'R':
        return { kind: 'read', reason: `the sed script reads a file (${command})` };
      default:
        return unreadable(reader);
    }
  }
}

function unreadable(reader: ScriptReader): ScriptHazard {
  return { kind: 'unknown', reason: `the sed script could not be read past position ${reader.position} (it may hide commands that run programs or write files)` };
}

function readAddress(reader: ScriptReader, second: boolean): boolean {
  const first = reader.peek();
  if (first === undefined) return true;
  if (/[0-9]/.test(first)) {
    reader.take(/[0-9]/);
    if (reader.peek() === '~') {
      reader.next();
      reader.take(/[0-9]/);
    }
    return true;
  }
  if (first === '$') {
    reader.next();
    return true;
  }
  if (second && (first === '+' || first === '~')) {
    reader.next();
    reader.take(/[0-9]/);
    return true;
  }
  if (first === '/' || first === '\\') {
    reader.next();
    const delimiter = first === '/' ? '/' : reader.next();
    if (!readRegex(reader, delimiter)) return false;
    reader.take(/[IM]/);
  }
  return true;
}

/** A regex up to an unescaped delimiter; a delimiter inside a bracket expression is literal (GNU sed). */
function readRegex(reader: ScriptReader, delimiter: string | undefined): boolean {
  if (delimiter === undefined || delimiter === '\n' || delimiter === '\\') return false;
  for (;;) {
    const character = reader.next();
    if (character === undefined) return false;
    if (character === '\\') {
      if (reader.next() === undefined) return false;
    } else if (character === '[') {
      if (!skipBracket(reader)) return false;
    } else if (character === delimiter) {
      return true;
    }
  }
}

/** A replacement (or `y` part) up to an unescaped delimiter: brackets are plain characters here. */
function readReplacement(reader: ScriptReader, end: string | undefined): boolean {
  if (end === undefined || end === '\n' || end === '\\') return false;
  for (;;) {
    const character = reader.next();
    if (character === undefined) return false;
    if (character === '\\') {
      if (reader.next() === undefined) return false;
    } else if (character === end) {
      return true;
    }
  }
}

function skipBracket(reader: ScriptReader): boolean {
  if (reader.peek() === '^') reader.next();
  if (reader.peek() === ']') reader.next();
  for (;;) {
    const character = reader.next();
    if (character === undefined) return false;
    if (character === '[' && (reader.peek() === ':' || reader.peek() === '.' || reader.peek() === '=')) {
      const closer = `${reader.next()}]`;
      const end = reader.indexOf(closer);
      if (end === -1) return false;
      reader.position = end + 2;
    } else if (character === ']') {
      return true;
    }
  }
}

class ScriptReader {
  readonly text: string;
  position = 0;

  constructor(text: string) {
    this.text = text;
  }

  done(): boolean {
    return this.position >= this.text.length;
  }

  peek(): string | undefined {
    return this.text[this.position];
  }

  next(): string | undefined {
    const character = this.text[this.position];
    if (character !== undefined) this.position++;
    return character;
  }

  take(pattern: RegExp): string {
    const start = this.position;
    while (this.position < this.text.length && pattern.test(this.text[this.position]!)) this.position++;
    return this.text.slice(start, this.position);
  }

  skip(pattern: RegExp): void {
    this.take(pattern);
  }

  skipUntil(pattern: RegExp): void {
    while (this.position < this.text.length && !pattern.test(this.text[this.position]!)) this.position++;
  }

  skipLine(): void {
    this.skipUntil(/\n/);
  }

  /** `a`, `i`, `c` text: to the end of the line, where a trailing backslash continues it. */
  skipText(): void {
    while (this.position < this.text.length) {
      const character = this.text[this.position++];
      if (character === '\\') this.position++;
      else if (character === '\n') return;
    }
  }

  indexOf(text: string): number {
    return this.text.indexOf(text, this.position);
  }
}
