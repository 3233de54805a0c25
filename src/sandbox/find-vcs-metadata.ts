import { lstat, readdir, realpath } from 'node:fs/promises';
import path from 'node:path';
import { isSameOrInside } from './sandbox-profile.ts';
import { VCS_METADATA_NAME } from './derive-sandbox-profile.ts';

/** How deep below each root the search looks by default (the root's own `.git` is depth 1). */
export const DEFAULT_VCS_SEARCH_DEPTH = 32;
/** How many directories the search reads at most, all roots together, so a huge tree costs a bounded time per command. */
export const DEFAULT_VCS_SEARCH_DIRECTORIES = 4000;
/** More unread directories than this, when the search stops at its bound, and their whole roots are returned instead. */
export const MAX_UNREAD_DIRECTORIES = 256;

/** Directories never descended into: they are big, and they are not where repositories live. */
const SKIPPED = new Set([VCS_METADATA_NAME, 'node_modules']);

/**
 * The `.git` entries (directories, and the `gitdir:` files of worktrees and
 * submodules) a command could reach inside `roots`, found cheaply just
 * before it runs: every one on the way from `cwd` up to the root that holds
 * it (where git itself looks), and every one within `maxDepth` levels of each
 * root, reading at most `maxDirectories` directories. A `.git` that is a
 * symlink, or reached through one, is reported with where it really is too,
 * when that is inside a root.
 * Symlinked directories are not followed. Never throws: an unreadable
 * directory is skipped.
 *
 * The caller makes every returned path read-only. When the search stops at
 * a limit, it fails closed: the directories it did not read are returned
 * too (a command could have planted a `.git` there, say after making
 * thousands of directories first), or, past `MAX_UNREAD_DIRECTORIES` of
 * them, the roots they lie in, whole. A `.git` created by the command
 * itself is not found; `node_modules` is not searched; the zone's own
 * `<root>/.git` is always protected by the profile whether it exists or not.
 *
 * @example
 * const paths = await findVcsMetadata({ roots: ['/p/ws'], cwd: '/p/ws/sub/repo' });
 * // ['/p/ws/sub/repo/.git', '/p/ws/.git', ...]
 */
export async function findVcsMetadata(options: { roots: readonly string[]; cwd?: string; maxDepth?: number; maxDirectories?: number }): Promise<string[]> {
  const found = new Set<string>();
  const roots = [...new Set(options.roots.map((root) => path.resolve(root)))];
  const record = async (entry: string): Promise<void> => {
    const status = await lstat(entry).catch(() => undefined);
    if (status === undefined) return;
    found.add(entry);
    // Where it really is, when a symlink (it, or one on the way) leads elsewhere: protected there too, if inside a root.
    const target = await realpath(entry).catch(() => undefined);
    if (target !== undefined && target !== entry && roots.some((root) => isSameOrInside(target, root))) found.add(target);
  };

  if (options.cwd !== undefined) {
    const cwd = path.resolve(options.cwd);
    for (const root of roots.filter((candidate) => isSameOrInside(cwd, candidate))) {
      for (let directory = cwd; ; directory = path.dirname(directory)) {
        await record(path.join(directory, VCS_METADATA_NAME));
        if (directory === root || directory === path.dirname(directory)) break;
      }
    }
  }

  const maxDepth = options.maxDepth ?? DEFAULT_VCS_SEARCH_DEPTH;
  let budget = options.maxDirectories ?? DEFAULT_VCS_SEARCH_DIRECTORIES;
  /** Directories the search did not read, each with the root it started from. */
  const unread: { directory: string; root: string }[] = [];
  let level = roots.map((root) => ({ directory: root, depth: 1, root }));
  while (level.length > 0) {
    const next: { directory: string; depth: number; root: string }[] = [];
    for (const [position, item] of level.entries()) {
      if (budget <= 0) {
        unread.push(...level.slice(position));
        break;
      }
      budget -= 1;
      const entries = await readdir(item.directory, { withFileTypes: true }).catch(() => []);
      for (const entry of entries) {
        const child = path.join(item.directory, entry.name);
        if (entry.name === VCS_METADATA_NAME) await record(child);
        else if (entry.isDirectory() && !SKIPPED.has(entry.name)) {
          if (item.depth < maxDepth) next.push({ directory: child, depth: item.depth + 1, root: item.root });
          else unread.push({ directory: child, root: item.root });
        }
      }
    }
    if (budget <= 0) {
      unread.push(...next);
      break;
    }
    level = next;
  }
  if (unread.length > MAX_UNREAD_DIRECTORIES) for (const { root } of unread) found.add(root);
  else for (const { directory } of unread) found.add(directory);
  return [...found];
}
