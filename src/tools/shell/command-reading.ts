/**
 * Reading a command's words with its program's grammar (command-forms.ts):
 * global options are skipped with their values, an unknown option forks the
 * reading (it may take the next word as its value), subcommands resolve
 * through aliases and long forms to a canonical path, and a word where a
 * subcommand goes that the grammar does not know leaves the reading open
 * (it may be a user alias, a plugin, an abbreviation). Where the program
 * takes abbreviations (npm), the word is also read as each subcommand it
 * may abbreviate, for block and ask rules.
 */
import type { CommandLevel, CommandSpec, OptionTable } from './commands/grammar.ts';
import type { ShellWord } from './shell-word.ts';

/** One way the command's words can be read. */
export interface CommandReading {
  /** The canonical subcommand path: `docker rmi x` → `image rm`. */
  path: string[];
  /** The word each path element was read from. */
  positions: number[];
  /** Options skipped before the path's words: where, and whether they are known to be harmless. */
  skipped: { index: number; harmless: boolean }[];
  /** The index after the last path word (1 without one). */
  rest: number;
  /** The word where a subcommand goes is unknown (user alias, plugin, run-time value): it may be any subcommand. */
  open: boolean;
  /** Where the reading stopped: the unknown word of an open reading, or the first argument. */
  stop: number;
  /** The grammar after the path, for the arguments. */
  level: CommandLevel | undefined;
  /** Another thing the command also does (`terraform apply -destroy`, `git send-pack`): it may match restrictive rules, never decides alone. */
  alternative?: boolean;
  /** An open reading whose unknown word abbreviates subcommands: block and ask rules read those readings (`abbreviation`) instead. */
  abbreviated?: boolean;
  /** Read with the unknown word as a subcommand it abbreviates (`npm publis` as `npm publish`): for block and ask rules only, since which subcommands there are depends on the program's version. */
  abbreviation?: boolean;
}

/** Beyond this many readings (unknown options forking), the command is read as open. */
const MAX_READINGS = 16;

/**
 * Every way a command's words can be read with its program's grammar.
 * Known options are skipped with their values; an unknown option forks the
 * reading (with and without a value); a word computed at run time where a
 * subcommand goes leaves the reading open.
 *
 * @example
 * readCommand({ spec: commandSpec('git')!, words, appendsArguments: false }) // git -p push → [{ path: ['push'], ... }]
 */
