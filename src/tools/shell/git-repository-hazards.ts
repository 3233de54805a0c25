/**
 * What a repository makes git run, before any git command runs in it.
 * `git status` and `git diff` run `core.fsmonitor`, `diff.external`,
 * textconv and filter drivers from the repository's own `.git/config`,
 * and git commands run the hooks in `.git/hooks`: code that a vendored
 * repository already carries, or that an earlier command wrote. So a git
 * command in a repository whose configuration names a program, or that has
 * hooks, asks, with a reason naming the key or the hook.
 *
 * The repository is found the way git finds it: `--git-dir`, else from the
 * directory the command runs in (`cwd`, moved by `-C`) upward, through
 * `.git` directories, `gitdir:` files (worktrees, submodules; a worktree's
 * shared `commondir` too) and bare repositories. The repositories embedded
 * in it are read too, since git status and git diff run in them: those at
 * the gitlinks of its index (with or without `.gitmodules`) and those under
 * `.git/modules`. Files are read only when their `stat` changed since the
 * last look.
 */
import type { Stats } from 'node:fs';
import { readdirSync, readTextFileSync, statSync } from '../../filesystem/file-lookups.ts';
import path from 'node:path';
import { parseGitConfig } from './git-config-entries.ts';
import { gitlinkPaths } from './git-index-gitlinks.ts';
import { isSameOrInside } from '../../sandbox/sandbox-profile.ts';

/** The configuration keys that name a program git runs (section and key lower-cased; subsections kept). */
const PROGRAM_KEYS: readonly { pattern: RegExp; what: string }[] = [
  { pattern: /^core\.(fsmonitor|pager|editor|sshcommand|askpass|gitproxy|alternaterefscommand)$/, what: 'names a program git runs' },
  { pattern: /^core\.hookspath$/, what: 'points git at hooks it runs' },
  { pattern: /^core\.worktree$/, what: 'puts the work tree somewhere else, whose files this check does not see' },
  { pattern: /^diff\.external$/, what: 'names a program git diff runs' },
  { pattern: /^diff\..+\.(textconv|command)$/, what: 'names a program git runs on file contents (diff, log, blame)' },
  { pattern: /^(diff|merge)tool\..+\.(cmd|path)$/, what: 'names a program git runs' },
  { pattern: /^merge\..+\.driver$/, what: 'names a program git merge runs' },
  { pattern: /^filter\..+\.(clean|smudge|process)$/, what: 'names a filter program git runs on checkout, add and status' },
  { pattern: /^credential(\..+)?\.helper$/, what: 'names a program git runs for credentials' },
  { pattern: /^gpg(\..+)?\.program$/, what: 'names a program git runs to sign or verify' },
  { pattern: /^sequence\.editor$/, what: 'names a program git rebase runs' },
  { pattern: /^uploadpack\.packobjectshook$/, what: 'names a program git runs when serving objects' },
  { pattern: /^(include\.path|includeif\..+\.path)$/, what: 'includes another configuration file, which this check does not read' },
  { pattern: /^pager\..+$/, what: 'names a pager git runs' },
  { pattern: /^interactive\.difffilter$/, what: 'names a program git runs' },
  { pattern: /^(web\.browser|browser\..+\.(cmd|path)|man\..+\.(cmd|path))$/, what: 'names a program git runs' },
  { pattern: /^remote\..+\.(uploadpack|receivepack)$/, what: 'names a program git runs for the remote' },
  { pattern: /^sendemail\.(.+\.)?(smtpserver|sendmailcmd|tocmd|cccmd|headercmd)$/, what: 'names a program git send-email runs' },
  { pattern: /^imap\.tunnel$/, what: 'names a program git imap-send runs' },
  { pattern: /^trailer\..+\.(cmd|command)$/, what: 'names a command git runs for trailers' },
  { pattern: /^ssh\.variant$/, what: 'changes how git runs ssh' },
  { pattern: /^tar\..+\.command$/, what: 'names a program git archive runs' },
  { pattern: /^gpg\.ssh\.defaultkeycommand$/, what: 'names a program git runs to sign' },
  { pattern: /^hook\..+\.command$/, what: 'names a hook command git runs' },
  { pattern: /^(help\.browser|guitool\..+\.cmd|instaweb\.(httpd|browser))$/, what: 'names a program git runs' },
  // Whatever their value: they let a URL or a fetch reach a transport that runs a command (ext::, a remote helper).
  { pattern: /^protocol\.(.+\.)?allow$/, what: 'lets git use transports that can run commands (ext::)' },
  { pattern: /^url\..+\.(insteadof|pushinsteadof)$/, what: 'rewrites URLs, which can turn a remote into one that runs a command (ext::)' },
  { pattern: /^remote\..+\.(vcs|promisor)$/, what: 'makes git run a remote helper, or fetch from the remote while only reading' },
  { pattern: /^extensions\.partialclone$/, what: 'makes git fetch missing objects from a remote while only reading, through whatever that remote runs' },
];

