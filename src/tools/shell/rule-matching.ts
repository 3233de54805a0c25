/**
 * Matching a rule's words against a command on what the command does, two
 * ways: whether the command *surely* is the rule's command (what an allow
 * rule needs), and whether it *may* be (where a block or ask rule applies).
 * A command is read with its program's grammar (command-forms.ts): global
 * options are skipped (an unknown one may take the next word as its value,
 * so both readings count), subcommands resolve through aliases and long
 * forms, and a word where a subcommand goes that the grammar does not know
 * may be a user alias, plugin or abbreviation, so it may be any subcommand.
 */
import { commandSpec, runnerForms, type CommandLevel, type CommandSpec, type OptionTable } from './command-forms.ts';
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
}

/** A rule's words, read once with its program's grammar. */
export interface RuleForm {
  spec: CommandSpec | undefined;
  path: readonly string[];
  /** Where each path element sits in the rule's words. */
  pathPositions: readonly number[];
  /** The rule's words before its last path word that are not path words (options it names). */
  before: readonly string[];
  /** The rule's words after its path. */
  after: readonly string[];
  /** The index in the rule's words where `after` starts. */
  afterStart: number;
}

/** `yes` with whether every skipped option is harmless, and the command words the rule's words landed on. */
export interface FormMatch {
  status: 'yes' | 'maybe' | 'no';
  harmless: boolean;
  positions: number[];
}

/** Beyond this many readings (unknown options forking), the command is read as open. */
const MAX_READINGS = 16;

/**
 * Reads a rule's words (all static) with the grammar of its program.
 *
 * @example
 * ruleForm(['docker', 'rmi']).path // ['image', 'rm']
 */
