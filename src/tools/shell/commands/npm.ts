/**
 * npm: its commands and aliases (npm 11's `lib/utils/cmd-list.js`), which
 * any unique abbreviation or camelCase spelling also names; its grammar
 * (config options go anywhere); `npm exec` as a package runner; which
 * commands talk to the registry; which run the project's code (lifecycle
 * scripts), change the registry or the account there, or run a program an
 * npmrc names; and which words are paths.
 */
import { subcommandReads, type CommandPaths } from '../path-argument.ts';
import type { ShellWord } from '../shell-word.ts';
import { subcommandCandidates } from '../subcommand-candidates.ts';
import { runner, type CommandModel, type WorkspaceCode } from './command-model.ts';
import { level, options, program } from './grammar.ts';

/** npm's commands by their own names. */
export const NPM_COMMANDS: ReadonlySet<string> = new Set([
  'access', 'adduser', 'approve-scripts', 'audit', 'bugs', 'cache', 'ci', 'completion', 'config', 'dedupe', 'deny-scripts', 'deprecate', 'diff', 'dist-tag', 'docs',
  'doctor', 'edit', 'exec', 'explain', 'explore', 'find-dupes', 'fund', 'get', 'help', 'help-search', 'init', 'install', 'install-ci-test', 'install-scripts',
  'install-test', 'link', 'll', 'login', 'logout', 'ls', 'org', 'outdated', 'owner', 'pack', 'ping', 'pkg', 'prefix', 'profile', 'prune', 'publish', 'query',
  'rebuild', 'repo', 'restart', 'root', 'run', 'sbom', 'search', 'set', 'shrinkwrap', 'stage', 'star', 'stars', 'start', 'stop', 'team', 'test', 'token', 'trust',
  'undeprecate', 'uninstall', 'unpublish', 'unstar', 'update', 'version', 'view', 'whoami',
]);

/** npm's aliases (and the misspellings it accepts) and the command each runs. */
export const NPM_ALIASES: ReadonlyMap<string, string> = new Map([
  ['author', 'owner'], ['home', 'docs'], ['issues', 'bugs'], ['info', 'view'], ['show', 'view'], ['find', 'search'], ['add', 'install'], ['unlink', 'uninstall'],
  ['remove', 'uninstall'], ['rm', 'uninstall'], ['r', 'uninstall'], ['un', 'uninstall'], ['rb', 'rebuild'], ['list', 'ls'], ['ln', 'link'], ['create', 'init'],
  ['i', 'install'], ['it', 'install-test'], ['cit', 'install-ci-test'], ['u', 'update'], ['up', 'update'], ['c', 'config'], ['s', 'search'], ['se', 'search'],
  ['tst', 'test'], ['t', 'test'], ['ddp', 'dedupe'], ['v', 'view'], ['run-script', 'run'], ['clean-install', 'ci'], ['clean-install-test', 'install-ci-test'],
  ['x', 'exec'], ['why', 'explain'], ['la', 'll'], ['verison', 'version'], ['ic', 'ci'], ['innit', 'init'], ['in', 'install'], ['ins', 'install'], ['inst', 'install'],
  ['insta', 'install'], ['instal', 'install'], ['isnt', 'install'], ['isnta', 'install'], ['isntal', 'install'], ['isntall', 'install'], ['install-clean', 'ci'],
  ['isntall-clean', 'ci'], ['hlep', 'help'], ['dist-tags', 'dist-tag'], ['upgrade', 'update'], ['udpate', 'update'], ['rum', 'run'], ['sit', 'install-ci-test'],
  ['urn', 'run'], ['ogr', 'org'], ['add-user', 'adduser'],
]);

/**
 * The commands `word` may run: the one it names or aliases, or, for an
 * abbreviation, every command it could abbreviate (npm runs it only when
 * there is one, but which commands there are depends on npm's version).
 *
 * @example
 * npmCommands('home') // ['docs']
 * npmCommands('whoa') // ['whoami']
 * npmCommands('te')   // ['team', 'test']
 */
export function npmCommands(word: string): string[] {
  const name = /[A-Z]/.test(word) ? word.replace(/([A-Z])/g, (letter) => `-${letter.toLowerCase()}`) : word;
  if (name === '') return [];
  if (NPM_COMMANDS.has(name)) return [name];
  const alias = NPM_ALIASES.get(name);
  if (alias !== undefined) return [alias];
  const matches = new Set<string>();
  for (const command of NPM_COMMANDS) if (command.startsWith(name)) matches.add(command);
  for (const [short, command] of NPM_ALIASES) if (short.startsWith(name)) matches.add(command);
  return [...matches].sort();
}

