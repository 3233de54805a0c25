/**
 * What toolgate knows about one command (family), declared in one place:
 * its options that run programs, write or read beyond its operands; what
 * its operands and option values read, write and delete; the options that
 * name a file listing the files it works on; and what it does to directory
 * entries. Each command's module (`commands/tar.ts`) fills one in, as data
 * where it can be and with the few checks that cannot be data beside it;
 * the aspect engines (option-hazards.ts, write-arguments.ts,
 * unknown-command-paths.ts, line-layout-changes.ts, command-semantics.ts,
 * decide-command-paths.ts) read them and name no command they describe.
 */
import type { Hazard } from '../hazard.ts';
import type { OptionHazardRule } from '../option-scan.ts';
import type { PathHandler } from '../path-argument.ts';
import type { ShellWord } from '../shell-word.ts';
import type { CommandSpec } from './grammar.ts';

/** How appended arguments arrive. */
export interface AppendedNames {
  /**
   * `whole`: each name is one argument (find -exec, fd -x). `nul`: cut from
   * the input at NUL bytes only (xargs -0): whole names when the input is a
   * NUL-separated listing. `split`: cut at spaces, tabs and newlines with
   * quotes and backslashes read (xargs), or at a chosen character (xargs
   * -d): a name holding one becomes several arguments, so `x /etc/passwd`
   * under the workspace reads /etc/passwd.
   */
  cut: 'whole' | 'nul' | 'split';
  /** They follow the written words (not put in place of a `{}`), so a final `--` keeps them from being read as options. */
  atEnd: boolean;
}

/** A command another runs from its own words (`find -exec cmd {} +`, `sudo cmd`). */
export interface InnerCommand {
  words: ShellWord[];
  via: string;
  /** It receives arguments that are not written in the command line (xargs, find -exec's `{}`). */
  appendsArguments: boolean;
  /** How they arrive, when it receives any. */
  appendedNames?: AppendedNames;
  /** It runs in another directory than the wrapper (env -C, sudo -D). */
  changesDirectory: boolean;
}

/** The commands one runs from its own words, found by its model. */
export interface RunCommands {
  inner: InnerCommand[];
  hazards: Hazard[];
  /** Why it is a wrapper (`find -exec runs another command`), when it runs any. */
  wrapper: string | undefined;
}

/** A command that prints the names of files, whose output another command may take as its arguments (`find . -print0 | xargs -0 cat`). */
export interface Lister {
  /** How it prints the names: one per line, each ended by a NUL byte, or (undefined) not names at all in this form. */
  output: (words: readonly ShellWord[]) => 'nul' | 'lines' | undefined;
  /** Whether a name it prints may be a symlink's (so a command given it follows the link). */
  maySymlink: (words: readonly ShellWord[]) => boolean;
  /** Whether a name it prints may start with `-` (and so be read as an option). */
  mayPrintOptions: (words: readonly ShellWord[]) => boolean;
  /** The directories every name it prints lies under, when it says (find's start points). */
  under?: (words: readonly ShellWord[]) => ShellWord[];
}

/** How a runner finds the command it runs: after its subcommand (`npm exec`), skipping its own options. */
export interface RunnerForm {
  /** The subcommand path that runs a command; empty for dedicated runners (`npx`). `*` is a word the grammar does not know (`pnpm eslint .` runs a package's bin). */
  path: readonly string[];
  /** Its options that take a value. */
  valued: ReadonlySet<string>;
  /** Its options whose value is shell code (`npx -c 'git push'`): what runs is not known. */
  code: ReadonlySet<string>;
  /** Its first argument is shell code, not a command name (`bun exec 'git push'`, `concurrently 'git push'`). */
  codeArgument: boolean;
  /** Arguments of its own before the command (`aws-vault exec PROFILE -- cmd`). */
  operands: number;
  /** It takes `NAME=value` words before the command (`cross-env A=1 cmd`). */
  assignments: boolean;
  /** The option whose value names a module run as a program (`python -m pip install`). */
  module: string | undefined;
}

/**
 * A runner form from space-separated lists.
 *
 * @example
 * runner('exec', '-p --package', { code: '-c --call' }) // `npm exec -p x cmd`
 */
export function runner(path: string, valued: string, extra: { code?: string; codeArgument?: boolean; operands?: number; assignments?: boolean; module?: string } = {}): RunnerForm {
  const words = (list: string) => list.split(' ').filter((word) => word !== '');
  return { path: words(path), valued: new Set(words(valued)), code: new Set(words(extra.code ?? '')), codeArgument: extra.codeArgument ?? false, operands: extra.operands ?? 0, assignments: extra.assignments ?? false, module: extra.module };
}

/** Where a command runs the project's code (lifecycle scripts, build files, configuration that is code). */
export interface WorkspaceCode {
  /** The word a rule must reach to allow it: the subcommand, or 0 for tools that are code whatever they are asked. */
  index: number;
  reason: string;
}

