/**
 * A command that writes files whose names are not in its words (`tar -x`,
 * `unzip`, `curl -O`, `patch`, `split`) can create any name inside the
 * directory it writes into: `.envrc`, `.vscode/tasks.json`, `.git/hooks/*`,
 * files that make git, direnv or an editor run code later (some of them
 * outside any sandbox). Those names ask in every zone when they are written
 * by name (src/tools/fs/code-loading-files.ts); written this way they
 * cannot be seen, so such a write asks even where the zone allows writes.
 * git is judged by the repository checks instead (git-command-concerns.ts),
 * except where it makes a new repository: `git clone`, `git init`, `git
 * worktree add`, `git submodule add|update` write a `.git` (hooks and config
 * from a template or another repository) and check out files of any name,
 * where no repository check can look yet and no sandbox rule protects a
 * `.git` that does not exist.
 */
import { gitSubcommand } from './git-subcommands.ts';
import type { ShellWord } from './shell-word.ts';

const GIT_NEW_REPOSITORY = new Set(['clone', 'init', 'init-db', 'worktree', 'submodule']);
/** Work-tree changes that only remove: they create no file of any name. */
const GIT_ONLY_REMOVES = new Set(['rm', 'clean']);

/**
 * Why writing files of unknown names into a directory needs a person even
 * in a zone that allows writes, or undefined when the command is git.
 *
 * @example
 * unnamedWritesConcern({ name: 'tar', words }) // 'tar writes files whose names ...'
 */
export function unnamedWritesConcern(options: { name: string; words: readonly ShellWord[] }): string | undefined {
  if (options.name === 'git') {
    const { name: subcommand, effect } = gitSubcommand(options.words);
    if (subcommand === undefined) return undefined;
    // `git checkout main`, `git apply x.patch`, `git stash pop`: the files written are named by the repository or a patch, not the line.
    if ((effect === 'worktree' || effect === 'delete' || effect === 'unknown') && !GIT_ONLY_REMOVES.has(subcommand)) {
      if (!GIT_NEW_REPOSITORY.has(subcommand)) return `git ${subcommand} writes work-tree files named by the repository or a patch, not by the command line, which could be .envrc, .vscode tasks or other files that run programs later, so it asks in every zone`;
    }
    if (!GIT_NEW_REPOSITORY.has(subcommand)) return undefined;
    return `git ${subcommand} makes a repository whose hooks and config (from a template or another repository) and checked-out files have names not in the command line, which could run programs later, so it asks in every zone`;
  }
  return `${options.name} writes files whose names are not in the command line (an archive's members, a download's name), which could be git metadata or another tool's configuration that runs programs, so it asks in every zone`;
}
