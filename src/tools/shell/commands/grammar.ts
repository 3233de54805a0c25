/**
 * The vocabulary of a program's grammar, for the command models
 * (commands/) and the grammars of command-forms.ts: its options (which
 * take a value, which cannot change what runs), its subcommands with their
 * aliases and long forms, and where an unknown word may be a user-defined
 * alias, plugin, abbreviation or script. Reading commands with a grammar is
 * command-reading.ts's job.
 */

export interface OptionTable {
  /** Options that take no value. */
  flags: ReadonlySet<string>;
  /** Options whose value is the next word unless attached (`--name=value`, `-nvalue`). */
  valued: ReadonlySet<string>;
  /** Options (of either kind) that cannot change which program runs, what it reads its setup from, or where it acts. */
  harmless: ReadonlySet<string>;
  /** The same option spelled short and long (`-f` and `--force`), in both directions. */
  synonyms: ReadonlyMap<string, string>;
}

export interface Subcommand {
  /** The canonical path from the program's name: `docker rmi` → `image rm`. */
  path: readonly string[];
  /** The grammar after it; undefined when only arguments follow. */
  level: CommandLevel | undefined;
}

export interface CommandLevel {
  options: OptionTable;
  subcommands: ReadonlyMap<string, Subcommand>;
  /**
   * An unknown word where a subcommand goes may still be any subcommand: a
   * user-defined alias (git, cargo, gh, aws), a plugin on PATH (kubectl,
   * helm, docker), an abbreviation (npm) or a package script (yarn, pnpm).
   */
  open: boolean;
  /** After the subcommand, this many arguments, then the program's own grammar again (`yarn workspace NAME add x`). */
  reenter: number | undefined;
  /** Arguments that mean the same here (`kubectl delete po` is `pods`). */
  argumentAliases: ReadonlyMap<string, string> | undefined;
  /** Options that make it another subcommand too (`terraform apply -destroy` also does `terraform destroy`). */
  optionPaths: ReadonlyMap<string, readonly string[]> | undefined;
  /** Subcommands that also do what another does (`git send-pack` pushes): rules on that one may apply. */
  alternatives: ReadonlyMap<string, readonly string[]> | undefined;
  /** Options that may mean another the rule names (`--force-with-lease` forces a push). */
  optionMeanings: ReadonlyMap<string, string> | undefined;
  /** An argument starting with `+` means this option (`git push origin +main` forces). */
  plusMeans: string | undefined;
  /** Built-in aliases a user may redefine (cargo's `b`, `t`...): each may also be any subcommand. */
  overridable: ReadonlySet<string> | undefined;
  /**
   * The subcommands an unknown word may stand for, where the program takes
   * abbreviations of them (`npm publis` is `npm publish`): a block or ask
   * rule on one of them applies to the word as to the full name.
   */
  abbreviations: ((word: string) => readonly string[]) | undefined;
}

export interface CommandSpec {
  root: CommandLevel;
  /** The program's options may also follow its subcommands (cobra's persistent flags, npm's config). */
  optionsAnywhere: boolean;
  /** Words starting with `+` before the subcommand are options (`cargo +nightly build`). */
  plusOptions: boolean;
  /** What runs when no subcommand is given (a bare `yarn` installs). */
  defaultPath: readonly string[] | undefined;
}

const NO_OPTIONS: OptionTable = { flags: new Set(), valued: new Set(), harmless: new Set(), synonyms: new Map() };

/**
 * The words of a space-separated list.
 *
 * @example
 * listWords('build  test') // ['build', 'test']
 */
export function listWords(list: string | undefined): string[] {
  return list === undefined ? [] : list.split(/\s+/).filter((word) => word !== '');
}

/**
 * An option table from space-separated lists; a synonym pair is `-v=--verbose`.
 *
 * @example
 * options({ flags: '-v --verbose', valued: '-C', harmless: '-v --verbose', synonyms: '-v=--verbose' })
 */
export function options(table: { flags?: string; valued?: string; harmless?: string; synonyms?: string }): OptionTable {
  const synonyms = new Map<string, string>();
  for (const pair of listWords(table.synonyms)) {
    const [short, long] = pair.split('=') as [string, string];
    synonyms.set(short, long);
    synonyms.set(long, short);
  }
  return { flags: new Set(listWords(table.flags)), valued: new Set(listWords(table.valued)), harmless: new Set(listWords(table.harmless)), synonyms };
}

/**
 * A level of subcommands from a compact list: `rm` is itself, `remove:rm`
 * an alias, `rmi:image/rm` a path. `prefix` is the path of the level's
 * parent; `children` gives the grammar after a canonical path (`image`).
 */
export function level(spec: {
  options?: OptionTable;
  commands?: string;
  prefix?: readonly string[];
  children?: Record<string, CommandLevel>;
  open?: boolean;
  reenter?: number;
  argumentAliases?: ReadonlyMap<string, string>;
  optionPaths?: ReadonlyMap<string, readonly string[]>;
  alternatives?: ReadonlyMap<string, readonly string[]>;
  optionMeanings?: ReadonlyMap<string, string>;
  plusMeans?: string;
  overridable?: string;
  abbreviations?: (word: string) => readonly string[];
}): CommandLevel {
  const subcommands = new Map<string, Subcommand>();
  const prefix = spec.prefix ?? [];
  for (const token of listWords(spec.commands)) {
    const colon = token.indexOf(':');
    const name = colon === -1 ? token : token.slice(0, colon);
    const target = colon === -1 ? name : token.slice(colon + 1);
    const path = target.includes('/') ? target.split('/') : [...prefix, target];
    subcommands.set(name, { path, level: spec.children?.[path.join(' ')] });
  }
  return { options: spec.options ?? NO_OPTIONS, subcommands, open: spec.open ?? false, reenter: spec.reenter, argumentAliases: spec.argumentAliases, optionPaths: spec.optionPaths, alternatives: spec.alternatives, optionMeanings: spec.optionMeanings, plusMeans: spec.plusMeans, overridable: spec.overridable === undefined ? undefined : new Set(listWords(spec.overridable)), abbreviations: spec.abbreviations };
}

/**
 * A program's grammar from its top level.
 *
 * @example
 * program(level({ commands: 'build test' }), { defaultPath: ['build'] })
 */
export function program(root: CommandLevel, extra: { optionsAnywhere?: boolean; plusOptions?: boolean; defaultPath?: readonly string[] } = {}): CommandSpec {
  return { root, optionsAnywhere: extra.optionsAnywhere ?? false, plusOptions: extra.plusOptions ?? false, defaultPath: extra.defaultPath };
}