/** A tool with subcommands, some of which run the project's code. */
export interface Workspace {
  /** Subcommands that do not run the project's code; any other does. */
  plain: ReadonlySet<string>;
  /** What else makes the subcommand at `at` run code or change what later runs, asked before `plain` (`npm publish`, `npm config edit`). */
  check?: (words: readonly ShellWord[], at: number) => WorkspaceCode | undefined;
}

/** Options that make the command run programs or write files, and checks that cannot be data. */
export interface OptionHazards {
  rules: readonly OptionHazardRule[];
  custom?: (words: readonly ShellWord[]) => Hazard[];
  /** Only `custom` speaks: a reader whose arguments (globs, expansions) are judged as paths, not as possible options. */
  customOnly?: true;
}

/** Options naming a file that lists the files the command works on (`tar -T list`), which no check of the line can see. */
export interface FileLists {
  /** Option names, long ones also abbreviated where GNU getopt takes a prefix (`--files-from`, `-T`). */
  options?: readonly string[];
  /** The short option as a letter inside a cluster (`tar -cT list`). */
  cluster?: RegExp;
}

/**
 * What a command does to directory entries: `moves` renames, links,
 * removes or extracts at the paths it writes into or deletes; `replaces`
 * may also make any path it writes a link or a tree; `renames` is
 * `replaces`, except that when every path it deletes is a plain file (one
 * name, no link, no directory) what lands is a plain file too (`mv a b`);
 * `keeps` writes only the contents of regular files, if anything.
 */
export type EntryEffect = 'keeps' | 'moves' | 'replaces' | 'renames';

export interface CommandModel {
  /** The names it runs under: `tar`, and `gtar` and `bsdtar` that take the same options. */
  names: readonly string[];
  /** Its subcommands and options, so that a rule matches what a command does (command-forms.ts, rule-matching.ts). */
  grammar?: CommandSpec;
  /** Options known to take no value, before a subcommand: a word after one is not its value (subcommand-candidates.ts). */
  flags?: RegExp;
  /** How it runs a command named in its arguments (`npm exec cmd`), so a block or ask rule reaches that command (runner-commands.ts). */
  runners?: readonly RunnerForm[];
  /** Why the subcommand at `at` uses the network, if it does (network-commands.ts). */
  network?: (words: readonly ShellWord[], at: number) => string | undefined;
  /**
   * Why it uses the network whatever its subcommand, if it does: a client
   * always (`curl`), a copy to or from another machine when its words say
   * so (network-commands.ts).
   */
  connects?: (words: readonly ShellWord[]) => string | undefined;
  /**
   * What it changes lives outside every zone (a server, a remote host): a
   * scope "with every path inside the zone" says nothing about it, so none
   * is offered (command-always-scope.ts).
   */
  remoteState?: true;
  /** It prints what it downloads: piped into an interpreter, whatever the server sends runs (command-consequences.ts). */
  downloads?: true;
  /** Which subcommands run the project's code (workspace-code-commands.ts). */
  workspace?: Workspace;
  /**
   * It only reads the files its words name (unknown-command-paths.ts's
   * known readers): what it writes or runs is all in `options`, looked at
   * when the model was written.
   */
  reader?: true;
  /** Options that run a program, write or read what the operands do not name (option-hazards.ts). */
  options?: OptionHazards;
  /** The paths its operands and option values read, write and delete (write-arguments.ts). */
  paths?: PathHandler;
  /** Options naming a file that lists the files it works on (unknown-command-paths.ts). */
  fileLists?: FileLists;
  /** The commands it runs from its own words (command-semantics.ts). */
  runs?: (words: readonly ShellWord[]) => RunCommands;
  /** How it prints the names of files, for a command that takes them as arguments (decide-command-paths.ts). */
  lists?: Lister;
  /** What it does to directory entries, for a later command of the line (line-layout-changes.ts); a function when its words say (`cp` copying only contents keeps them). */
  entries?: EntryEffect | ((words: readonly ShellWord[]) => EntryEffect);
}

/**
 * An option that runs a program.
 *
 * @example
 * exec('runs a pager', { long: ['pager'] }) // { kind: 'exec', what: 'runs a pager', long: ['pager'] }
 */
export function exec(what: string, names: Omit<OptionHazardRule, 'kind' | 'what'>): OptionHazardRule {
  return { ...names, kind: 'exec', what };
}

/**
 * An option that writes a file (or changes the system).
 *
 * @example
 * write('writes the result to a file', { short: 'o', long: ['output'] })
 */
export function write(what: string, names: Omit<OptionHazardRule, 'kind' | 'what'>): OptionHazardRule {
  return { ...names, kind: 'write', what };
}
