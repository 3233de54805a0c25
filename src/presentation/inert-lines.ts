/**
 * Untrusted text as inert view lines: split at newlines, long runs of blank
 * lines folded into one marker, every line through the one sanitiser (so
 * control, escape, bidi and zero-width characters become visible escapes and
 * long padding a visible marker).
 */
import { sanitizeTerminalSegments, sanitizeTerminalText, type SanitizeTerminalTextOptions } from '../core/sanitize-terminal-text.ts';
import type { ViewLine, ViewSpan } from './approval-view-types.ts';

const MAX_BLANK_LINES = 3;

/** Options for a line of data or code: tabs expanded, padding collapsed. */
export const LINE_OPTIONS: SanitizeTerminalTextOptions = { keepTabs: true, collapse: true };
/** Options for a one-line label (a path, a cwd): tabs escaped, padding collapsed. */
export const LABEL_OPTIONS: SanitizeTerminalTextOptions = { collapse: true };

/**
 * One line of untrusted text, sanitised; `spans` only when it holds escapes or markers.
 *
 * @example
 * inertLine('a\u202eb') // { text: 'a\\u202eb', spans: [{ text: 'a', kind: 'text' }, { text: '\\u202e', kind: 'escape' }, { text: 'b', kind: 'text' }] }
 */
export function inertLine(text: string, options: SanitizeTerminalTextOptions = LINE_OPTIONS): ViewLine {
  const segments = sanitizeTerminalSegments(String(text), options);
  const joined = segments.map((segment) => segment.text).join('');
  if (segments.every((segment) => segment.kind === 'text')) return { text: joined };
  return { text: joined, spans: segments.map((segment): ViewSpan => ({ text: segment.text, kind: segment.kind })) };
}

/**
 * A string field made inert (no spans): for names, paths, sentences.
 *
 * @example
 * inertText('x\x1b[2J') // 'x\\x1b[2J'
 */
export function inertText(text: string, options: SanitizeTerminalTextOptions = LABEL_OPTIONS): string {
  return sanitizeTerminalText(String(text), options);
}

/**
 * The lines of `content`, blank runs folded, each sanitised.
 *
 * @example
 * inertLines('') // []
 * inertLines('a\n\n\n\n\nb') // [{ text: 'a' }, { text: '⟨… 4 blank lines⟩', spans: [...], blank_run: 4 }, { text: 'b' }]
 */
export function inertLines(content: string): ViewLine[] {
  if (content === '') return [];
  return groupBlankLines(rawLines(content)).map((line) => (line.blankRun === undefined ? inertLine(line.text) : blankMarker(line.blankRun)));
}

/** The marker line for `count` blank lines. */
export function blankMarker(count: number): ViewLine {
  const text = `⟨… ${count} blank lines⟩`;
  return { text, spans: [{ text, kind: 'marker' }], blank_run: count };
}

/**
 * Source lines; a final newline ends the last line rather than starting an empty one.
 *
 * @example
 * rawLines('a\nb\n') // ['a', 'b']
 */
export function rawLines(content: string): string[] {
  const lines = content.split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/**
 * Runs of more than a few blank lines become one entry, so nothing can be pushed below the fold with empty lines.
 *
 * @example
 * groupBlankLines(['a', '', '', '', '', 'b']) // [{ text: 'a' }, { text: '', blankRun: 4 }, { text: 'b' }]
 */
export function groupBlankLines(lines: readonly string[]): Array<{ text: string; blankRun?: number }> {
  const result: Array<{ text: string; blankRun?: number }> = [];
  let index = 0;
  while (index < lines.length) {
    let end = index;
    while (end < lines.length && /^[ \t\u3000]*$/.test(lines[end]!)) end += 1;
    if (end - index > MAX_BLANK_LINES) {
      result.push({ text: '', blankRun: end - index });
      index = end;
    } else {
      result.push({ text: lines[index]! });
      index += 1;
    }
  }
  return result;
}

/**
 * Binary when it has a NUL, or when more than a tenth of its start is
 * replacement characters, lone surrogates or control characters that text
 * does not use.
 *
 * @example
 * looksBinary('PNG\u0000\u0001') // true
 */
export function looksBinary(content: string): boolean {
  if (content.includes('\u0000')) return true;
  const sample = content.slice(0, 8192);
  if (sample.length === 0) return false;
  let suspicious = 0;
  for (let index = 0; index < sample.length; index += 1) {
    const code = sample.charCodeAt(index);
    if (code === 0xfffd || (code < 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0d && code !== 0x0c && code !== 0x1b)) suspicious += 1;
    else if (code >= 0xd800 && code <= 0xdbff && index + 1 < sample.length && isLowSurrogate(sample.charCodeAt(index + 1))) index += 1;
    else if (code >= 0xd800 && code <= 0xdfff) suspicious += 1;
  }
  return suspicious / sample.length > 0.1;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
