/**
 * Reads a command's words the way GNU getopt does, from a small grammar of
 * the options that take a value: short clusters (`-rnC3`, `-e pattern`),
 * long options with `=value` or the next word, unique abbreviations
 * (`--reg=x` is `--regexp=x`), options after operands (GNU permutes), and
 * `--`. The path checks use it to tell which words are files, which are
 * patterns or scripts, and which are option values.
 */
import type { ShellWord } from './shell-word.ts';

export interface ArgumentGrammar {
  /** Short options that take a value, attached (`-C3`) or as the next word. */
  shortValued?: string;
  /** Short options whose value can only be attached (`-i.bak`). */
  shortOptional?: string;
  /** Short options without a value; with `longFlags`, what makes every option known. */
  shortFlags?: string;
  /** Long option names (no dashes) that take a value: `--name=value` or `--name value`. */
  longValued?: readonly string[];
  /** Long options whose value can only be attached (`--in-place[=SUFFIX]`). */
  longOptional?: readonly string[];
  /** Long options without a value. */
  longFlags?: readonly string[];
  /** Options stop at the first operand (POSIX and BSD utilities, `find`'s start points). */
  optionsFirst?: boolean;
}

export interface ScannedOption {
  /** `-e` or `--regexp` (the full name, even when abbreviated). */
  name: string;
  /** Its value, as a word of its own when it was attached. */
  value: ShellWord | undefined;
  /** Where the option word is. */
  index: number;
}

export interface ScannedArguments {
  options: ScannedOption[];
  operands: ShellWord[];
  /** An option this grammar does not name was seen: its value, if it has one, was read as an operand. */
  unknownOption: boolean;
  /** A word computed at run time was seen: it can be any number of options and operands. */
  dynamic: boolean;
}

/**
 * Splits `words` (from `start`, default 1: `words[0]` is the name) into
 * options and operands.
 *
 * @example
 * scanArguments({ words: [grep, -rn, -e, x, src], grammar: { shortValued: 'e', shortFlags: 'rn' } })
 * // { options: [-r, -n, -e x], operands: [src], unknownOption: false, dynamic: false }
 */
export function scanArguments(options: { words: readonly ShellWord[]; grammar: ArgumentGrammar; start?: number; end?: number }): ScannedArguments {
  const { words, grammar } = options;
  const end = options.end ?? words.length;
  const result: ScannedArguments = { options: [], operands: [], unknownOption: false, dynamic: false };
  let optionsOver = false;
  for (let index = options.start ?? 1; index < end; index++) {
    const word = words[index]!;
    if (word.kind === 'dynamic') result.dynamic = true;
    const value = word.value;
    if (optionsOver || word.kind === 'dynamic' || !value.startsWith('-') || value === '-') {
      result.operands.push(word);
      if (grammar.optionsFirst === true) optionsOver = true;
      continue;
    }
    if (value === '--') {
      optionsOver = true;
      continue;
    }
    if (value.startsWith('--')) {
      const equals = value.indexOf('=');
      const written = value.slice(2, equals === -1 ? undefined : equals);
      const attached = equals === -1 ? undefined : attachedWord(word, value.slice(equals + 1));
      const longValued = grammar.longValued ?? [];
      const known = uniqueMatch(written, [...longValued, ...(grammar.longOptional ?? []), ...(grammar.longFlags ?? [])]);
      if (known !== undefined && longValued.includes(known)) {
        const at = index;
        const next = attached === undefined && index + 1 < end ? words[++index] : undefined;
        result.options.push({ name: `--${known}`, value: attached ?? next, index: at });
        continue;
      }
      if (known === undefined) result.unknownOption = true;
      result.options.push({ name: `--${known ?? written}`, value: attached, index });
      continue;
    }
    const at = index;
    for (let position = 1; position < value.length; position++) {
      const letter = value[position]!;
      const rest = value.slice(position + 1);
      if (grammar.shortValued?.includes(letter) === true) {
        const attached = rest === '' ? (index + 1 < end ? words[++index] : undefined) : attachedWord(word, rest);
        result.options.push({ name: `-${letter}`, value: attached, index: at });
        break;
      }
      if (grammar.shortOptional?.includes(letter) === true) {
        result.options.push({ name: `-${letter}`, value: rest === '' ? undefined : attachedWord(word, rest), index: at });
        break;
      }
      if (grammar.shortFlags?.includes(letter) !== true && !/[0-9]/.test(letter)) result.unknownOption = true;
      result.options.push({ name: `-${letter}`, value: undefined, index: at });
    }
  }
  return result;
}

/**
 * Whether any option of `scanned` is one of `names` (`-e`, `--regexp`).
 *
 * @example
 * hasOption(scanned, ['-i', '--in-place']) // true for sed -i
 */
export function hasOption(scanned: ScannedArguments, names: readonly string[]): boolean {
  return scanned.options.some((option) => names.includes(option.name));
}

/**
 * The values of the options named `names`, in order.
 *
 * @example
 * optionValues(scanned, ['-f', '--file']) // the pattern files grep reads
 */
export function optionValues(scanned: ScannedArguments, names: readonly string[]): ShellWord[] {
  const values: ShellWord[] = [];
  for (const option of scanned.options) if (names.includes(option.name) && option.value !== undefined) values.push(option.value);
  return values;
}

/**
 * A value attached to an option word, as a word of its own. Tilde
 * expansion does not happen after `--name=` or `-x`, so it is off.
 *
 * @example
 * attachedWord(word('--file=/etc/x'), '/etc/x') // { value: '/etc/x', kind: 'static', tilde: false, ... }
 */
export function attachedWord(word: ShellWord, value: string): ShellWord {
  return { text: value, value, kind: word.kind, tilde: false };
}

/** GNU getopt_long: an exact name, or a prefix of exactly one name (an ambiguous prefix is an error, so unknown). */
function uniqueMatch(written: string, names: readonly string[] | undefined): string | undefined {
  if (names === undefined || written === '') return undefined;
  if (names.includes(written)) return written;
  const candidates = names.filter((name) => name.startsWith(written));
  return candidates.length === 1 ? candidates[0] : undefined;
}
