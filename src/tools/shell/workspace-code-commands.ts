/**
 * Package managers, build tools, test runners and linters run code that
 * lives in the project: lifecycle scripts (`npm install`, `npm test`),
 * `setup.py`, `build.rs`, Makefiles, `conftest.py`, `vite.config.ts`,
 * `eslint.config.js`. Any file an agent can write is then code that runs.
 * Such a command is `code`: only a rule that names it allows it, and a
 * rule naming only the tool (`npm`) does not reach a subcommand that runs
 * code (`npm install`): the hazard sits on the subcommand's word. What
 * these tools do without running project code (`npm ls`, `cargo tree`,
 * `pip list`) stays plain. A subcommand not listed as plain counts as
 * code: `pnpm NAME` runs the script NAME.
 */
import type { Workspace, WorkspaceCode } from './commands/command-model.ts';
import { commandModel } from './commands/command-models.ts';
import type { ShellWord } from './shell-word.ts';
import { knownFlags, subcommandCandidates } from './subcommand-candidates.ts';

/** Tools whose every run executes project code or configuration that is code. */
const ALWAYS: ReadonlyMap<string, string> = new Map([
  ...['make', 'gmake', 'bmake', 'just', 'rake', 'ninja', 'scons', 'invoke', 'task', 'mage', 'cmake', 'ctest', 'meson'].map((name): [string, string] => [name, 'runs the commands of the project\'s build file']),
  ...['mvn', 'mvnw', 'gradle', 'gradlew', 'ant', 'sbt', 'lein', 'bazel', 'bazelisk', 'buck', 'buck2', 'pants', 'xcodebuild'].map((name): [string, string] => [name, 'runs the project\'s build (plugins and build scripts are code)']),
  ...['jest', 'vitest', 'mocha', 'ava', 'karma', 'playwright', 'cypress', 'jasmine', 'tap', 'c8', 'nyc', 'pytest', 'py.test', 'tox', 'nox', 'behave', 'rspec', 'cucumber', 'phpunit', 'pest'].map((name): [string, string] => [name, 'runs the project\'s tests and their configuration, which are code']),
  ...['vite', 'webpack', 'webpack-cli', 'rollup', 'parcel', 'next', 'nuxt', 'nuxi', 'astro', 'remix', 'ng', 'vue-cli-service', 'storybook', 'gulp', 'grunt', 'nx', 'turbo', 'lerna', 'rush', 'babel', 'postcss', 'tailwindcss', 'svelte-kit', 'expo', 'react-native', 'electron-builder', 'sphinx-build', 'mkdocs', 'jupyter', 'pre-commit', 'lint-staged', 'husky', 'rails', 'hardhat', 'truffle', 'terraform', 'terragrunt', 'pulumi', 'mix', 'rebar3', 'stack', 'cabal', 'dune', 'flutter', 'dart'].map((name): [string, string] => [name, 'loads the project\'s configuration, which is code']),
  ...['eslint', 'prettier', 'stylelint', 'mypy', 'pylint', 'flake8'].map((name): [string, string] => [name, 'loads the project\'s configuration and plugins, which are code']),
  ['direnv', 'loads .envrc files, which are shell code'],
  // Yarn 2+ runs the release and plugins `.yarnrc.yml` names (yarnPath) for every command, even `yarn --version`.
  ['yarn', 'runs the release and plugins the project\'s .yarnrc.yml names, and the project\'s scripts'],
  ['coverage', 'runs a program'],
  ['pipenv', 'runs and installs the project\'s code'],
  ['pdm', 'runs and installs the project\'s code'],
  ['hatch', 'runs and builds the project\'s code'],
  ['rye', 'runs and installs the project\'s code'],
  // The Gemfile is Ruby that bundler evaluates for every command; composer runs the plugins in vendor/ for every command.
  ['bundle', 'evaluates the project\'s Gemfile, which is Ruby code'],
  ['bundler', 'evaluates the project\'s Gemfile, which is Ruby code'],
  ['composer', 'runs the composer plugins installed in the project'],
]);

