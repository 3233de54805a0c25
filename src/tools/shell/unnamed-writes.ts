/**
 * A command that writes files whose names are not in its words (`tar -x`,
 * `unzip`, `curl -O`, `patch`, `split`) can create any name inside the
 * directory it writes into: `.envrc`, `.vscode/tasks.json`, `.git/hooks/*`,
 * files that make git, direnv or an editor run code later (some of them
 * outside any sandbox). Those names ask in every zone when they are written
 * by name (src/tools/fs/code-loading-files.ts); written this way they
 * cannot be seen, so such a write asks even where the zone allows writes.
 * git is judged by the repository checks instead (git-command-concerns.ts).
 */
import type { ShellWord } from './shell-word.ts';

/**
 * Why writing files of unknown names into a directory needs a person even
 * in a zone that allows writes, or undefined when the command is git.
 *
 * @example
 * unnamedWritesConcern({ name: 'tar', words }) // 'tar writes files whose names ...'
 */
export function unnamedWritesConcern(options: { name: string; words: readonly ShellWord[] }): string | undefined {
  if (options.name === 'git') return undefined;
  return `${options.name} writes files whose names are not in the command line (an archive's members, a download's name), which could be git metadata or another tool's configuration that runs programs, so it asks in every zone`;
}
