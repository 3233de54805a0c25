/**
 * JSON text as a fields block: the members of an object in reading order
 * (short fields first), each value's text as sent, re-indented, never parsed
 * and re-serialised; anything that is not one JSON object is a preformatted
 * text block instead.
 */
import type { FieldsBlock, TextBlock, ViewLine } from './approval-view-types.ts';
import { inertLine, inertLines } from './inert-lines.ts';
import { readingOrder } from './json-for-reading.ts';

/**
 * `content` (JSON text) as fields, or as preformatted text when it is not one object.
 *
 * @example
 * fieldsFromJson('{"body":"long…","to":"a@b.c"}') // { kind: 'fields', fields: [{ key: { text: 'to' }, value: [{ text: '"a@b.c"' }] }, ...] }
 */
export function fieldsFromJson(content: string): FieldsBlock | TextBlock {
  const ordered = readingOrder(content);
  const members = splitMembers(ordered);
  if (members === undefined) return { kind: 'text', lines: inertLines(ordered), preformatted: true };
  return {
    kind: 'fields',
    fields: members.map((member) => ({ key: inertLine(member.key), value: member.value.map((line) => inertLine(line)) })),
  };
}

/**
 * The fields as the JSON text they came from (`{`, one `"key": value` per
 * member, `}`), each line's pieces kept apart so a renderer can style them.
 *
 * @example
 * fieldsAsJsonLines(block) // [[{ text: '{' }], [{ text: '  "' }, key, { text: '": ' }, value], ..., [{ text: '}' }]]
 */
export function fieldsAsJsonLines(block: FieldsBlock): ViewLine[][] {
  if (block.fields.length === 0) return [[{ text: '{}' }]];
  const lines: ViewLine[][] = [[{ text: '{' }]];
  block.fields.forEach((field, index) => {
    const last = index === block.fields.length - 1;
    field.value.forEach((value, line) => {
      const parts: ViewLine[] = line === 0 ? [{ text: '  "' }, field.key, { text: '": ' }, value] : [{ text: '  ' }, value];
      if (!last && line === field.value.length - 1) parts.push({ text: ',' });
      lines.push(parts);
    });
  });
  lines.push([{ text: '}' }]);
  return lines;
}

/** The top-level members of re-indented JSON (`{`, members at two spaces, `}`), or undefined when it is not that. */
function splitMembers(text: string): Array<{ key: string; value: string[] }> | undefined {
  if (text === '{}') return [];
  const lines = text.split('\n');
  if (lines.length < 3 || lines[0] !== '{' || lines[lines.length - 1] !== '}') return undefined;
  const members: Array<{ key: string; value: string[] }> = [];
  for (const line of lines.slice(1, -1)) {
    if (line.startsWith('  "')) {
      const end = stringEnd(line, 3);
      if (end === -1 || line.slice(end + 1, end + 3) !== ': ') return undefined;
      members.push({ key: line.slice(3, end), value: [line.slice(end + 3)] });
    } else if (line.startsWith('    ') && members.length > 0) {
      members[members.length - 1]!.value.push(line.slice(2));
    } else if (line.startsWith('  ') && members.length > 0 && /^ {2}[}\]]/.test(line)) {
      members[members.length - 1]!.value.push(line.slice(2));
    } else {
      return undefined;
    }
  }
  for (const [index, member] of members.entries()) {
    if (index === members.length - 1) continue;
    const last = member.value.length - 1;
    if (!member.value[last]!.endsWith(',')) return undefined;
    member.value[last] = member.value[last]!.slice(0, -1);
  }
  return members;
}

/** The index of the quote closing the JSON string that starts at `from`, or -1. */
function stringEnd(line: string, from: number): number {
  for (let index = from; index < line.length; index += 1) {
    if (line[index] === '\\') index += 1;
    else if (line[index] === '"') return index;
  }
  return -1;
}
