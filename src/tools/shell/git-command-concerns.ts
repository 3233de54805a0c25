/**
 * The repository side of one `git` command: where it runs (`-C`,
 * `--git-dir`, `--bare`, which makes the working directory the
 * repository), what that repository makes git run (its configuration and
 * hooks), and, for a subcommand that writes the work tree, the whole work
 * tree, which reaches above the directory it runs in.
 */
import path from 'node:path';
import { GIT_GLOBAL_VALUED, gitSubcommand, isKnownGitSubcommand } from './git-subcommands.ts';
import { gitRepositoryHazards } from './git-repository-hazards.ts';
import type { PathOperation } from './judge-path.ts';
import { wordPath } from './shell-paths.ts';
import type { ShellWord } from './shell-word.ts';

/** Programs that run git in the directory they run in (`gh pr status`, `tig`): the repository's programs run too. */
const RUNS_GIT = new Set(['gh', 'hub', 'glab', 'tig', 'lazygit', 'gitui', 'gitk', 'git-gui', 'git-cola', 'gitg', 'git-lfs', 'git-filter-repo', 'pre-commit', 'lefthook']);

/**
 * Whether the command is git or a program that runs git where it runs.
 *
 * @example
 * runsGit('tig') // true
 */
export function runsGit(name: string): boolean {
  return name === 'git' || RUNS_GIT.has(name);
}

/** Judges one path the way the command's other paths are judged (the finding lands with theirs). */
export type JudgeWorkTree = (entry: { path: string; operation: PathOperation; into: true }) => Promise<void>;

/**
 * Reasons to ask for one `git` command (`name` is `git`, `words[0]` as written), or another
 * program that runs git (`runsGit`), run in `cwd`,
 * and the work tree's top judged through `judge` when the subcommand writes
 * files and the top is not where it runs. A `-C` or `--git-dir` known only
 * at run time is left to the checks that already ask for it.
 *
 * @example
 * await gitCommandConcerns({ name: 'git', words: [git, status], cwd: '/p/ws', home, judge })
 * // ['/p/ws/.git/config sets core.fsmonitor, which names a program git runs']
 */
export async function gitCommandConcerns(options: { name: string; words: readonly ShellWord[]; cwd: string; home: string; judge: JudgeWorkTree; zoneRoots?: readonly string[] }): Promise<string[]> {
  const { cwd, home } = options;
  // Another program running git is judged like `git status` there: only the repository's own programs concern it.
  const words = options.name === 'git' ? options.words : [{ text: 'git', value: 'git', kind: 'static' as const, tilde: false }, { text: 'status', value: 'status', kind: 'static' as const, tilde: false }];
  let directory = cwd;
  let gitDirectory: string | undefined;
  for (let index = 1; index < words.length; index++) {
    const word = words[index]!;
    if (word.kind === 'dynamic' || !word.value.startsWith('-')) break;
    const equals = word.value.indexOf('=');
    const option = equals === -1 ? word.value : word.value.slice(0, equals);
    // `--bare` makes the directory it is reached in the repository (unless `--git-dir` came first): its config runs too.
    if (word.value === '--bare' && gitDirectory === undefined) gitDirectory = directory;
    if (!GIT_GLOBAL_VALUED.has(option)) continue;
    const valueWord = equals === -1 ? words[++index] : { ...word, text: word.value.slice(equals + 1), value: word.value.slice(equals + 1), tilde: false };
    if (valueWord === undefined || valueWord.kind === 'dynamic') return [];
    const value = wordPath(valueWord, home);
    if (value === undefined) return [];
    if (option === '-C') directory = path.resolve(directory, value);
    if (option === '--git-dir') gitDirectory = path.resolve(directory, value);
  }
  const subcommand = gitSubcommand(words);
  const known = subcommand.name === undefined || isKnownGitSubcommand(subcommand.name);
  const { reasons, repository } = gitRepositoryHazards({ directory, ...(gitDirectory === undefined ? {} : { gitDirectory }), knownSubcommand: known, readsOnly: subcommand.effect === 'read', ...(options.zoneRoots === undefined ? {} : { zoneRoots: options.zoneRoots }) });
  const concerns = reasons.map((reason) => `git runs programs its repository names: ${reason}`);
  // A `.git` file can send git to a repository anywhere (another project's history, objects and config): judged as a path git reads, or writes.
  for (const redirected of repository?.redirected ?? []) {
    await options.judge({ path: redirected, operation: subcommand.effect === 'read' ? 'read' : 'write', into: true });
  }
  // Git reads its repository wherever it found it: one above the zones (a zone inside a bigger project) holds the history and
  // objects of files outside them (`git show HEAD:../private/creds.env`), so it is judged as a path git reads.
  for (const found of new Set([repository?.gitDirectory, repository?.commonDirectory])) {
    if (found !== undefined && !repository!.redirected.includes(found)) await options.judge({ path: found, operation: 'read', into: true });
  }
  const top = repository?.top;
  if (top !== undefined && top !== directory && subcommand.effect !== 'read' && subcommand.name !== 'clone') {
    // `git checkout` in a subdirectory rewrites the whole work tree; `git commit` there writes the top's `.git`.
    await options.judge({ path: top, operation: 'write', into: true });
    if (subcommand.effect === 'delete') await options.judge({ path: top, operation: 'delete', into: true });
  }
  return concerns;
}
