/**
 * What every git subcommand does to the files around it, so that a rule
 * allowing `git` does not make `git rm`, `git clean` or `git reset --hard`
 * readers: it reads only, writes the repository (refs, index, objects,
 * configuration), writes files of the work tree, or can also delete them.
 * A subcommand this table does not know is an alias or a program named
 * `git-NAME` on the PATH: it could do anything, and counts as the worst.
 * Pure: words in, effect out; the paths and the repository are judged elsewhere.
 */
import type { PathUse } from './path-argument.ts';
import type { ShellWord } from './shell-word.ts';

/**
 * In order of harm: `read` touches nothing (beyond git's own index
 * refresh), `repository` writes `.git` only, `worktree` writes files of
 * the work tree, `delete` can also delete them, `unknown` is not modelled.
 */
export type GitEffect = 'read' | 'repository' | 'worktree' | 'delete' | 'unknown';

export interface GitSubcommand {
  /** The subcommand as written (`status`), or undefined for a bare `git` (which prints help). */
  name: string | undefined;
  /** Where it sits among the command's words. */
  index: number;
  effect: GitEffect;
  /** What it does with the path operands after it: `git rm a` deletes `a`, `git checkout -- a` rewrites it. */
  operands: PathUse;
  /** A word the effect hangs on, for reasons: `--hard`, `-u`, `drop`. */
  because: string | undefined;
}

/** Global options that take their value as the next word. */
export const GIT_GLOBAL_VALUED: ReadonlySet<string> = new Set(['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--super-prefix', '--config-env', '--exec-path', '--attr-source', '--list-cmds']);

const READERS = new Set([
  'annotate', 'blame', 'cat-file', 'check-attr', 'check-ignore', 'check-mailmap', 'check-ref-format', 'cherry', 'column', 'count-objects', 'describe', 'diff',
  'diff-files', 'diff-index', 'diff-tree', 'fmt-merge-msg', 'for-each-ref', 'get-tar-commit-id', 'grep', 'help', 'log', 'ls-files', 'ls-remote', 'ls-tree', 'merge-base',
  'name-rev', 'patch-id', 'range-diff', 'rev-list', 'rev-parse', 'shortlog', 'show', 'show-branch', 'show-index', 'show-ref', 'status', 'var', 'verify-commit',
  'verify-tag', 'verify-pack', 'version', 'whatchanged', 'stripspace', 'request-pull', 'fsck-objects', 'archive', 'fast-export', 'difftool', 'pickaxe',
  'pack-redundant', 'imap-send',
]);

/** Subcommands that write the repository only (refs, index, objects, configuration, hooks they install). */
const REPOSITORY_WRITERS = new Set([
  'add', 'stage', 'commit', 'fetch', 'push', 'gc', 'prune', 'prune-packed', 'repack', 'pack-refs', 'update-ref', 'update-index', 'write-tree', 'commit-tree', 'mktag',
  'mktree', 'unpack-objects', 'fast-import', 'hash-object', 'rerere', 'commit-graph', 'multi-pack-index', 'maintenance', 'merge-tree', 'fetch-pack', 'send-pack',
  'replace', 'symbolic-ref', 'init', 'init-db', 'update-server-info', 'fsck', 'credential', 'credential-cache', 'credential-store', 'bundle', 'config', 'remote', 'notes',
  'reflog', 'tag', 'branch', 'receive-pack', 'upload-pack', 'upload-archive', 'for-each-repo', 'http-fetch', 'http-push', 'index-pack', 'pack-objects', 'remote-ftp',
  'remote-ftps', 'remote-http', 'remote-https',
]);

/** Subcommands that rewrite files of the work tree but never remove one. */
const WORKTREE_WRITERS = new Set(['unpack-file', 'format-patch', 'mailinfo', 'mailsplit', 'bugreport', 'diagnose', 'checkout-index', 'merge-file', 'interpret-trailers']);

/** Subcommands that can remove files of the work tree (switching trees, applying patches, discarding changes). */
const DELETERS = new Set([
  'checkout', 'switch', 'restore', 'merge', 'rebase', 'pull', 'cherry-pick', 'revert', 'am', 'apply', 'clean', 'rm', 'mv', 'stash', 'reset', 'read-tree', 'bisect',
  'submodule', 'sparse-checkout', 'worktree', 'quiltimport', 'subtree', 'merge-index', 'merge-one-file', 'merge-octopus', 'merge-ours', 'merge-recursive',
  'merge-recursive-ours', 'merge-recursive-theirs', 'merge-resolve', 'merge-subtree', 'filter-branch', 'mergetool', 'clone',
  // They run programs (hooks, a server, commands): anything at all.
  'daemon', 'hook', 'shell', 'http-backend', 'instaweb', 'remote-ext', 'remote-fd',
]);