/** `core.fsmonitor = true` uses git's own daemon; only a path or command runs something else. */
const BOOLEAN = /^(true|false|yes|no|on|off|1|0|)$/i;

/** Larger configuration files are not read: they ask. */
const MAX_CONFIG_BYTES = 256 * 1024;
/** A work tree with more directories than this is not searched whole for repositories a writing command could embed: it asks. */
const MAX_WORK_TREE_DIRECTORIES = 4000;
/** More submodules than this are not all read: they ask. */
const MAX_SUBMODULES = 64;
/** Repositories remembered at most (a long-running server sees many). */
const MAX_CACHED = 1024;

interface CachedConfig {
  key: string;
  /** Why it asks, one per key; `alias.*` keys apart, since they matter only for subcommands git does not know. */
  reasons: string[];
  aliases: string[];
  /** `extensions.objectFormat = sha256`: the index names objects with 32 bytes. */
  sha256: boolean;
}

interface CachedHooks {
  key: string;
  /** Entries that are not `*.sample`: each is checked for being an executable file on every look. */
  candidates: string[];
}

/**
 * The hooks a command that only reads can still set off: `git status` and
 * `git diff` refresh and rewrite the index, which runs post-index-change.
 * Every other hook runs on commits, checkouts, merges, ref updates, pushes.
 */
const READER_HOOKS = new Set(['post-index-change']);

const configCache = new Map<string, CachedConfig>();
const gitlinkCache = new Map<string, { key: string; links: { paths: string[] } | { reason: string } }>();
const hooksCache = new Map<string, CachedHooks>();

export interface GitRepository {
  /** The repository's own directory (`.git`), real or as found. */
  gitDirectory: string;
  /** The shared directory of a linked worktree (its config and hooks), or the same as `gitDirectory`. */
  commonDirectory: string;
  /** The top of the work tree; undefined for a bare repository. */
  top: string | undefined;
  /**
   * Directories git was sent to by a file rather than found in place: the
   * target of a `gitdir:` file, a worktree's `commondir`, and the object
   * directories of `objects/info/alternates`. Git reads
   * history and configuration there (and writes, for a writing command),
   * wherever they point, so they are judged like any other path.
   */
  redirected: string[];
}

/**
 * The reasons a git command in `directory` needs a person because of what
 * its repository makes git run: configuration keys that name programs,
 * hooks, a `.git` file that cannot be followed. `knownSubcommand` false
 * (an alias, if anything) also counts `alias.*` keys; `readsOnly` counts
 * only the hooks a reader can set off, and without it every repository
 * anywhere in the work tree is read too (a writer can embed it). With `zoneRoots`, the directories
 * above the zones (`/tmp`, `/`, where no command may write) are not looked
 * at for being bare repositories on the way up; every other one is. Empty outside any
 * repository. Never throws: what cannot be read is a reason.
 *
 * @example
 * gitRepositoryHazards({ directory: '/p/ws' })
 * // ['/p/ws/.git/config sets core.fsmonitor, which names a program git runs']
 */
