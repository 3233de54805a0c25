/**
 * The keys of an approval prompt: what a chunk read from the terminal is as
 * a key (raw mode) or a line read as one (line mode), how many keys a chunk
 * holds (so dropped keys are counted as the person pressed them), and the
 * control characters that are never part of a typed answer.
 */

/** One key as the prompts see it. */
export type KeyPress =
  | { kind: 'character'; character: string }
  | { kind: 'enter' }
  | { kind: 'escape' }
  | { kind: 'backspace' }
  /** Several characters at once: a paste, or a word typed in line mode. Never taken as an answer. */
  | { kind: 'text'; text: string }
  /** Arrow and function keys, other control keys. */
  | { kind: 'other' };

/** C0 controls, DEL and C1 controls: never part of a typed answer. */
const CONTROL = /\p{Cc}/u;
const CONTROLS = /\p{Cc}/gu;

/**
 * Whether a character is a control character (C0, DEL or C1).
 *
 * @example
 * isControl('\x07') // true
 * isControl('y') // false
 */
export function isControl(character: string): boolean {
  return CONTROL.test(character);
}

/**
 * A line with its control characters removed.
 *
 * @example
 * stripControls('no\x07 bell') // 'no bell'
 */
export function stripControls(text: string): string {
  return text.replace(CONTROLS, '');
}

/**
 * Keys in a chunk: an escape sequence (an arrow key) counts as one, every
 * other character as one.
 *
 * @example
 * countKeys('yy') // 2
 * countKeys('\x1b[A') // 1
 */
export function countKeys(chunk: string): number {
  const withoutSequences = chunk.replace(/\x1b\[[0-?]*[ -\/]*[@-~]|\x1bO./g, '\x1b');
  return Array.from(withoutSequences).length;
}

/**
 * The key a chunk read in raw mode is.
 *
 * @example
 * parseKey('\r') // { kind: 'enter' }
 * parseKey('y') // { kind: 'character', character: 'y' }
 */
export function parseKey(chunk: string): KeyPress {
  if (chunk === '\r' || chunk === '\n' || chunk === '\r\n') return { kind: 'enter' };
  if (chunk === '\x1b') return { kind: 'escape' };
  if (chunk.startsWith('\x1b')) return { kind: 'other' };
  if (chunk === '\x7f' || chunk === '\b') return { kind: 'backspace' };
  const characters = Array.from(chunk);
  if (characters.length > 1) return { kind: 'text', text: chunk };
  return isControl(chunk) ? { kind: 'other' } : { kind: 'character', character: chunk };
}

/**
 * The key a line read in line mode stands for: an empty line is Enter.
 *
 * @example
 * parseLineAsKey(' y \r') // { kind: 'character', character: 'y' }
 * parseLineAsKey('') // { kind: 'enter' }
 */
export function parseLineAsKey(line: string): KeyPress {
  const text = line.replace(/\r$/, '').trim();
  if (text === '') return { kind: 'enter' };
  if (text === '\x1b') return { kind: 'escape' };
  return parseKey(text);
}