/** The read-only forms of subcommands that mostly write: their first operand (or an option) says so. */
const READ_ACTIONS: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ['stash', new Set(['list', 'show'])],
  ['worktree', new Set(['list'])],
  ['notes', new Set(['list', 'show', 'get-ref'])],
  ['reflog', new Set(['show', 'exists'])],
  ['submodule', new Set(['status', 'summary'])],
  ['sparse-checkout', new Set(['list'])],
  ['bisect', new Set(['log', 'visualize', 'view', 'terms'])],
  ['remote', new Set(['get-url', 'show', '-v', '--verbose'])],
  ['replace', new Set(['--list', '-l'])],
  ['bundle', new Set(['verify', 'list-heads'])],
  ['commit-graph', new Set(['verify'])],
  ['multi-pack-index', new Set(['verify'])],
  ['config', new Set(['get', 'list', '--get', '--get-all', '--get-regexp', '--get-urlmatch', '--list', '-l'])],
]);

/** Subcommands whose bare form (no operand at all) only lists. */
const BARE_LISTS = new Set(['remote', 'reflog', 'notes', 'tag', 'branch', 'replace', 'worktree', 'submodule']);

/** `git branch`/`git tag` options that only list; any other option or an operand writes. */
const LISTING_OPTIONS = /^(-a|-r|-l|-v|-vv|-n[0-9]*|--all|--remotes|--list|--verbose|--show-current|--contains|--no-contains|--merged|--no-merged|--points-at|--sort(=.*)?|--format(=.*)?|--column(=.*)?|--no-column|--color(=.*)?|--no-color|--abbrev(=.*)?|--no-abbrev|-i|--ignore-case|--omit-empty|--verify|-v)$/;

/** `git branch`/`git tag` options that create, delete, move or annotate even with `--list`. */
const WRITING_BRANCH_OPTION = /^(-[a-zA-Z]*[dDmMcCfuasFe]|--(delete|move|copy|force|set-upstream|set-upstream-to|unset-upstream|edit-description|annotate|sign|local-user|message|file|create-reflog|track|no-track|recurse-submodules)(=.*)?)$/;

/**
 * The subcommand of one `git` command (`words[0]` is `git`) and what it does.
 *
 * @example
 * gitSubcommand([git, reset, --hard]) // { name: 'reset', index: 1, effect: 'delete', operands: 'write', because: '--hard' }
 * gitSubcommand([git, -C, lib, status]) // { name: 'status', index: 3, effect: 'read', operands: 'read', because: undefined }
 */