export function gitRepositoryHazards(options: { directory: string; gitDirectory?: string; knownSubcommand?: boolean; readsOnly?: boolean; zoneRoots?: readonly string[] }): { reasons: string[]; repository: GitRepository | undefined } {
  const reasons: string[] = [];
  let repository: GitRepository | undefined;
  try {
    const found = options.gitDirectory === undefined ? findRepository(options.directory, options.zoneRoots) : openGitDirectory(path.resolve(options.directory, options.gitDirectory), undefined);
    if (found === undefined) return { reasons, repository: undefined };
    if ('reason' in found) return { reasons: [found.reason], repository: undefined };
    repository = found;
    const directories = new Set([repository.gitDirectory, repository.commonDirectory]);
    for (const gitDirectory of directories) {
      for (const file of ['config', 'config.worktree']) {
        const config = configHazards(path.join(gitDirectory, file));
        reasons.push(...config.reasons);
        if (options.knownSubcommand === false) reasons.push(...config.aliases);
      }
    }
    reasons.push(...hookHazards(path.join(repository.commonDirectory, 'hooks'), options.readsOnly === true));
    reasons.push(...submoduleHazards(path.join(repository.commonDirectory, 'modules'), 0, { count: 0 }));
    if (repository.top !== undefined) reasons.push(...embeddedHazards({ repository, readsOnly: options.readsOnly === true, depth: 0, seen: { count: 0 } }));
    // A command that writes the index can make any repository in the work tree a gitlink (`git add -A`, `git reset`), which a later `git status` enters.
    if (repository.top !== undefined && options.readsOnly !== true) reasons.push(...workTreeRepositoryHazards(repository.top));
  } catch (error) {
    reasons.push(`the repository around ${options.directory} could not be checked for programs git would run (${error instanceof Error ? error.message : String(error)})`);
  }
  return { reasons: [...new Set(reasons)], repository };
}

type Found = GitRepository | { reason: string } | undefined;

/** git's discovery: from `directory` up, a `.git` (directory or `gitdir:` file), or the directory itself when it is a repository. */
function findRepository(directory: string, zoneRoots: readonly string[] | undefined): Found {
  for (let current = path.resolve(directory); ; current = path.dirname(current)) {
    const dotGit = path.join(current, '.git');
    const status = statSync(dotGit, { throwIfNoEntry: false });
    if (status?.isDirectory() === true) return openGitDirectory(dotGit, current);
    if (status?.isFile() === true) return followGitFile(dotGit, current);
    // A directory above a zone and inside none (`/tmp`, `/`) is not where a command could have planted a bare repository.
    // One inside any zone is, even when it is above another (zones nest).
    const skipped = zoneRoots !== undefined && zoneRoots.some((root) => isSameOrInside(root, current) && root !== current) && !zoneRoots.some((root) => isSameOrInside(current, root));
    if (!skipped && looksLikeGitDirectory(current)) return openGitDirectory(current, undefined);
    if (current === path.dirname(current)) return undefined;
  }
}

/** A bare repository (or a `.git` directory entered directly): HEAD, objects and refs, as git checks. */
function looksLikeGitDirectory(directory: string): boolean {
  if (statSync(path.join(directory, 'HEAD'), { throwIfNoEntry: false })?.isFile() !== true) return false;
  return statSync(path.join(directory, 'objects'), { throwIfNoEntry: false })?.isDirectory() === true && statSync(path.join(directory, 'refs'), { throwIfNoEntry: false }) !== undefined;
}

/** `.git` as a file: `gitdir: PATH`, relative to the file's directory. */
function followGitFile(file: string, top: string): Found {
  const text = readTextFileSync(file, { maxBytes: 4096 });
  const match = /^gitdir: (.+)$/m.exec(text);
  if (match === null) return { reason: `${file} is a file that does not say where its repository is, so what git would run there cannot be checked` };
  const target = path.resolve(top, match[1]!.trim());
  if (statSync(target, { throwIfNoEntry: false })?.isDirectory() !== true) return { reason: `${file} points to ${target}, which is not a directory, so what git would run there cannot be checked` };
  const found = openGitDirectory(target, top);
  return { ...found, redirected: [target, ...found.redirected] };
}