/** npm's options (config keys go anywhere on the line). */
const NPM_OPTIONS = options({
  flags: '-g --global -s --silent -q --quiet -d -dd -ddd --verbose -y --yes --no --no-audit --no-fund --dry-run -f --force --json --offline --prefer-offline --prefer-online -ws --workspaces --include-workspace-root -D --save-dev -P --save-prod -O --save-optional -E --save-exact -S --save -B --save-bundle --no-save --ignore-scripts --foreground-scripts --legacy-peer-deps --no-color --color -l --long -p --parseable -a --all -h --help -v --version --install-links',
  valued: '-C --prefix -w --workspace --loglevel --registry --userconfig --globalconfig --cache --tag --omit --include --before --script-shell --node-options -c --call --package',
  harmless: '-s --silent -q --quiet -d -dd -ddd --verbose --loglevel --no-audit --no-fund --json --no-color --color -l --long -p --parseable',
  synonyms: '-g=--global -s=--silent -q=--quiet -y=--yes -f=--force -D=--save-dev -P=--save-prod -O=--save-optional -E=--save-exact -S=--save -C=--prefix -w=--workspace -h=--help -v=--version -l=--long',
});
/** Options known to take no value: a word after one of them is not its value (`npm -g ls`), where after `--editor` it may be (`npm --editor ls install` runs install). */
const FLAGS = /^(-[gsqdlpfyaDEOPSB]+|--(global|silent|quiet|verbose|json|long|parseable|dry-run|force|yes|all|offline|prefer-offline|prefer-online|ignore-scripts|no-[a-z-]+))$/;

/** npx's and `npm exec`'s options that take a value. */
export const NPX_VALUED = '-p --package --node-options --registry --cache --prefix -C -w --workspace --userconfig --loglevel';

/** The words that run a package script: `npm run NAME` (NAME is not a path). */
const RUN_SCRIPT: ReadonlySet<string> = new Set(['run', 'run-script', 'rum', 'urn']);

/** npm's commands that talk to the registry, by their own names; `init`, `fund`, `pack` and `cache` only in some forms (npmNetwork). */
const NETWORK: ReadonlySet<string> = new Set([
    'install', 'ci', 'install-test', 'install-ci-test', 'update', 'dedupe', 'find-dupes', 'link', 'exec', 'audit', 'outdated', 'view', 'search', 'diff', 'doctor', 'ping',
    'publish', 'unpublish', 'deprecate', 'undeprecate', 'dist-tag', 'owner', 'access', 'team', 'org', 'star', 'stars', 'unstar', 'trust',
    'login', 'logout', 'adduser', 'whoami', 'token', 'profile', 'docs', 'bugs', 'repo',
  ]);

/** npm subcommands that change the registry or the account there, and their forms that only list (`npm owner ls`). */
const NPM_REGISTRY_CHANGES: ReadonlyMap<string, { listings: ReadonlySet<string> }> = new Map(
  [
    ['owner', ['ls', 'list']], ['author', ['ls', 'list']], ['access', ['list', 'get', 'ls']], ['dist-tag', ['ls', 'list']], ['dist-tags', ['ls', 'list']], ['token', ['list', 'ls']],
    ['profile', ['get']], ['team', ['ls', 'list']], ['org', ['ls', 'list']], ['publish', []], ['unpublish', []], ['deprecate', []], ['undeprecate', []], ['star', []], ['unstar', []],
    ['login', []], ['logout', []], ['adduser', []], ['add-user', []], ['trust', ['list']],
  ].map(([subcommand, listings]) => [subcommand as string, { listings: new Set(listings as string[]) }]),
);

/** Commands that do not run the project's code; `config`, `help` and `fund` only in some forms (configuredProgram); docs, bugs, repo run the browser program the npmrc names. */
const PLAIN: ReadonlySet<string> = new Set(['ls', 'list', 'la', 'll', 'view', 'v', 'info', 'show', 'outdated', 'audit', 'help', 'search', 'find', 's', 'se', 'whoami', 'ping', 'config', 'c', 'get', 'explain', 'why', 'fund', 'prefix', 'root', 'doctor', 'query', 'sbom', 'cache', 'owner', 'access', 'dist-tag', 'login', 'logout', 'adduser', 'token', 'profile', 'star', 'stars', 'unstar', 'help-search', 'trust']);

