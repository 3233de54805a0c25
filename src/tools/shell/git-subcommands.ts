/**
 * What every git subcommand does to the files around it, so that a rule
 * allowing `git` does not make `git rm`, `git clean` or `git reset --hard`
 * readers: it reads only, writes the repository (refs, index, objects,
 * configuration), writes files of the work tree, or can also delete them.
 * A subcommand this table does not know is an alias or a program named
 * `git-NAME` on the PATH: it could do anything, and counts as the worst.
 * The one table of git subcommands: each entry also says whether it uses
 * the network and whether it leaves the work tree's layout alone, and
 * `gitSubcommand` is the one way to find the subcommand among the words.
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
  /** The table's traits of `name`; undefined for a bare `git`, a subcommand only known at run time, or one the table does not know. */
  traits: GitSubcommandTraits | undefined;
}

/** Global options that take their value as the next word. */
export const GIT_GLOBAL_VALUED: ReadonlySet<string> = new Set(['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--super-prefix', '--config-env', '--exec-path', '--attr-source', '--list-cmds']);

/** What the table says of one subcommand by its name alone (its arguments can lower the effect, `gitSubcommand`). */
export interface GitSubcommandTraits {
  /** The most it does to files, whatever its arguments. */
  effect: GitEffect;
  /** It always talks to another machine (`fetch`, `push`); a few do only with some arguments (`clone URL`, see `network-commands.ts`). */
  network: boolean;
  /**
   * It leaves the work tree's layout alone: it reads, or writes `.git` and
   * regular files only, so it cannot make a path of another command in the
   * same line lead somewhere else (`line-layout-changes.ts`). The others
   * check out, apply, merge, stash, move or clean files anywhere in the
   * work tree.
   */
  keepsLayout: boolean;
}

const NETWORK = 'network';
const KEEPS_LAYOUT = 'layout';
const t = (effect: GitEffect, ...flags: (typeof NETWORK | typeof KEEPS_LAYOUT)[]): GitSubcommandTraits => ({ effect, network: flags.includes(NETWORK), keepsLayout: flags.includes(KEEPS_LAYOUT) });

