/**
 * JSON as a person should read it in a prompt: short fields first, one
 * member per line, and the text of every value exactly as sent (never parsed
 * and re-serialised, which would round big numbers and merge duplicate
 * keys); and any value at all turned into readable JSON without throwing.
 */
import { shortFieldsFirstJson } from '../core/short-fields-first.ts';

/**
 * A JSON object with its short fields first (a long `body` must not push `to`
 * out of view), re-indented; any other text as it is.
 *
 * @example
 * readingOrder('{"body":"…3000 characters…","to":"a@b.c"}') // '{\n  "to": "a@b.c",\n  "body": "…"\n}'
 */
export function readingOrder(content: string): string {
  const ordered = shortFieldsFirstJson(content);
  if (ordered === undefined) return reindentJson(content) ?? content;
  return reindentJson(ordered) ?? ordered;
}

/**
 * Single-line JSON re-indented without parsing values, so what is shown is
 * the text as sent: parsing and re-serialising would round big numbers and
 * merge duplicate keys, and the person must see what will actually run.
 * Returns undefined when the content is not one line of valid JSON.
 *
 * @example
 * reindentJson('{"a":[1,2]}') // '{\n  "a": [\n    1,\n    2\n  ]\n}'
 */
export function reindentJson(content: string): string | undefined {
  if (content.includes('\n') || !/^\s*[[{]/.test(content)) return undefined;
  try {
    JSON.parse(content);
  } catch {
    return undefined;
  }
  let result = '';
  let depth = 0;
  let inString = false;
  let escaped = false;
  const newline = (): string => `\n${'  '.repeat(depth)}`;
  for (let index = 0; index < content.length; index += 1) {
    const character = content[index]!;
    if (inString) {
      result += character;
      if (escaped) escaped = false;
      else if (character === '\\') escaped = true;
      else if (character === '"') inString = false;
      continue;
    }
    if (character === '"') {
      inString = true;
      result += character;
    } else if (character === '{' || character === '[') {
      let next = index + 1;
      while (next < content.length && ' \t\r\n'.includes(content[next]!)) next += 1;
      if (content[next] === (character === '{' ? '}' : ']')) {
        result += character + content[next];
        index = next;
      } else {
        depth += 1;
        result += character + newline();
      }
    } else if (character === '}' || character === ']') {
      depth -= 1;
      result += newline() + character;
    } else if (character === ',') {
      result += `,${newline()}`;
    } else if (character === ':') {
      result += ': ';
    } else if (!' \t\r\n'.includes(character)) {
      result += character;
    }
  }
  return result;
}

/**
 * Pretty JSON of any value: never throws (cycles, BigInt, throwing toJSON).
 *
 * @example
 * safeJson({ n: 1n }) // '{\n  "n": "1n"\n}'
 */
export function safeJson(value: unknown): string {
  if (value === undefined) return '(no payload)';
  const ancestors: unknown[] = [];
  try {
    const text = JSON.stringify(
      value,
      function (this: unknown, _key: string, member: unknown) {
        if (typeof member === 'bigint') return `${member}n`;
        if (typeof member === 'function') return `[function ${member.name || 'anonymous'}]`;
        if (typeof member === 'symbol') return member.toString();
        if (typeof member !== 'object' || member === null) return member;
        while (ancestors.length > 0 && ancestors[ancestors.length - 1] !== this) ancestors.pop();
        if (ancestors.includes(member)) return '[circular]';
        ancestors.push(member);
        return member;
      },
      2,
    );
    return text ?? String(value);
  } catch {
    try {
      return String(value);
    } catch {
      return '(an unprintable value)';
    }
  }
}