function openGitDirectory(gitDirectory: string, top: string | undefined): GitRepository {
  let commonDirectory = gitDirectory;
  const redirected: string[] = [];
  const common = statSync(path.join(gitDirectory, 'commondir'), { throwIfNoEntry: false });
  if (common?.isFile() === true) {
    const written = readTextFileSync(path.join(gitDirectory, 'commondir'), { maxBytes: 4096 }).trim();
    commonDirectory = path.resolve(gitDirectory, written);
    redirected.push(commonDirectory);
  }
  redirected.push(...alternateObjectDirectories(path.join(commonDirectory, 'objects')));
  return { gitDirectory, commonDirectory, top, redirected };
}

/** Alternates chains followed at most this deep (git itself stops at 5). */
const MAX_ALTERNATE_DEPTH = 5;

/**
 * The object directories `objects/info/alternates` adds, and theirs in
 * turn: git reads objects (file contents, history) from them as its own,
 * so `git show` prints files of a repository outside every zone.
 */
function alternateObjectDirectories(objects: string, depth = 0): string[] {
  const file = path.join(objects, 'info', 'alternates');
  if (depth >= MAX_ALTERNATE_DEPTH || statSync(file, { throwIfNoEntry: false })?.isFile() !== true) return [];
  const found: string[] = [];
  for (const line of readTextFileSync(file, { maxBytes: 64 * 1024 }).split('\n')) {
    const entry = line.trim();
    if (entry === '' || entry.startsWith('#')) continue;
    // A quoted entry ("...") is taken as written: the quotes make a path no zone holds, so it is judged outside them.
    const directory = path.resolve(objects, entry);
    found.push(directory, ...alternateObjectDirectories(directory, depth + 1));
  }
  return found;
}

/** The keys in one configuration file that name programs (cached by the file's identity and times). */
function configHazards(file: string): CachedConfig {
  const status = statSync(file, { throwIfNoEntry: false });
  if (status === undefined) return { key: '', reasons: [], aliases: [], sha256: false };
  const key = identity(status);
  const cached = configCache.get(file);
  if (cached !== undefined && cached.key === key) return cached;
  const result: CachedConfig = { key, reasons: [], aliases: [], sha256: false };
  if (!status.isFile()) result.reasons.push(`${file} is not a regular file, so what git would run cannot be checked`);
  else if (status.size > MAX_CONFIG_BYTES) result.reasons.push(`${file} is larger than ${MAX_CONFIG_BYTES} bytes and is not read, so what git would run cannot be checked`);
  else scanConfig(file, readTextFileSync(file, { maxBytes: MAX_CONFIG_BYTES }), result);
  if (configCache.size >= MAX_CACHED) configCache.clear();
  configCache.set(file, result);
  return result;
}

/**
 * Names every key that makes git run something, on the entries as git's
 * own parser reads them (quoted pieces joined, escapes, continued lines).
 * A file git would refuse asks, since this check and git might disagree.
 */
function scanConfig(file: string, text: string, result: CachedConfig): void {
  const parsed = parseGitConfig(text);
  if (parsed.error !== undefined) result.reasons.push(`${file} has a line git may read that this check cannot (${parsed.error})`);
  for (const { key, value } of parsed.entries) {
    if (key === 'extensions.objectformat') result.sha256 = value?.toLowerCase() === 'sha256';
    const reason = keyHazard(key, value);
    if (reason === undefined) continue;
    if (reason === ALIAS) result.aliases.push(`${file} defines the alias ${key.slice('alias.'.length)}, which can run any command`);
    else result.reasons.push(`${file} sets ${key}${reason}`);
  }
}

const ALIAS = '\u0000alias';