export const npm: CommandModel = {
  names: ['npm'],
  grammar: program(
    level({
      options: NPM_OPTIONS,
      commands: [...NPM_COMMANDS, ...[...NPM_ALIASES].map(([alias, command]) => `${alias}:${command}`)].join(' '),
      // An unknown word may be an abbreviation (`npm publis`) or a camelCase spelling (`npm installTest`).
      abbreviations: npmCommands,
      open: true,
    }),
    { optionsAnywhere: true },
  ),
  flags: FLAGS,
  runners: [runner('exec', NPX_VALUED, { code: '-c --call' })],
  network: npmNetwork,
  workspace: { plain: PLAIN, check: (words, at) => registryChange(words, at) ?? configuredProgram(words, at) },
  paths: (words): CommandPaths => ({ paths: subcommandReads(words, RUN_SCRIPT), unsure: [] }),
};

/**
 * npm talks to the registry for what it installs, looks up or changes
 * there (`whoami`, `token`, `profile`...), and `docs`/`bugs`/`repo` open a
 * web page. `init PKG` runs a downloaded initializer, `fund PKG` and `pack
 * PKG` fetch the package, `cache add` fetches into the cache; without an
 * argument they stay local. An abbreviation counts when any command it may
 * stand for does.
 */
function npmNetwork(words: readonly ShellWord[], at: number): string | undefined {
  const written = words[at]!.value;
  const argument = subcommandCandidates({ words, start: at + 1, flags: FLAGS })[0];
  for (const command of npmCommands(written)) {
    const network = NETWORK.has(command) || (['init', 'fund', 'pack'].includes(command) && argument !== undefined) || (command === 'cache' && argument !== undefined && (words[argument]!.kind !== 'static' || words[argument]!.value === 'add'));
    if (network) return `npm ${written}${written === command ? '' : ` (${command})`} uses the network`;
  }
  return undefined;
}

/** What the registry holds, or the account there: `npm publish`, `npm owner add`, `npm dist-tag add`, `npm token create`... (`npm owner ls` only lists). */
function registryChange(words: readonly ShellWord[], at: number): WorkspaceCode | undefined {
  const subcommand = words[at]!.value;
  const next = words[at + 1]?.value;
  const registry = NPM_REGISTRY_CHANGES.get(subcommand);
  if (registry === undefined || registry.listings.has(next ?? '') || (registry.listings.size > 0 && next === undefined)) return undefined;
  return { index: at, reason: `npm ${subcommand} changes what the package registry (or your account there) holds` };
}

const NPMRC_PROGRAMS = 'a project\'s .npmrc can name any program';

/**
 * npm subcommands that run a program an npmrc names, or change an npmrc:
 * `config edit` and `edit` run `editor`; `docs`, `bugs`, `repo`,
 * `fund PKG` and `help TOPIC` run `browser` (or `viewer`); `config
 * set|delete|fix` write an npmrc, which names what later npm commands run.
 * `config get|list` only print. The hazard is on the word a rule must name.
 */
function configuredProgram(words: readonly ShellWord[], at: number): WorkspaceCode | undefined {
  const subcommand = words[at]!.value;
  const operands = subcommandCandidates({ words, start: at + 1, flags: FLAGS });
  if (subcommand === 'config' || subcommand === 'c') {
    for (const index of operands) {
      const action = words[index]!;
      if (action.kind === 'static' && ['get', 'list', 'ls'].includes(action.value)) continue;
      if (action.kind === 'static' && action.value === 'edit') return { index, reason: `npm ${subcommand} edit runs the editor the npmrc files name (${NPMRC_PROGRAMS})` };
      return { index, reason: `npm ${subcommand} ${action.text} changes an npmrc file, which names the programs later npm commands run (editor, browser, git, script-shell)` };
    }
    return undefined;
  }
  if (subcommand === 'edit') return { index: at, reason: `npm edit runs the editor the npmrc files name (${NPMRC_PROGRAMS})` };
  if (['docs', 'home', 'bugs', 'issues', 'repo'].includes(subcommand)) return { index: at, reason: `npm ${subcommand} opens a web page with the browser program the npmrc files name (${NPMRC_PROGRAMS})` };
  if ((subcommand === 'fund' || subcommand === 'help') && operands.length > 0) {
    return { index: at, reason: `npm ${subcommand} with an argument opens a page with the browser (or viewer) program the npmrc files name (${NPMRC_PROGRAMS})` };
  }
  return undefined;
}
