import { lstat, readdir, realpath } from 'node:fs/promises';
import path from 'node:path';
import { isSameOrInside } from './sandbox-profile.ts';
import { VCS_METADATA_NAME } from './derive-sandbox-profile.ts';

/** How deep below each root the search looks by default (the root's own `.git` is depth 1). */
export const DEFAULT_VCS_SEARCH_DEPTH = 4;
/** How many directories the search reads at most, all roots together, so a huge tree costs a bounded time per command. */
export const DEFAULT_VCS_SEARCH_DIRECTORIES = 1000;

/** Directories never descended into: they are big, and they are not where repositories live. */
const SKIPPED = new Set([VCS_METADATA_NAME, 'node_modules']);

/**
 * The `.git` entries (directories, and the `gitdir:` files of worktrees and
 * submodules) a command could reach inside `roots`, found cheaply just
 * before it runs: every one on the way from `cwd` up to the root that holds
 * it (where git itself looks), and every one within `maxDepth` levels of each
 * root, reading at most `maxDirectories` directories. A `.git` that is a
 * symlink is reported with its target too, when the target is inside a root.
 * Symlinked directories are not followed. Never throws: an unreadable
 * directory is skipped.
 *
 * What this cannot find (deeper than the limits, or created by the command
 * itself) is not protected by `.git` rules; the zone's own `<root>/.git` is
 * always protected by the profile whether it exists or not.
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
    if (!status.isSymbolicLink()) return;
    const target = await realpath(entry).catch(() => undefined);
    if (target !== undefined && roots.some((root) => isSameOrInside(target, root))) found.add(target);
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
  let level = roots.map((root) => ({ directory: root, depth: 1 }));
  while (level.length > 0 && budget > 0) {
    const next: { directory: string; depth: number }[] = [];
    for (const { directory, depth } of level) {
      if (budget <= 0) break;
      budget -= 1;
      const entries = await readdir(directory, { withFileTypes: true }).catch(() => []);
      for (const entry of entries) {
        const child = path.join(directory, entry.name);
        if (entry.name === VCS_METADATA_NAME) await record(child);
        else if (entry.isDirectory() && !SKIPPED.has(entry.name) && depth < maxDepth) next.push({ directory: child, depth: depth + 1 });
      }
    }
    level = next;
  }
  return [...found];
}
