/**
 * The names inside a directory that a command copies or moves somewhere
 * (`cp -r evil dest`, `rsync -a evil/ dest/`): a recursive copy writes
 * each of them under the destination, and one of them may be a file that
 * loads code (`.envrc`, `.vscode/tasks.json`) or toolgate's own state. The
 * walk is bounded; past the bound the names are unknown and the caller asks.
 */
import { lstatSync, readdirSync } from 'node:fs';
import path from 'node:path';

/** More entries than this and the copy's names are not looked at one by one. */
export const SOURCE_TREE_LIMIT = 400;

export type SourceTree =
  | { kind: 'not-a-directory' }
  | { kind: 'entries'; entries: string[] }
  /** Too many entries, or a directory that could not be read. */
  | { kind: 'unknown'; reason: string };

/**
 * The paths, relative to `directory`, of everything under it (symlinks are
 * listed, not followed), or why they cannot be listed.
 *
 * @example
 * sourceTreeEntries({ directory: '/ws/evil' }) // { kind: 'entries', entries: ['.envrc', '.vscode', '.vscode/tasks.json'] }
 */
export function sourceTreeEntries(options: { directory: string; limit?: number }): SourceTree {
  const limit = options.limit ?? SOURCE_TREE_LIMIT;
  try {
    if (lstatSync(options.directory, { throwIfNoEntry: false })?.isDirectory() !== true) return { kind: 'not-a-directory' };
  } catch {
    return { kind: 'not-a-directory' };
  }
  const entries: string[] = [];
  const pending: string[] = [''];
  while (pending.length > 0) {
    const relative = pending.pop()!;
    let children;
    try {
      children = readdirSync(path.join(options.directory, relative), { withFileTypes: true });
    } catch {
      return { kind: 'unknown', reason: `${path.join(options.directory, relative)} cannot be listed` };
    }
    for (const child of children) {
      const name = relative === '' ? child.name : `${relative}/${child.name}`;
      entries.push(name);
      if (entries.length > limit) return { kind: 'unknown', reason: `it holds more than ${limit} entries` };
      if (child.isDirectory()) pending.push(name);
    }
  }
  return { kind: 'entries', entries };
}