export function readCommand(options: { spec: CommandSpec; words: readonly ShellWord[]; appendsArguments: boolean }): CommandReading[] {
  const { spec, words } = options;
  const readings: CommandReading[] = [];
  const walk = (start: { level: CommandLevel; index: number; path: string[]; positions: number[]; skipped: { index: number; harmless: boolean }[]; expanded?: { index: number; value: string } }): void => {
    let { level, index, path, positions } = start;
    const skipped = [...start.skipped];
    let pending = level.reenter;
    const finish = (open: boolean, at: number, after: CommandLevel | undefined): void => {
      if (!open && path.length === 0 && spec.defaultPath !== undefined && !words.slice(at).some((word) => !isOptionLike(word.value))) {
        readings.push({ path: [...spec.defaultPath], positions: spec.defaultPath.map(() => 0), skipped, rest: 1, open, stop: at, level: after });
        return;
      }
      readings.push({ path, positions, skipped, rest: path.length === 0 ? 1 : positions[positions.length - 1]! + 1, open, stop: at, level: after });
    };
    while (index < words.length) {
      if (readings.length >= MAX_READINGS) return finish(true, index, level);
      const word = words[index]!;
      const leaf = level.subcommands.size === 0 && pending === undefined && !level.open;
      if (leaf) break;
      if (word.kind !== 'static') return finish(true, index, level);
      const value = start.expanded?.index === index ? start.expanded.value : word.value;
      if (value === '--') break;
      const plus = spec.plusOptions && path.length === 0 && value.startsWith('+');
      if (plus || isOptionLike(value)) {
        const kind: OptionKind = plus ? { kind: 'flag', harmless: false } : optionKind(value, optionsAt(spec, level));
        skipped.push({ index, harmless: kind.harmless });
        if (kind.kind === 'valued') index += 2;
        else if (kind.kind === 'unknown') {
          // It may take the next word as its value.
          const next = words[index + 1];
          if (next !== undefined && next.kind === 'static' && !isOptionLike(next.value)) walk({ level, index: index + 2, path, positions, skipped });
          index++;
        } else index++;
        continue;
      }
      if (pending !== undefined && pending > 0) {
        pending--;
        index++;
        continue;
      }
      if (pending === 0) {
        // `yarn workspace NAME add x`: the program's grammar again, as if NAME's words stood alone.
        level = spec.root;
        path = [];
        positions = [];
        pending = undefined;
        continue;
      }
      const subcommand = level.subcommands.get(value);
      if (subcommand === undefined) {
        if (!level.open) break;
        const expansions = level.abbreviations?.(value).filter((name) => level.subcommands.has(name)) ?? [];
        finish(true, index, level);
        if (expansions.length === 0) return;
        readings[readings.length - 1]!.abbreviated = true;
        for (const name of expansions) {
          const first = readings.length;
          walk({ level, index, path, positions, skipped, expanded: { index, value: name } });
          for (const reading of readings.slice(first)) reading.abbreviation = true;
        }
        return;
      }
      // A built-in alias the user's configuration may redefine: it may be any subcommand too.
      if (level.overridable?.has(value) === true) readings.push({ path, positions, skipped: [...skipped], rest: path.length === 0 ? 1 : positions[positions.length - 1]! + 1, open: true, stop: index, level });
      const also = level.alternatives?.get(value);
      if (also !== undefined) readings.push({ path: [...also], positions: also.map(() => index), skipped: [...skipped], rest: index + 1, open: false, stop: index + 1, level: undefined, alternative: true });
      positions = subcommand.path.map((element, at) => (at < path.length && path[at] === element ? positions[at]! : index));
      path = [...subcommand.path];
      index++;
      if (subcommand.level === undefined) return finish(false, index, undefined);
      level = subcommand.level;
      for (const [option, implied] of level.optionPaths ?? []) {
        // `terraform apply -destroy` is also read as `terraform destroy`.
        const at = words.findIndex((word, position) => position >= index && (word.kind !== 'static' || word.value === option || word.value.startsWith(`${option}=`)));
        if (at !== -1) readings.push({ path: [...implied], positions: implied.map(() => at), skipped: [...skipped], rest: at + 1, open: false, stop: at, level: undefined, alternative: true });
      }
      pending = level.reenter;
    }
    // Words ran out where a subcommand goes, and the rest is appended at run time (xargs git).
    finish(options.appendsArguments && index >= words.length && level.subcommands.size > 0, index, level);
  };
  walk({ level: spec.root, index: 1, path: [], positions: [], skipped: [] });
  return readings;
}

/**
 * Whether a word is written as an option (`-x`, `--name`); `-` alone is an operand.
 *
 * @example
 * isOptionLike('--global') // true
 */
export function isOptionLike(value: string): boolean {
  return value.length > 1 && value.startsWith('-');
}

function optionsAt(spec: CommandSpec, level: CommandLevel): OptionTable[] {
  return level === spec.root || !spec.optionsAnywhere ? [level.options] : [level.options, spec.root.options];
}

export type OptionKind = { kind: 'flag' | 'valued' | 'attached' | 'unknown'; harmless: boolean };

/**
 * How an option word is read by a grammar: a flag, an option taking the next
 * word, one with its value attached, or unknown.
 *
 * @example
 * optionKind('-nprod', kubectlOptions) // { kind: 'attached', harmless: true }
 */
export function optionKind(value: string, tables: OptionTable | readonly OptionTable[]): OptionKind {
  const list = Array.isArray(tables) ? (tables as readonly OptionTable[]) : [tables as OptionTable];
  const find = (option: string): { table: OptionTable; valued: boolean } | undefined => {
    for (const table of list) {
      if (table.flags.has(option)) return { table, valued: false };
      if (table.valued.has(option)) return { table, valued: true };
    }
    return undefined;
  };
  const equals = value.indexOf('=');
  const name = equals === -1 ? value : value.slice(0, equals);
  const whole = find(name);
  if (whole !== undefined) {
    const harmless = whole.table.harmless.has(name);
    if (equals !== -1) return { kind: 'attached', harmless };
    return { kind: whole.valued ? 'valued' : 'flag', harmless };
  }
  if (value.startsWith('--')) return { kind: equals === -1 ? 'unknown' : 'attached', harmless: false };
  // A cluster of short options: flags, then perhaps one that takes the rest of the word (or the next word) as its value.
  let harmless = true;
  for (let at = 1; at < value.length; at++) {
    const found = find(`-${value[at]}`);
    if (found === undefined) return { kind: 'unknown', harmless: false };
    harmless &&= found.table.harmless.has(`-${value[at]}`);
    if (found.valued) return { kind: at === value.length - 1 ? 'valued' : 'attached', harmless };
  }
  return { kind: 'flag', harmless };
}