export function ruleForm(ruleWords: readonly string[], name: string): RuleForm {
  const spec = commandSpec(name);
  if (spec === undefined) return { spec, path: [], pathPositions: [], before: [], after: ruleWords.slice(1), afterStart: 1 };
  const words = ruleWords.map((value): ShellWord => ({ text: value, value, kind: 'static', tilde: false }));
  // An option the grammar does not know is read as a flag in a rule: its author wrote no value after it.
  const reading = readCommand({ spec, words, appendsArguments: false }).reduce((best, candidate) => (candidate.path.length > best.path.length ? candidate : best));
  const end = reading.path.length === 0 ? 1 : reading.rest;
  const pathWords = new Set(reading.positions);
  const before: string[] = [];
  for (let index = 1; index < end; index++) if (!pathWords.has(index)) before.push(ruleWords[index]!);
  return { spec, path: reading.path, pathPositions: reading.positions, before, after: ruleWords.slice(end), afterStart: end };
}

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
  const walk = (start: { level: CommandLevel; index: number; path: string[]; positions: number[]; skipped: { index: number; harmless: boolean }[] }): void => {
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
      const value = word.value;
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
        if (level.open) return finish(true, index, level);
        break;
      }
      positions = subcommand.path.map((element, at) => (at < path.length && path[at] === element ? positions[at]! : index));
      path = [...subcommand.path];
      index++;
      if (subcommand.level === undefined) return finish(false, index, undefined);
      level = subcommand.level;
      for (const [option, implied] of level.optionPaths ?? []) {
        // `terraform apply -destroy` is also read as `terraform destroy`.
        const at = words.findIndex((word, position) => position >= index && (word.kind !== 'static' || word.value === option || word.value.startsWith(`${option}=`)));
        if (at !== -1) readings.push({ path: [...implied], positions: implied.map(() => at), skipped, rest: at + 1, open: false, stop: at, level: undefined });
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
 * Matches a rule form against one reading of a command (`words[0]` is the
 * name, already matched). `yes` means surely, under this reading. For a
 * `restrictive` (block or ask) rule, an option it names counts wherever it
 * stands before `--`; for an allow rule only right after the words before it.
 *
 * @example
 * matchReading({ form, reading, words, appendsArguments: false, restrictive: true }).status // 'yes'
 */
export function matchReading(options: { form: RuleForm; reading: CommandReading | undefined; words: readonly ShellWord[]; appendsArguments: boolean; restrictive: boolean }): FormMatch {
  const { form, reading, words } = options;
  const positions = [0];
  let harmless = true;
  let sure = true;
  let start = 1;
  let level: CommandLevel | undefined;
  if (reading !== undefined && form.spec !== undefined) {
    const common = Math.min(form.path.length, reading.path.length);
    for (let at = 0; at < common; at++) if (form.path[at] !== reading.path[at]) return NO;
    if (form.path.length > reading.path.length) return reading.open ? { status: 'maybe', harmless: false, positions } : NO;
    if (form.path.length > 0) {
      const last = reading.positions[form.path.length - 1]!;
      positions.push(...new Set(reading.positions.slice(0, form.path.length)));
      for (const option of reading.skipped) {
        if (option.index < last && !option.harmless && !form.before.includes(words[option.index]!.value)) harmless = false;
      }
      if (form.before.length > 0) {
        const segment = words.slice(1, last);
        for (const word of form.before) {
          const at = segment.findIndex((candidate) => candidate.kind === 'static' && candidate.value === word);
          if (at === -1) sure = false;
          else positions.push(at + 1);
        }
        const rootOptions = form.spec.root.options;
        if (!sure && !form.before.every((word) => mayContain({ words: segment, word, table: rootOptions }))) return NO;
      }
      start = last + 1;
      level = reading.path.length === form.path.length ? reading.level : undefined;
    } else {
      level = form.spec.root;
    }
  }
  const table = form.spec === undefined ? undefined : level === undefined ? form.spec.root.options : level.options;
  const anywhere = form.spec?.optionsAnywhere === true ? form.spec.root.options : undefined;
  let after = form.after;
  if (anywhere !== undefined && reading !== undefined && after.some(isOptionLike)) {
    // `npm -g install x` is `npm install -g x`: an option the rule names may stand before the subcommand.
    after = after.filter((expected) => {
      if (!isOptionLike(expected)) return true;
      const found = reading.skipped.find((option) => option.index < start && sameWord({ value: words[option.index]!.value, expected, table: anywhere, aliases: undefined }));
      if (found !== undefined) positions.push(found.index);
      return found === undefined;
    });
  }
  const walk = walkAfter({ words, start, after, table, anywhere, aliases: level?.argumentAliases, restrictive: options.restrictive });
  if (walk.sure) return { status: sure ? 'yes' : 'maybe', harmless: harmless && walk.harmless, positions: [...positions, ...walk.positions] };
  if (walk.ranOut && options.appendsArguments) return { status: 'maybe', harmless: false, positions };
  if (!mayFollow({ words, start, optionStart: anywhere === undefined ? start : 1, after, table, appendsArguments: options.appendsArguments, aliases: level?.argumentAliases })) return NO;
  return { status: 'maybe', harmless: false, positions };
}

const NO: FormMatch = { status: 'no', harmless: false, positions: [] };

/** The rule's remaining words, in order, each right after the one before, skipping only options the grammar knows. */
function walkAfter(options: { words: readonly ShellWord[]; start: number; after: readonly string[]; table: OptionTable | undefined; anywhere: OptionTable | undefined; aliases: ReadonlyMap<string, string> | undefined; restrictive: boolean }): { sure: boolean; harmless: boolean; ranOut: boolean; positions: number[] } {
  const { words, after, table } = options;
  let index = options.start;
  let harmless = true;
  const positions: number[] = [];
  for (const expected of after) {
    for (;;) {
      const word = words[index];
      if (word === undefined) return { sure: false, harmless, ranOut: true, positions };
      if (word.kind !== 'static') return { sure: false, harmless, ranOut: false, positions };
      if (sameWord({ value: word.value, expected, table, aliases: options.aliases })) {
        positions.push(index);
        index++;
        break;
      }
      if (options.restrictive && isOptionLike(expected)) {
        // Programs take options after their arguments too (`npm i x --global`, `rm x -rf`): for a block or ask rule, anywhere before `--` counts.
        const end = words.findIndex((candidate, at) => at >= index && candidate.value === '--');
        const at = words.findIndex((candidate, position) => position >= index && (end === -1 || position < end) && candidate.kind === 'static' && sameWord({ value: candidate.value, expected, table, aliases: undefined }));
        if (at !== -1) {
          positions.push(at);
          harmless = false;
          break;
        }
      }
      if (!isOptionLike(word.value) || table === undefined) return { sure: false, harmless, ranOut: false, positions };
      let kind = optionKind(word.value, table);
      if (kind.kind === 'unknown' && options.anywhere !== undefined) kind = optionKind(word.value, options.anywhere);
      if (kind.kind === 'unknown') return { sure: false, harmless, ranOut: false, positions };
      harmless &&= kind.harmless;
      index += kind.kind === 'valued' ? 2 : 1;
    }
  }
  return { sure: true, harmless, ranOut: false, positions };
}

/** Whether the rule's remaining words may all be among the command's: options anywhere (in any spelling), other words in order. */
function mayFollow(options: { words: readonly ShellWord[]; start: number; optionStart: number; after: readonly string[]; table: OptionTable | undefined; appendsArguments: boolean; aliases: ReadonlyMap<string, string> | undefined }): boolean {
  const { words, after, table, aliases } = options;
  const region = words.slice(options.start);
  if (options.appendsArguments) return true;
  // `kubectl delete -f manifest.yaml` deletes whatever the file lists.
  if (aliases !== undefined && region.some((word) => /^(-f|--filename|-k|--kustomize)(=|$)|^-f./.test(word.value))) return true;
  let from = 0;
  for (const expected of after) {
    if (isOptionLike(expected)) {
      if (!mayContain({ words: words.slice(options.optionStart), word: expected, table })) return false;
      continue;
    }
    let found = false;
    for (; from < region.length; from++) {
      const word = region[from]!;
      if (word.kind !== 'static' || sameWord({ value: word.value, expected, table, aliases }) || (aliases !== undefined && mayBeArgument(word.value, expected, aliases))) {
        found = true;
        from++;
        break;
      }
    }
    if (!found) return false;
  }
  return true;
}

/** Whether an option the rule names may be among these words: spelled the same, as its synonym, abbreviated, or inside a cluster. */
function mayContain(options: { words: readonly ShellWord[]; word: string; table: OptionTable | undefined }): boolean {
  const { words, word: expected, table } = options;
  const synonym = table?.synonyms.get(expected);
  const known = (option: string) => table !== undefined && (table.flags.has(option) || table.valued.has(option));
  const expectedLong = expected.startsWith('--') ? expected.split('=')[0]! : synonym?.startsWith('--') === true ? synonym : undefined;
  // A single-dash word the grammar does not name may be a cluster of short options: each letter must turn up.
  const letters = !expected.startsWith('--') && !known(expected) ? [...expected.slice(1)] : expected.length === 2 ? [expected[1]!] : [];
  const seen = new Set<string>();
  for (const word of words) {
    if (word.kind !== 'static') return true;
    const value = word.value;
    if (value === '--') break;
    if (!isOptionLike(value)) continue;
    if (value === expected || value.split('=')[0] === expected || (synonym !== undefined && value.split('=')[0] === synonym)) return true;
    if (value.startsWith('--')) {
      const name = value.split('=')[0]!;
      // GNU getopt and git's parser take a unique prefix of a long option.
      if (expectedLong !== undefined && name.length >= 4 && expectedLong.startsWith(name)) return true;
      const short = table?.synonyms.get(name);
      if (short !== undefined && short.length === 2) seen.add(short[1]!);
      // A long option the grammar does not know may be another spelling of a short one.
      else if (!known(name) && letters.length > 0) return true;
      continue;
    }
    for (const letter of value.slice(1)) {
      const option = `-${letter}`;
      if (expectedLong !== undefined && (table?.synonyms.get(option) === expectedLong || !known(option))) return true;
      seen.add(letter);
    }
  }
  return letters.length > 0 && letters.every((letter) => seen.has(letter));
}

function sameWord(options: { value: string; expected: string; table: OptionTable | undefined; aliases: ReadonlyMap<string, string> | undefined }): boolean {
  const { value, expected } = options;
  if (value === expected) return true;
  if (isOptionLike(value)) return options.table?.synonyms.get(value) === expected;
  const aliases = options.aliases;
  // `pod/web` and `pods.v1.` name the same resource type as `pods`.
  return aliases !== undefined && !value.includes(',') && canonicalArgument(value, aliases) === canonicalArgument(expected, aliases);
}

/** `all` and `pods,svc` may include the rule's resource type. */
function mayBeArgument(value: string, expected: string, aliases: ReadonlyMap<string, string>): boolean {
  const wanted = canonicalArgument(expected, aliases);
  return value.split('/')[0]!.split(',').some((part) => part === 'all' || canonicalArgument(part, aliases) === wanted);
}

function canonicalArgument(value: string, aliases: ReadonlyMap<string, string>): string {
  const type = value.split('/')[0]!.split('.')[0]!;
  return aliases.get(type) ?? type;
}

function isOptionLike(value: string): boolean {
  return value.length > 1 && value.startsWith('-');
}

function optionsAt(spec: CommandSpec, level: CommandLevel): OptionTable[] {
  return level === spec.root || !spec.optionsAnywhere ? [level.options] : [level.options, spec.root.options];
}

type OptionKind = { kind: 'flag' | 'valued' | 'attached' | 'unknown'; harmless: boolean };

/** How an option word is read by a grammar: a flag, an option taking the next word, one with its value attached, or unknown. */
function optionKind(value: string, tables: OptionTable | readonly OptionTable[]): OptionKind {
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

/** A command a package runner runs: where its words start, or unknown (code in a string, a word computed at run time). */
export type RunnerCommand = { start: number; via: string } | { start: undefined; via: string };

/**
 * The commands a package runner (`npx`, `npm exec`, `pnpm dlx`, `uv run`,
 * `yarn <bin>`...) runs from its arguments, under any reading: the wrapper
 * grammar does not unwrap these, so rules look inside them here.
 *
 * @example
 * runnerCommands({ name: 'npx', words, readings: undefined }) // npx git push → [{ start: 1, via: 'run by npx' }]
 */
export function runnerCommands(options: { name: string; words: readonly ShellWord[]; readings: readonly CommandReading[] | undefined }): RunnerCommand[] {
  const { name, words } = options;
  const found: RunnerCommand[] = [];
  for (const form of runnerForms(name)) {
    const via = `run by ${[name, ...form.path].join(' ')}`;
    const starts: number[] = [];
    if (form.path.length === 0) starts.push(1);
    else if (form.path[0] === '*') {
      for (const reading of options.readings ?? []) if (reading.open && words[reading.stop]?.kind === 'static') starts.push(reading.stop);
    } else if (options.readings !== undefined) {
      for (const reading of options.readings) if (reading.path.join(' ') === form.path.join(' ')) starts.push(reading.rest);
    } else {
      // No grammar for it (uv, pipx): its subcommand words right after the name.
      if (form.path.every((word, at) => words[at + 1]?.kind === 'static' && words[at + 1]!.value === word)) starts.push(form.path.length + 1);
    }
    for (const start of new Set(starts)) {
      if (form.path[0] === '*') {
        found.push({ start, via: `run by ${name} (${words[start]!.value} may be a package's program)` });
        continue;
      }
      found.push(innerStart({ words, start, valued: form.valued, code: form.code, codeArgument: form.codeArgument, via }));
    }
  }
  return found;
}

function innerStart(options: { words: readonly ShellWord[]; start: number; valued: ReadonlySet<string>; code: ReadonlySet<string>; codeArgument: boolean; via: string }): RunnerCommand {
  const { words, via } = options;
  for (let index = options.start; index < words.length; index++) {
    const word = words[index]!;
    if (word.kind !== 'static') return { start: undefined, via: `${via}: ${word.text} is only known at run time` };
    const value = word.value;
    if (value === '--') return index + 1 < words.length ? checked(index + 1) : { start: undefined, via };
    if (!isOptionLike(value)) return checked(index);
    const option = value.split('=')[0]!;
    if (options.code.has(option)) return { start: undefined, via: `${via} ${option}: it runs shell code given as a string` };
    if (options.valued.has(option) && !value.includes('=')) index++;
  }
  return { start: words.length, via };

  function checked(index: number): RunnerCommand {
    return options.codeArgument ? { start: undefined, via: `${via}: it runs shell code given as a string` } : { start: index, via };
  }
}
