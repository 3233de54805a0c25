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

/**
 * Why writing files of unknown names into a directory needs a person even
 * in a zone that allows writes, or undefined when the command is git.
 *
 * @example
 * unnamedWritesConcern({ name: 'tar', words }) // 'tar writes files whose names ...'
 */
export function unnamedWritesConcern(options: { name: string; words: readonly ShellWord[] }): string | undefined {
  if (options.name === 'git') {
    const subcommand = gitSubcommand(options.words).name;
    if (subcommand === undefined || !GIT_NEW_REPOSITORY.has(subcommand)) return undefined;
    return `git ${subcommand} makes a repository whose hooks and config (from a template or another repository) and checked-out files have names not in the command line, which could run programs later, so it asks in every zone`;
  }
  return `${options.name} writes files whose names are not in the command line (an archive's members, a download's name), which could be git metadata or another tool's configuration that runs programs, so it asks in every zone`;
}
