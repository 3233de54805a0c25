/**
 * git's ways to run other programs from the command line: configuration
 * given on the command line (`-c core.pager=sh`, `--config-env`), another
 * exec path or repository (whose configuration runs programs), transport
 * programs (`--upload-pack`), and the subcommands built to run commands
 * (`rebase --exec`, `bisect run`, `submodule foreach`, `config`...).
 */
import { GIT_GLOBAL_VALUED, isKnownGitSubcommand } from './git-subcommands.ts';
import { hazardAt, type Hazard } from './hazard.ts';
import { optionMatches, scanOptions, type OptionHazardRule } from './option-scan.ts';
import type { ShellWord } from './shell-word.ts';


const GLOBAL_HAZARDS: readonly OptionHazardRule[] = [
  { short: 'c', kind: 'exec', what: 'sets configuration, which can name programs to run (core.pager, core.sshCommand, alias.*, core.fsmonitor)' },
  { long: ['config-env'], kind: 'exec', what: 'sets configuration from the environment, which can name programs to run' },
  { long: ['exec-path'], kind: 'exec', what: 'runs git subcommands from another directory' },
  { short: 'C', long: ['git-dir', 'work-tree'], kind: 'exec', what: 'uses another repository, whose configuration can run programs' },
];

const rule = (kind: OptionHazardRule['kind'], what: string, names: Omit<OptionHazardRule, 'kind' | 'what'>): OptionHazardRule => ({ ...names, kind, what });
const OUTPUT = rule('write', 'writes a file', { long: ['output', 'output-directory'] });

const SUBCOMMAND_HAZARDS: ReadonlyMap<string, readonly OptionHazardRule[]> = new Map([
  ['clone', [rule('exec', 'runs a program or sets configuration that can', { short: 'uc', long: ['upload-pack', 'config', 'template'] })]],
  ['fetch', [rule('exec', 'runs a program on the remote side', { long: ['upload-pack'] })]],
  ['pull', [rule('exec', 'runs a program on the remote side', { long: ['upload-pack'] })]],
  ['ls-remote', [rule('exec', 'runs a program on the remote side', { short: 'u', long: ['upload-pack'] })]],
  ['archive', [rule('exec', 'runs a program or writes a file', { short: 'o', long: ['exec', 'remote', 'output'] })]],
  ['push', [rule('exec', 'runs a program on the remote side', { long: ['receive-pack', 'exec'] })]],
  ['rebase', [rule('exec', 'runs a command after each commit', { short: 'x', long: ['exec'] })]],
  ['difftool', [rule('exec', 'runs a program', { short: 'x', long: ['extcmd'] })]],
  ['grep', [rule('exec', 'opens the matches in a program', { short: 'O', long: ['open-files-in-pager'] })]],
  ['format-patch', [rule('write', 'writes files', { short: 'o', long: ['output', 'output-directory'] })]],
  ['send-email', [rule('exec', 'runs a program', { long: ['sendmail-cmd', 'smtp-server', 'to-cmd', 'cc-cmd', 'header-cmd'] })]],
  ['help', [rule('exec', 'opens a browser', { short: 'w', long: ['web'] })]],
  ['diff', [OUTPUT]],
  ['log', [OUTPUT]],
  ['show', [OUTPUT]],
  ['whatchanged', [OUTPUT]],
  ['range-diff', [OUTPUT]],
  ['diff-tree', [OUTPUT]],
  ['diff-index', [OUTPUT]],
  ['diff-files', [OUTPUT]],
]);

/** Subcommands whose whole purpose is running other programs. */
const RUNNING_SUBCOMMANDS: ReadonlyMap<string, string> = new Map([
  ['filter-branch', 'git filter-branch runs shell code for every commit'],
  ['instaweb', 'git instaweb starts a web server and a browser'],
  ['web--browse', 'git web--browse starts a browser'],
  ['mergetool', 'git mergetool runs a merge program'],
  ['hook', 'git hook runs the repository\'s hooks'],
  ['daemon', 'git daemon starts a server that runs hooks'],
  ['shell', 'git shell runs commands'],
  ['http-backend', 'git http-backend serves the repository and runs hooks'],
  ['remote-ext', 'git remote-ext runs a command as the transport'],
  ['remote-fd', 'git remote-fd talks to a program over file descriptors'],
]);

/** Read-only forms of `git config`; every other form can set a program to run. */
const CONFIG_READS = new Set(['--get', '--get-all', '--get-regexp', '--get-urlmatch', '--list', '-l']);

/**
 * The hazards of one `git` command (`words[0]` is `git`).
 *
 * @example
 * gitHazards([git, -c, core.pager=sh, status]) // [{ index: 1, kind: 'exec', ... }]
 */
export function gitHazards(words: readonly ShellWord[]): Hazard[] {
  const hazards: Hazard[] = [];
  let index = 1;
  for (; index < words.length; index++) {
    const word = words[index]!;
    if (word.kind !== 'static') {
      hazards.push(hazardAt({ index: undefined, kind: 'unknown', reason: `git: the argument ${word.text} is only known at run time, so it could be an option that runs a program` }));
      return hazards;
    }
    const value = word.value;
    if (!value.startsWith('-')) break;
    const global = GLOBAL_HAZARDS.find((candidate) => optionMatches(candidate, value));
    if (global !== undefined) hazards.push(hazardAt({ index, kind: global.kind, reason: `git ${value}: ${global.what}` }));
    if (GIT_GLOBAL_VALUED.has(value)) index++;
  }
  const subcommand = words[index];
  if (subcommand === undefined) return hazards;
  const name = subcommand.value;
  if (!isKnownGitSubcommand(name)) {
    hazards.push(hazardAt({ index, kind: 'exec', reason: `git ${name} is not a subcommand toolgate knows: an alias or a git-${name} program on the PATH could run anything` }));
  }
  const running = RUNNING_SUBCOMMANDS.get(name);
  if (running !== undefined) hazards.push(hazardAt({ index, kind: 'exec', reason: running }));
  if (name === 'bisect' && words[index + 1]?.value === 'run') hazards.push(hazardAt({ index: index + 1, kind: 'exec', reason: 'git bisect run runs a command for every step' }));
  if (name === 'submodule' && words.slice(index + 1).some((word) => word.value === 'foreach')) {
    hazards.push(hazardAt({ index: index + 1, kind: 'exec', reason: 'git submodule foreach runs a command in every submodule' }));
  }
  if (name === 'config' && !isConfigRead(words.slice(index + 1))) {
    hazards.push(hazardAt({ index, kind: 'exec', reason: 'git config can set programs that later git commands run (core.pager, aliases, hooks path)' }));
  }
  const rules = SUBCOMMAND_HAZARDS.get(name);
  if (rules !== undefined) hazards.push(...scanOptions({ command: `git ${name}`, words, rules, start: index + 1 }));
  return hazards;
}

/** `git config --get x`, `git config -l`, `git config get x`: reads only, every word known. */
function isConfigRead(args: readonly ShellWord[]): boolean {
  if (!args.every((word) => word.kind === 'static')) return false;
  if (args.some((word) => CONFIG_READS.has(word.value))) return true;
  const first = args.find((word) => !word.value.startsWith('-'));
  return first?.value === 'get' || first?.value === 'list';
}