/** Every git subcommand toolgate knows, once: what it does to files, whether it uses the network, whether it keeps the layout. */
const GIT_SUBCOMMANDS: ReadonlyMap<string, GitSubcommandTraits> = new Map(Object.entries({
  // Read only (beyond git's own index refresh).
  annotate: t('read', KEEPS_LAYOUT), archive: t('read'), blame: t('read', KEEPS_LAYOUT), 'cat-file': t('read', KEEPS_LAYOUT), 'check-attr': t('read', KEEPS_LAYOUT),
  'check-ignore': t('read', KEEPS_LAYOUT), 'check-mailmap': t('read'), 'check-ref-format': t('read'), cherry: t('read'), column: t('read'),
  'count-objects': t('read', KEEPS_LAYOUT), describe: t('read', KEEPS_LAYOUT), diff: t('read', KEEPS_LAYOUT), 'diff-files': t('read'), 'diff-index': t('read'),
  'diff-tree': t('read'), difftool: t('read'), 'fast-export': t('read'), 'fmt-merge-msg': t('read'), 'for-each-ref': t('read', KEEPS_LAYOUT), 'fsck-objects': t('read'),
  'get-tar-commit-id': t('read'), grep: t('read', KEEPS_LAYOUT), help: t('read', KEEPS_LAYOUT), 'imap-send': t('read'), log: t('read', KEEPS_LAYOUT),
  'ls-files': t('read', KEEPS_LAYOUT), 'ls-remote': t('read', NETWORK), 'ls-tree': t('read', KEEPS_LAYOUT), 'merge-base': t('read', KEEPS_LAYOUT),
  'name-rev': t('read', KEEPS_LAYOUT), 'pack-redundant': t('read'), 'patch-id': t('read'), pickaxe: t('read'), 'range-diff': t('read', KEEPS_LAYOUT),
  'request-pull': t('read', NETWORK), 'rev-list': t('read', KEEPS_LAYOUT), 'rev-parse': t('read', KEEPS_LAYOUT), shortlog: t('read', KEEPS_LAYOUT),
  show: t('read', KEEPS_LAYOUT), 'show-branch': t('read'), 'show-index': t('read'), 'show-ref': t('read', KEEPS_LAYOUT), status: t('read', KEEPS_LAYOUT),
  stripspace: t('read'), var: t('read', KEEPS_LAYOUT), 'verify-commit': t('read'), 'verify-pack': t('read'), 'verify-tag': t('read'), version: t('read', KEEPS_LAYOUT),
  whatchanged: t('read', KEEPS_LAYOUT),
  // Write the repository only (refs, index, objects, configuration, hooks they install).
  add: t('repository', KEEPS_LAYOUT), branch: t('repository', KEEPS_LAYOUT), bundle: t('repository'), commit: t('repository', KEEPS_LAYOUT),
  'commit-graph': t('repository'), 'commit-tree': t('repository'), config: t('repository', KEEPS_LAYOUT), credential: t('repository'),
  'credential-cache': t('repository'), 'credential-store': t('repository'), 'fast-import': t('repository'), fetch: t('repository', NETWORK, KEEPS_LAYOUT),
  'fetch-pack': t('repository'), 'for-each-repo': t('repository'), fsck: t('repository', KEEPS_LAYOUT), gc: t('repository'), 'hash-object': t('repository'),
  'http-fetch': t('repository'), 'http-push': t('repository'), 'index-pack': t('repository'), init: t('repository'), 'init-db': t('repository'),
  maintenance: t('repository'), 'merge-tree': t('repository'), mktag: t('repository'), mktree: t('repository'), 'multi-pack-index': t('repository'),
  notes: t('repository', KEEPS_LAYOUT), 'pack-objects': t('repository'), 'pack-refs': t('repository'), prune: t('repository'), 'prune-packed': t('repository'),
  push: t('repository', NETWORK, KEEPS_LAYOUT), 'receive-pack': t('repository'), reflog: t('repository', KEEPS_LAYOUT), remote: t('repository', KEEPS_LAYOUT),
  'remote-ftp': t('repository'), 'remote-ftps': t('repository'), 'remote-http': t('repository'), 'remote-https': t('repository'), repack: t('repository'),
  replace: t('repository'), rerere: t('repository'), 'send-pack': t('repository'), stage: t('repository'), 'symbolic-ref': t('repository'),
  tag: t('repository', KEEPS_LAYOUT), 'unpack-objects': t('repository'), 'update-index': t('repository'), 'update-ref': t('repository'),
  'update-server-info': t('repository'), 'upload-archive': t('repository'), 'upload-pack': t('repository'), 'write-tree': t('repository'),
  // Rewrite files of the work tree but never remove one.
  bugreport: t('worktree'), 'checkout-index': t('worktree'), diagnose: t('worktree'), 'format-patch': t('worktree'), 'interpret-trailers': t('worktree'),
  mailinfo: t('worktree'), mailsplit: t('worktree'), 'merge-file': t('worktree'), 'unpack-file': t('worktree'),
  // Can remove files of the work tree (switching trees, applying patches, discarding changes), or run programs that can.
  am: t('delete'), apply: t('delete'), bisect: t('delete'), checkout: t('delete'), 'cherry-pick': t('delete'), clean: t('delete'), clone: t('delete'),
  daemon: t('delete'), 'filter-branch': t('delete'), hook: t('delete'), 'http-backend': t('delete'), instaweb: t('delete'), merge: t('delete'),
  'merge-index': t('delete'), 'merge-octopus': t('delete'), 'merge-one-file': t('delete'), 'merge-ours': t('delete'), 'merge-recursive': t('delete'),
  'merge-recursive-ours': t('delete'), 'merge-recursive-theirs': t('delete'), 'merge-resolve': t('delete'), 'merge-subtree': t('delete'), mergetool: t('delete'),
  mv: t('delete'), pull: t('delete', NETWORK), quiltimport: t('delete'), 'read-tree': t('delete'), rebase: t('delete'), 'remote-ext': t('delete'),
  'remote-fd': t('delete'), reset: t('delete'), restore: t('delete'), revert: t('delete'), rm: t('delete'), shell: t('delete'), 'sparse-checkout': t('delete'),
  stash: t('delete'), submodule: t('delete'), subtree: t('delete'), switch: t('delete'), worktree: t('delete'),
  // Not in git's own set of built-in commands here (a script, a separate package): not modelled, but known to use the network.
  'send-email': t('unknown', NETWORK),
}));

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
 * gitSubcommand([git, reset, --hard]) // { name: 'reset', index: 1, effect: 'delete', operands: 'read', because: '--hard', traits: { effect: 'delete', ... } }
 * gitSubcommand([git, -C, lib, status]) // { name: 'status', index: 3, effect: 'read', operands: 'read', because: undefined, traits: { effect: 'read', network: false, keepsLayout: true } }
 */
export function gitSubcommand(words: readonly ShellWord[]): GitSubcommand {
  let index = 1;
  for (; index < words.length; index++) {
    const word = words[index]!;
    if (word.kind === 'dynamic') return { name: undefined, index, effect: 'unknown', operands: 'write', because: word.text, traits: undefined };
    if (!word.value.startsWith('-')) break;
    if (GIT_GLOBAL_VALUED.has(word.value)) index++;
    // `git --help`, `git --version`, `git --exec-path` (without a value) print and stop.
    if (['--help', '-h', '--version', '-v', '--html-path', '--man-path', '--info-path'].includes(word.value)) return { name: undefined, index, effect: 'read', operands: 'read', because: undefined, traits: undefined };
  }
  const word = words[index];
  if (word === undefined) return { name: undefined, index, effect: 'read', operands: 'read', because: undefined, traits: undefined };
  const name = word.value;
  const traits = GIT_SUBCOMMANDS.get(name);
  const rest = words.slice(index + 1);
  const values = rest.map((entry) => entry.value);
  const result = (effect: GitEffect, operands: PathUse = 'read', because?: string): GitSubcommand => ({ name, index, effect, operands, because, traits });
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
      // `git reset --hard HEAD~1`: the operand is a commit, not a file (git refuses paths with a mode); the work tree is what changes.
      if (mode !== undefined) return result('delete', 'read', mode);
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
  if (traits === undefined || traits.effect === 'unknown') return result('unknown', 'write');
  return result(traits.effect);
}

/**
 * Whether git knows the subcommand (it is not an alias or a `git-NAME` program).
 *
 * @example
 * isKnownGitSubcommand('status') // true
 * isKnownGitSubcommand('st')     // false: an alias, if anything
 */
export function isKnownGitSubcommand(name: string): boolean {
  const effect = GIT_SUBCOMMANDS.get(name)?.effect;
  return effect !== undefined && effect !== 'unknown';
}
