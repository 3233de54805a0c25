/**
 * Puts an object's short fields before its long ones, for people to read. A
 * model chooses the order of its arguments, and a 3,000-character `body`
 * first would push `to` out of view; the order of members never changes what
 * a JSON object means, so the person sees the decisive short fields first
 * and the long ones after, whatever order the model chose.
 */

/** Members up to this many characters (as compact JSON) count as short and keep their order. */
export const SHORT_FIELD_LENGTH = 80;

/**
 * The members of a JSON object text in reading order, as compact JSON text
 * (whitespace outside strings removed; the values' text is kept as sent,
 * never parsed and re-serialised, so big numbers are not rounded). Returns
 * undefined when `text` is not one JSON object, or when it names a key twice:
 * a parser keeps only the last of them, and moving one would change which.
 *
 * @example
 * shortFieldsFirstJson('{"body": "' + 'x'.repeat(200) + '", "to": "a@b.c"}') // '{"to":"a@b.c","body":"xxx…"}'
 */
export function shortFieldsFirstJson(text: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
  const members = topLevelMembers(minify(text));
  if (members === undefined) return undefined;
  const keys = new Set(members.map((member) => member.key));
  if (keys.size !== members.length) return undefined;
  return `{${orderMembers(members, (member) => member.text.length)
    .map((member) => member.text)
    .join(',')}}`;
}

/**
 * An object's keys in reading order: short values (as compact JSON) first in
 * their own order, then the long ones from shortest to longest.
 *
 * @example
 * shortFieldsFirstKeys({ body: 'x'.repeat(500), to: 'a@b.c' }) // ['to', 'body']
 */
export function shortFieldsFirstKeys(value: Record<string, unknown>): string[] {
  const members = Object.keys(value).map((key) => ({ key, length: key.length + 3 + compactLength(value[key]) }));
  return orderMembers(members, (member) => member.length).map((member) => member.key);
}

function orderMembers<T>(members: readonly T[], lengthOf: (member: T) => number): T[] {
  const short = members.filter((member) => lengthOf(member) <= SHORT_FIELD_LENGTH);
  // Array.prototype.sort is stable: long members of equal length keep their order.
  const long = members.filter((member) => lengthOf(member) > SHORT_FIELD_LENGTH).sort((left, right) => lengthOf(left) - lengthOf(right));
  return [...short, ...long];
}

function compactLength(value: unknown): number {
  try {
    return (JSON.stringify(value) ?? 'undefined').length;
  } catch {
    return Number.MAX_SAFE_INTEGER;
  }
}

/** Removes whitespace outside strings. */
function minify(text: string): string {
  let result = '';
  let inString = false;
  let escaped = false;
  for (const character of text) {
    if (inString) {
      result += character;
      if (escaped) escaped = false;
      else if (character === '\\') escaped = true;
      else if (character === '"') inString = false;
    } else if (character === '"') {
      inString = true;
      result += character;
    } else if (character !== ' ' && character !== '\t' && character !== '\n' && character !== '\r') {
      result += character;
    }
  }
  return result;
}

/** Splits a compact, valid JSON object into its members' texts and (decoded) keys. */
function topLevelMembers(compact: string): Array<{ key: string; text: string }> | undefined {
  if (!compact.startsWith('{') || !compact.endsWith('}')) return undefined;
  const members: Array<{ key: string; text: string }> = [];
  let depth = 0;
  let inString = false;
  let escaped = false;
  let start = 1;
  for (let index = 1; index < compact.length - 1; index += 1) {
    const character = compact[index]!;
    if (inString) {
      if (escaped) escaped = false;
      else if (character === '\\') escaped = true;
      else if (character === '"') inString = false;
      continue;
    }
    if (character === '"') inString = true;
    else if (character === '{' || character === '[') depth += 1;
    else if (character === '}' || character === ']') depth -= 1;
    else if (character === ',' && depth === 0) {
      members.push(member(compact.slice(start, index)));
      start = index + 1;
    }
  }
  if (start < compact.length - 1) members.push(member(compact.slice(start, compact.length - 1)));
  return members;
}

function member(text: string): { key: string; text: string } {
  // The key is the string before the first colon outside it; JSON.parse decodes its escapes, so "\u0074o" and "to" are the same key.
  let index = 1;
  let escaped = false;
  for (; index < text.length; index += 1) {
    const character = text[index]!;
    if (escaped) escaped = false;
    else if (character === '\\') escaped = true;
    else if (character === '"') break;
  }
  return { key: JSON.parse(text.slice(0, index + 1)) as string, text };
}
