/**
 * Which npm command a word runs. npm takes a command's name, an alias
 * (`i`, `home`, `issues`), a camelCase spelling (`installTest`) or any
 * unique abbreviation of either (`whoa` is `whoami`), so a table of names
 * alone misses what `npm who` does. Taken from npm 11's
 * `lib/utils/cmd-list.js`; npm's grammar (command-forms.ts) reads its
 * subcommands from these tables too.
 */

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
