/**
 * JSON for a terminal: `JSON.stringify` escapes C0 controls, but leaves DEL,
 * C1 controls, bidi overrides, zero-width and other invisible characters
 * raw, and a terminal acts on them or hides them. Here every character the
 * one sanitiser (`sanitizeTerminalSegments`) would show escaped is written
 * as a JSON `\u` escape instead: the same JSON value for any parser, and
 * nothing a terminal could act on.
 */
import { sanitizeTerminalSegments } from './sanitize-terminal-text.ts';

/**
 * `JSON.stringify(value)` with every hidden or control character escaped as
 * `\uXXXX` (astral ones as a surrogate pair). Returns `undefined` where
 * `JSON.stringify` does (undefined, a function).
 *
 * @example
 * terminalSafeJson({ path: 'report\u202efdp.exe' }) // '{"path":"report\\u202efdp.exe"}'
 */
export function terminalSafeJson(value: unknown, space?: number): string | undefined {
  const json = JSON.stringify(value, null, space);
  if (json === undefined) return undefined;
  // JSON text has no raw control characters left but the newlines of `space`; keep those as the line breaks they are.
  let result = '';
  for (const segment of sanitizeTerminalSegments(json, { keepNewlines: true })) {
    if (segment.kind === 'text') {
      result += segment.text;
      continue;
    }
    const codePoint = codePointOfEscape(segment.text);
    // An escape that cannot be read back would be a sanitiser change; failing loudly beats printing something unsafe.
    if (codePoint === undefined) throw new Error(`cannot write ${segment.text} as a JSON escape`);
    result += jsonEscape(codePoint);
  }
  return result;
}

function codePointOfEscape(text: string): number | undefined {
  const match = /^\\(?:x([0-9a-f]{2})|u([0-9a-f]{4})|u\{([0-9a-f]+)\})$/.exec(text);
  if (match === null) return NAMED.get(text);
  return Number.parseInt(match[1] ?? match[2] ?? match[3]!, 16);
}

const NAMED = new Map([
  ['\\b', 0x08],
  ['\\t', 0x09],
  ['\\n', 0x0a],
  ['\\v', 0x0b],
  ['\\f', 0x0c],
  ['\\r', 0x0d],
]);

function jsonEscape(codePoint: number): string {
  if (codePoint <= 0xffff) return `\\u${codePoint.toString(16).padStart(4, '0')}`;
  const offset = codePoint - 0x10000;
  return `\\u${(0xd800 + (offset >> 10)).toString(16)}\\u${(0xdc00 + (offset & 0x3ff)).toString(16)}`;
}