export function gitSubcommand(words: readonly ShellWord[]): GitSubcommand {
  let index = 1;
  for (; index < words.length; index++) {
    const word = words[index]!;
    if (word.kind === 'dynamic') return { name: undefined, index, effect: 'unknown', operands: 'write', because: word.text };
    if (!word.value.startsWith('-')) break;
    if (GIT_GLOBAL_VALUED.has(word.value)) index++;
    // `git --help`, `git --version`, `git --exec-path` (without a value) print and stop.
    if (['--help', '-h', '--version', '-v', '--html-path', '--man-path', '--info-path'].includes(word.value)) return { name: undefined, index, effect: 'read', operands: 'read', because: undefined };
  }
  const word = words[index];
  if (word === undefined) return { name: undefined, index, effect: 'read', operands: 'read', because: undefined };
  const name = word.value;
  const rest = words.slice(index + 1);
  const values = rest.map((entry) => entry.value);
  const result = (effect: GitEffect, operands: PathUse = 'read', because?: string): GitSubcommand => ({ name, index, effect, operands, because });
  const flag = (...names: string[]) => values.find((value) => names.includes(value) || names.some((candidate) => candidate.startsWith('--') && value.startsWith(`${candidate}=`)));
  const shortFlag = (letter: string) => values.find((value) => /^-[a-zA-Z]+$/.test(value) && value.includes(letter));
  const firstOperand = values.find((value) => !value.startsWith('-'));

  const readAction = READ_ACTIONS.get(name);
  if (BARE_LISTS.has(name) && rest.length === 0) return result('read');
  // `git stash list`, `git remote get-url x`, `git config --get x`: the action word or a listing option.
  if (readAction !== undefined && ((firstOperand !== undefined && readAction.has(firstOperand)) || values.some((value) => value.startsWith('-') && readAction.has(value)))) return result('read');

  switch (name) {
    case 'branch':
    case 'tag': {
      const listing = values.every((value) => LISTING_OPTIONS.test(value)) || (flag('-l', '--list') !== undefined && !values.some((value) => WRITING_BRANCH_OPTION.test(value)));
      return listing ? result('read') : result('repository', 'read', firstOperand ?? values[0]);
    }
    case 'rm': {
      if (flag('--cached') !== undefined) return result('repository', 'read', '--cached');
      return flag('-n', '--dry-run') !== undefined ? result('read') : result('delete', 'delete');
    }
    case 'clean':
      return flag('-n', '--dry-run') !== undefined || shortFlag('n') !== undefined ? result('read') : result('delete', 'delete');
    case 'mv':
      return flag('-n', '--dry-run') !== undefined ? result('read') : result('delete', 'delete');
    case 'apply': {
      const checkOnly = flag('--check', '--stat', '--numstat', '--summary') !== undefined && flag('--apply') === undefined;
      if (checkOnly) return result('read');
      return flag('--cached') !== undefined ? result('repository') : result('delete', 'read', 'applying a patch');
    }
    case 'reset': {
      const mode = flag('--hard', '--merge', '--keep');
      if (mode !== undefined) return result('delete', 'write', mode);
      // `git reset -- file` or `git reset HEAD file` changes the index only; `git reset --patch` too.
      return result('repository');
    }
    case 'restore':
      return flag('--staged', '-S') !== undefined && flag('--worktree', '-W') === undefined ? result('repository') : result('delete', 'write');
    case 'checkout': {
      const separator = values.indexOf('--');
      // `git checkout -- a.txt` rewrites a.txt; `git checkout main` switches the tree (removing files main lacks).
      return result('delete', separator === -1 ? 'read' : 'write', separator === -1 ? undefined : '--');
    }
    case 'stash': {
      const untracked = flag('-u', '--include-untracked', '-a', '--all') ?? shortFlag('u') ?? shortFlag('a');
      return result('delete', 'read', untracked ?? firstOperand);
    }
    case 'worktree': {
      if (firstOperand === 'add') return result('worktree', 'write', 'add');
      if (firstOperand === 'remove' || firstOperand === 'move') return result('delete', 'delete', firstOperand);
      return result('repository', 'read', firstOperand);
    }
    case 'format-patch':
      return flag('--stdout') !== undefined ? result('read') : result('worktree');
    case 'interpret-trailers':
      return flag('--in-place') !== undefined ? result('worktree', 'write', '--in-place') : result('read');
    case 'merge-file':
      return flag('-p', '--stdout') !== undefined ? result('read') : result('worktree', 'write');
    case 'mailinfo':
      return result('worktree', 'write');
    case 'read-tree':
      return flag('-u', '--reset') !== undefined || shortFlag('u') !== undefined ? result('delete', 'read', '-u') : result('repository');
    case 'checkout-index':
      return result('worktree', 'write');
    case 'fsck':
      return flag('--lost-found') !== undefined ? result('repository', 'read', '--lost-found') : result('read');
    case 'clone':
      // Its paths (the new directory) are judged by the clone grammar itself.
      return result('worktree');
  }
  if (READERS.has(name)) return result('read');
  if (REPOSITORY_WRITERS.has(name)) return result('repository');
  if (WORKTREE_WRITERS.has(name)) return result('worktree');
  if (DELETERS.has(name)) return result('delete');
  return result('unknown', 'write');
}

/**
 * Whether git knows the subcommand (it is not an alias or a `git-NAME` program).
 *
 * @example
 * isKnownGitSubcommand('status') // true
 * isKnownGitSubcommand('st')     // false: an alias, if anything
 */
export function isKnownGitSubcommand(name: string): boolean {
  return READERS.has(name) || REPOSITORY_WRITERS.has(name) || WORKTREE_WRITERS.has(name) || DELETERS.has(name);
}