/** Subcommands that do not run project code, per tool; any other subcommand does. */
const PLAIN_SUBCOMMANDS: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ['pnpm', new Set(['ls', 'list', 'll', 'la', 'why', 'outdated', 'audit', 'licenses', 'view', 'info', 'show', 'root', 'bin', 'help', 'config', 'c', 'get', 'store', 'search', 'whoami', 'ping', 'doctor'])],
  ['pip', new Set(['list', 'show', 'freeze', 'check', 'help', 'config', 'debug', 'cache', 'hash', 'inspect', 'index', 'search', 'uninstall'])],
  ['pip3', new Set(['list', 'show', 'freeze', 'check', 'help', 'config', 'debug', 'cache', 'hash', 'inspect', 'index', 'search', 'uninstall'])],
  ['poetry', new Set(['show', 'check', 'about', 'config', 'search', 'help', 'list', 'env', 'version'])],
  ['uv', new Set(['version', 'help', 'tree', 'cache', 'python', 'self'])],
  // Resolving the dependency graph (tree, metadata, update...) asks rustc for target information: the rustc .cargo/config.toml names.
  ['cargo', new Set(['search', 'version', 'help', 'locate-project', 'login', 'logout', 'owner', 'yank', 'report'])],
  ['go', new Set(['build', 'install', 'mod', 'get', 'list', 'env', 'version', 'doc', 'help', 'fmt', 'vet', 'clean', 'work', 'bug', 'telemetry', 'fix'])],
  ['gem', new Set(['list', 'search', 'query', 'info', 'specification', 'contents', 'dependency', 'environment', 'help', 'outdated', 'which', 'sources', 'owner', 'signin', 'signout', 'stale', 'uninstall', 'cleanup', 'fetch', 'lock'])],
  ['dotnet', new Set(['--info', '--version', '--list-sdks', '--list-runtimes', 'help', 'nuget', 'sln', 'new'])],
  ['deno', new Set(['info', 'doc', 'lint', 'fmt', 'check', 'types', 'completions', 'help', 'upgrade'])],
]);

/** Options that only print and stop: `npm --version`, `make --help`... */
const PRINT_ONLY = /^(--version|-v|-V|--help|-h|version|help)$/;

/**
 * Whether the command runs the project's code, and on which word.
 *
 * @example
 * workspaceCode({ name: 'npm', words: [npm, install] }) // { index: 1, reason: 'npm install runs ...' }
 * workspaceCode({ name: 'npm', words: [npm, ls] })      // undefined
 * workspaceCode({ name: 'make', words: [make, test] })  // { index: 0, reason: 'make runs ...' }
 */
export function workspaceCode(options: { name: string; words: readonly ShellWord[] }): WorkspaceCode | undefined {
  const { name, words } = options;
  const always = ALWAYS.get(name);
  if (name !== 'yarn' && words.length === 2 && words[1]!.kind === 'static' && PRINT_ONLY.test(words[1]!.value)) return undefined;
  if (always !== undefined) {
    if (name === 'terraform' && isPlain(words, ['fmt', 'validate', 'version', 'providers', 'output', 'show', 'state', 'workspace', 'graph'])) return undefined;
    return { index: 0, reason: `${name} ${always}` };
  }
  const model = commandModel(name);
  const plain = model?.workspace?.plain ?? PLAIN_SUBCOMMANDS.get(name);
  if (plain === undefined) {
    // `tsc --noEmit` only type-checks; `--build` still writes .tsbuildinfo files, `--generateTrace` a trace directory.
    const values = words.map((word) => word.value);
    const checksOnly = values.some((value) => ['--noEmit', '--help', '--version', '-v', '-h'].includes(value)) && !values.some((value) => /^(-b|--build|--generateTrace|--generateCpuProfile|-w|--watch)$/.test(value));
    if (name === 'tsc' && (!checksOnly || words.some((word) => word.kind !== 'static'))) {
      return { index: 0, reason: 'tsc writes compiled files where the project\'s configuration says (and can build referenced projects)' };
    }
    return undefined;
  }
  // `npm` alone prints help. An option before the subcommand may have taken a word as its value: each word that may be the subcommand is judged.
  for (const at of subcommandCandidates({ words, start: 1, flags: model?.flags ?? knownFlags(name) })) {
    const found = subcommandCode({ name, words, at, plain, check: model?.workspace?.check });
    if (found !== undefined) return found;
  }
  return undefined;
}

function subcommandCode(options: { name: string; words: readonly ShellWord[]; at: number; plain: ReadonlySet<string>; check: Workspace['check'] }): WorkspaceCode | undefined {
  const { name, words, at, plain } = options;
  const word = words[at]!;
  if (word.kind !== 'static') return { index: at, reason: `${name} ${word.value}: the subcommand is only known at run time, and ${name} has subcommands that run the project's code` };
  const subcommand = word.value;
  const next = words[at + 1]?.value;
  const checked = options.check?.(words, at);
  if (checked !== undefined) return checked;
  // `npm audit fix` installs.
  if (plain.has(subcommand) && !(subcommand === 'audit' && next === 'fix')) return undefined;
  if ((name === 'uv' && subcommand === 'pip') || (name === 'pip' && subcommand === 'cache')) {
    if (['list', 'show', 'freeze', 'check', 'tree', 'dir', 'info'].includes(next ?? '')) return undefined;
  }
  return { index: at, reason: `${name} ${subcommand} runs the project's code (scripts, build files or configuration it loads)` };
}

function isPlain(words: readonly ShellWord[], subcommands: readonly string[]): boolean {
  const first = words.find((word, index) => index > 0 && !word.value.startsWith('-'));
  return first !== undefined && first.kind === 'static' && subcommands.includes(first.value);
}
