/**
 * Tool names that could pass for other names. Rules name tools as people
 * type them; a name with characters that do not show (zero-width, bidi
 * controls), with compatibility forms (fullwidth `ｄｅｌｅｔｅ`, ligatures), or
 * with letters of several scripts (a Cyrillic `е` in `delete_file`) reads as
 * one name and is another, so a `block` written for the real name would not
 * match it. Such a name is never judged as it is written: the gate blocks it
 * and says why, with the name escaped so the reader sees what is in it.
 *
 * A name in one script of its own (`удалить`, `写文件`) is a name like any
 * other. Whole-script look-alikes (an all-Cyrillic `аре` for `ape`) need
 * Unicode's confusables table and are not caught here; the MCP gateway
 * therefore lists only names of the MCP specification's characters
 * (`refusedToolName` in src/mcp).
 */
import { sanitizeTerminalText } from './sanitize-terminal-text.ts';

/**
 * Script groups whose letters are told apart; the scripts one language
 * writes together (Japanese: Han, Hiragana, Katakana) are one group.
 */
const SCRIPT_GROUPS: ReadonlyArray<{ name: string; letters: RegExp }> = [
  { name: 'Latin', letters: /\p{Script=Latin}/u },
  { name: 'Cyrillic', letters: /\p{Script=Cyrillic}/u },
  { name: 'Greek', letters: /\p{Script=Greek}/u },
  { name: 'Armenian', letters: /\p{Script=Armenian}/u },
  { name: 'Cherokee', letters: /\p{Script=Cherokee}/u },
  { name: 'Han, Hiragana or Katakana', letters: /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u },
  { name: 'Hangul', letters: /\p{Script=Hangul}/u },
  { name: 'Arabic', letters: /\p{Script=Arabic}/u },
  { name: 'Hebrew', letters: /\p{Script=Hebrew}/u },
];

/**
 * Why `name` cannot be judged as written, or undefined when it can.
 *
 * @example
 * unsafeToolName('delete_file') // undefined
 * unsafeToolName('delete\u200bfile') // 'contains characters that do not show (delete\\u200bfile)'
 * unsafeToolName('dеlete_file') // 'mixes letters of the Latin and Cyrillic scripts, as look-alikes of other names do'
 */
export function unsafeToolName(name: string): string | undefined {
  const shown = sanitizeTerminalText(name);
  if (shown !== name) return `contains characters that do not show (${shown})`;
  const compatible = name.normalize('NFKC');
  if (compatible !== name) return `is written with compatibility characters: it reads as ${JSON.stringify(compatible)}`;
  const scripts = new Set<string>();
  for (const character of name) {
    if (!/\p{L}/u.test(character)) continue;
    scripts.add(SCRIPT_GROUPS.find((group) => group.letters.test(character))?.name ?? 'other');
  }
  if (scripts.size > 1) return `mixes letters of the ${[...scripts].join(' and ')} scripts, as look-alikes of other names do`;
  return undefined;
}
