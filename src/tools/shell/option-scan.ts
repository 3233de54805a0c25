/**
 * Finds options that run programs or write files in a command's words, the
 * way the programs themselves read them: short options bundled in clusters
 * (`-sSo`), long options with `=value` or abbreviated (GNU getopt accepts
 * any unique prefix: `--to-com` is `--to-command`), single-dash long options
 * (`find -delete`). Scanning stops at `--`.
 */
import { hazardAt, type Hazard, type HazardKind } from './hazard.ts';
import type { ShellWord } from './shell-word.ts';

export interface OptionHazardRule {
  /** Short option letters, found anywhere in a `-abc` cluster (an attached value may hide one: conservative). */
  short?: string;
  /** Long option names without dashes: `--name`, `--name=value`, and every abbreviation of them. */
  long?: readonly string[];
  /** Single-dash long option names without the dash: `-name` or `-name=value` (also `--name`). */
  single?: readonly string[];
  kind: HazardKind;
  /** What the option does, for the reason: "runs a program on every file". */
  what: string;
}

/** A glob or brace expansion that can make a word starting with `-`: `*`, `[`, `{`. */
const LEADING_GLOB = /^[*?[{]/;
/** An option whose name a glob or braces can change: `-*`, `--p*`, `-{-pre=sh,-no-config}` (not `--glob=*.ts`, whose name is written out). */
const OPTION_NAME_PATTERN = /^-[^=]*[*?[{(]/;

/**
 * Whether bash can turn the word into options: a glob or brace expansion
 * that can start with `-` (`-*` matching a file named `--pre=sh`, or
 * `-{-pre=rm,-no-config}`, which bash makes `--pre=rm --no-config`).
 *
 * @example
 * mayExpandToOptions(shellWord('-{-pre=sh,x}')) // true
 */
export function mayExpandToOptions(word: ShellWord): boolean {
  return word.kind === 'pattern' && (LEADING_GLOB.test(word.value) || OPTION_NAME_PATTERN.test(word.value));
}

/**
 * The hazards among `words` from index `start` on (0 is the command name).
 * A word computed at run time, or a glob that could expand to a file named
 * like an option (`--checkpoint-action=exec=sh`), is a hazard no rule covers.
 *
 * @example
 * scanOptions({ command: 'sort', words, rules: [{ long: ['compress-program'], kind: 'exec', what: 'runs a program' }] })
 */
export function scanOptions(options: {
  command: string;
  words: readonly ShellWord[];
  rules: readonly OptionHazardRule[];
  start?: number;
}): Hazard[] {
  const { command, words, rules } = options;
  const hazards: Hazard[] = [];
  for (let index = options.start ?? 1; index < words.length; index++) {
    const word = words[index]!;
    if (word.kind === 'dynamic') {
      hazards.push(hazardAt({ index: undefined, kind: 'unknown', reason: `${command}: the argument ${word.text} is only known at run time, so it could be an option that runs a program or writes a file` }));
      continue;
    }
    if (mayExpandToOptions(word)) {
      hazards.push(hazardAt({ index: undefined, kind: 'unknown', reason: `${command}: ${word.text} could expand to options (a glob matching files named like options, or a brace expansion), which this check cannot read` }));
      continue;
    }
    const value = word.value;
    if (value === '--') break;
    if (!value.startsWith('-') || value === '-') continue;
    for (const rule of rules) {
      if (optionMatches(rule, value)) {
        hazards.push(hazardAt({ index, kind: rule.kind, reason: `${command} ${truncate(value)}: ${rule.what}` }));
        break;
      }
    }
  }
  return hazards;
}

/**
 * Whether one option word (starting with `-`) is one of the rule's options.
 *
 * @example
 * optionMatches({ short: 'o', kind: 'write', what: '' }, '-uo')          // true: bundled
 * optionMatches({ long: ['compress-program'], kind: 'exec', what: '' }, '--compress') // true: abbreviated
 */
export function optionMatches(rule: OptionHazardRule, value: string): boolean {
  if (value.startsWith('--')) {
    const name = optionName(value.slice(2));
    if (name === '') return false;
    if (rule.long?.some((long) => long.startsWith(name)) === true) return true;
    return rule.single?.includes(name) === true;
  }
  if (rule.single?.includes(optionName(value.slice(1))) === true) return true;
  if (rule.short === undefined) return false;
  const cluster = value.slice(1);
  for (const letter of rule.short) if (cluster.includes(letter)) return true;
  return false;
}

function optionName(text: string): string {
  const equals = text.indexOf('=');
  return equals === -1 ? text : text.slice(0, equals);
}

function truncate(text: string): string {
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