/** Why one key makes git run something (the text after the key's name), undefined when it does not, `ALIAS` for an alias. */
function keyHazard(key: string, value: string | undefined): string | undefined {
  if (key.startsWith('alias.')) return ALIAS;
  const text = (value ?? 'true').trim();
  if (key === 'core.fsmonitor' && BOOLEAN.test(text)) return undefined;
  if (/^submodule\..+\.update$/.test(key)) return text.startsWith('!') ? ' to a command, which git submodule update runs' : undefined;
  // `ext::cmd`, `fd::3`, `foo::url`: git runs the remote helper `git-remote-<transport>` (ext runs the command itself).
  if (/^(remote|submodule)\..+\.(url|pushurl)$/.test(key)) return /^[A-Za-z0-9+.-]+::/.test(text) ? ` to a ${text.slice(0, text.indexOf('::') + 2)} URL, which runs a program (a remote helper; ext:: runs the command it names)` : undefined;
  const program = PROGRAM_KEYS.find((candidate) => candidate.pattern.test(key));
  return program === undefined ? undefined : `, which ${program.what}`;
}

/** Executable hooks (anything but the `*.sample` files `git init` writes) in `hooks`. */
function hookHazards(hooks: string, readsOnly = false): string[] {
  const status = statSync(hooks, { throwIfNoEntry: false });
  if (status === undefined) return [];
  if (!status.isDirectory()) return [`${hooks} is not a directory, so the hooks git would run cannot be checked`];
  const key = identity(status);
  let cached = hooksCache.get(hooks);
  if (cached === undefined || cached.key !== key) {
    cached = { key, candidates: readdirSync(hooks).filter((name) => !name.endsWith('.sample')) };
    if (hooksCache.size >= MAX_CACHED) hooksCache.clear();
    hooksCache.set(hooks, cached);
  }
  const found: string[] = [];
  // Checked every time: `chmod +x` on an existing entry does not change the directory.
  for (const name of cached.candidates) {
    if (readsOnly && !READER_HOOKS.has(name)) continue;
    const hook = statSync(path.join(hooks, name), { throwIfNoEntry: false });
    if (hook === undefined) continue;
    if (hook.isDirectory() || (hook.mode & 0o111) !== 0) found.push(name);
  }
  return found.length === 0 ? [] : [`${hooks} has hooks that git runs (${found.slice(0, 5).join(', ')}${found.length > 5 ? ', ...' : ''})`];
}

/**
 * The repositories embedded at the gitlinks of `repository`'s index (with
 * or without `.gitmodules`): git status and git diff go into each and run
 * what its configuration names, and its hooks. Their own gitlinks too, down
 * to a bound; more than `MAX_SUBMODULES` of them ask.
 */
function embeddedHazards(options: { repository: GitRepository; readsOnly: boolean; depth: number; seen: { count: number } }): string[] {
  const { repository, readsOnly, depth, seen } = options;
  const indexFile = path.join(repository.gitDirectory, 'index');
  const links = cachedGitlinks(indexFile, repository.commonDirectory);
  if ('reason' in links) return [`${links.reason}, so the repositories embedded in it cannot be checked for programs git would run`];
  const reasons: string[] = [];
  for (const link of links.paths) {
    if (++seen.count > MAX_SUBMODULES) return [...reasons, `${indexFile} records more than ${MAX_SUBMODULES} embedded repositories (gitlinks), which are not all checked for programs git would run`];
    const top = path.join(repository.top!, link);
    const dotGit = path.join(top, '.git');
    const status = statSync(dotGit, { throwIfNoEntry: false });
    // Not checked out: git has nothing to run there.
    if (status === undefined) continue;
    const found = status.isDirectory() ? openGitDirectory(dotGit, top) : status.isFile() ? followGitFile(dotGit, top) : { reason: `${dotGit} is neither a directory nor a file, so what git would run there cannot be checked` };
    if (found === undefined) continue;
    if ('reason' in found) {
      reasons.push(found.reason);
      continue;
    }
    for (const gitDirectory of new Set([found.gitDirectory, found.commonDirectory])) {
      for (const file of ['config', 'config.worktree']) reasons.push(...configHazards(path.join(gitDirectory, file)).reasons);
    }
    reasons.push(...hookHazards(path.join(found.commonDirectory, 'hooks'), readsOnly));
    if (depth >= 3) {
      reasons.push(`${top} is embedded more than 3 repositories deep, and what git would run below it is not checked`);
      continue;
    }
    reasons.push(...embeddedHazards({ repository: found, readsOnly, depth: depth + 1, seen }));
  }
  return reasons;
}

