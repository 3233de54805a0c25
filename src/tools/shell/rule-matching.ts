/**
 * Matching a rule's words against a command on what the command does, two
 * ways: whether the command *surely* is the rule's command (what an allow
 * rule needs), and whether it *may* be (where a block or ask rule applies).
 * Both the rule and the command are read with the program's grammar
 * (command-reading.ts); the rule's remaining words are then found among the
 * command's: right after each other for `yes`, anywhere and in any spelling
 * the program accepts for `maybe`.
 */
import { commandSpec } from './command-forms.ts';
import type { CommandLevel, CommandSpec, OptionTable } from './commands/grammar.ts';
import { isOptionLike, optionKind, readCommand, type CommandReading } from './command-reading.ts';
import type { ShellWord } from './shell-word.ts';

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
  // Every walk ends in a reading of its own (never only alternatives), so there is always one.
  const reading = readCommand({ spec, words, appendsArguments: false }).filter((candidate) => candidate.alternative !== true && candidate.abbreviation !== true).reduce((best, candidate) => (candidate.path.length > best.path.length ? candidate : best));
  const end = reading.path.length === 0 ? 1 : reading.rest;
  const pathWords = new Set(reading.positions);
  const before: string[] = [];
  for (let index = 1; index < end; index++) if (!pathWords.has(index)) before.push(ruleWords[index]!);
  return { spec, path: reading.path, pathPositions: reading.positions, before, after: ruleWords.slice(end), afterStart: end };
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
  if (!mayFollow({ words, start, optionStart: anywhere === undefined ? start : 1, after, table, level, appendsArguments: options.appendsArguments, aliases: level?.argumentAliases })) return NO;
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
function mayFollow(options: { words: readonly ShellWord[]; start: number; optionStart: number; after: readonly string[]; table: OptionTable | undefined; level: CommandLevel | undefined; appendsArguments: boolean; aliases: ReadonlyMap<string, string> | undefined }): boolean {
  const { words, after, table, aliases } = options;
  const region = words.slice(options.start);
  if (options.appendsArguments) return true;
  // `kubectl delete -f manifest.yaml` deletes whatever the file lists.
  if (aliases !== undefined && region.some((word) => /^(-f|--filename|-k|--kustomize)(=|$)|^-f./.test(word.value))) return true;
  let from = 0;
  for (const expected of after) {
    if (isOptionLike(expected)) {
      if (!mayContain({ words: words.slice(options.optionStart), word: expected, table, level: options.level })) return false;
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
function mayContain(options: { words: readonly ShellWord[]; word: string; table: OptionTable | undefined; level?: CommandLevel | undefined }): boolean {
  const { words, word: expected, table, level } = options;
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
    // `git push origin +main` forces the push.
    if (level?.plusMeans !== undefined && value.length > 1 && value.startsWith('+') && (level.plusMeans === expected || level.plusMeans === synonym)) return true;
    if (!isOptionLike(value)) continue;
    if (value === expected || value.split('=')[0] === expected || (synonym !== undefined && value.split('=')[0] === synonym)) return true;
    const meaning = level?.optionMeanings?.get(value.split('=')[0]!);
    if (meaning !== undefined && (meaning === expected || meaning === synonym)) return true;
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
      // A short option the grammar does not know may be another spelling of the long one the rule names.
      if (expectedLong !== undefined && (table?.synonyms.get(option) === expectedLong || (expected.startsWith('--') && !known(option)))) return true;
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