/**
 * Every repository inside the work tree (a `.git` below its top, tracked
 * or not), read like an embedded one: a command that writes the index can
 * record any of them as a gitlink, and a later git status in the same line
 * runs what it names (and the hooks a reader sets off). Symlinks are not
 * followed, as git does not. The walk is bounded: a larger tree asks.
 */
function workTreeRepositoryHazards(top: string): string[] {
  const reasons: string[] = [];
  let budget = MAX_WORK_TREE_DIRECTORIES;
  let level = [top];
  while (level.length > 0) {
    const next: string[] = [];
    for (const directory of level) {
      if (--budget < 0) return [...reasons, `the work tree ${top} has more than ${MAX_WORK_TREE_DIRECTORIES} directories, and the repositories in it that this command could record as gitlinks are not all checked for programs git would run`];
      for (const entry of readdirSync(directory, { withFileTypes: true })) {
        if (entry.name === '.git') {
          if (directory === top) continue;
          const dotGit = path.join(directory, entry.name);
          const found = entry.isDirectory() ? openGitDirectory(dotGit, directory) : entry.isFile() ? followGitFile(dotGit, directory) : undefined;
          if (found === undefined) continue;
          if ('reason' in found) reasons.push(found.reason);
          else reasons.push(...configHazards(path.join(found.commonDirectory, 'config')).reasons, ...hookHazards(path.join(found.commonDirectory, 'hooks'), true));
        } else if (entry.isDirectory()) next.push(path.join(directory, entry.name));
      }
    }
    level = next;
  }
  return reasons;
}

/** The gitlinks of one index, cached by the index's identity (git status rewrites it often; most repositories have none). */
function cachedGitlinks(indexFile: string, commonDirectory: string): { paths: string[] } | { reason: string } {
  const status = statSync(indexFile, { throwIfNoEntry: false });
  if (status === undefined) return { paths: [] };
  const key = identity(status);
  const cached = gitlinkCache.get(indexFile);
  if (cached !== undefined && cached.key === key) return cached.links;
  const hashBytes = configHazards(path.join(commonDirectory, 'config')).sha256 ? 32 : 20;
  const links = gitlinkPaths({ indexFile, hashBytes });
  if (gitlinkCache.size >= MAX_CACHED) gitlinkCache.clear();
  gitlinkCache.set(indexFile, { key, links });
  return links;
}

/** Submodules' repositories under `.git/modules` (nested ones under their own `modules`): git runs in them too. */
function submoduleHazards(modules: string, depth: number, seen: { count: number }): string[] {
  if (depth > 3 || statSync(modules, { throwIfNoEntry: false })?.isDirectory() !== true) return [];
  const reasons: string[] = [];
  for (const entry of readdirSync(modules, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const directory = path.join(modules, entry.name);
    if (++seen.count > MAX_SUBMODULES) return [...reasons, `${modules} holds more than ${MAX_SUBMODULES} submodule repositories, which are not all checked for programs git would run`];
    if (exists(path.join(directory, 'config'))) {
      reasons.push(...configHazards(path.join(directory, 'config')).reasons, ...hookHazards(path.join(directory, 'hooks')));
    }
    // A submodule's name may hold slashes (`modules/a/b`), and nested submodules live in its own `modules`.
    reasons.push(...submoduleHazards(exists(path.join(directory, 'config')) ? path.join(directory, 'modules') : directory, depth + 1, seen));
  }
  return reasons;
}

function exists(file: string): boolean {
  return statSync(file, { throwIfNoEntry: false }) !== undefined;
}

/**
 * What changes whenever the file's content does: its inode, size and
 * change times (milliseconds with the file system's sub-millisecond part;
 * the bigint form costs three times as much, on every git command).
 */
function identity(status: Stats): string {
  return `${status.dev}:${status.ino}:${status.size}:${status.mtimeMs}:${status.ctimeMs}`;
}
