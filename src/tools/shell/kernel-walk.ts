/**
 * A path walked one component at a time the way the kernel resolves it:
 * each symlink is read and its target walked in its place, and `..` is
 * applied to the directory reached so far, after the links before it were
 * followed. Every directory entry the walk looks at is reported, so a
 * caller can ask "does this path go through that entry?" even when the
 * entry is reached through a link (`a -> b/c`, then `a/x` goes through
 * `b`). Missing components are walked lexically: they are where a file
 * or directory would be created.
 */
import { lstatSync, readlinkSync } from '../../filesystem/file-lookups.ts';
import path from 'node:path';

/** The kernel's own limit on symlinks followed in one resolution (ELOOP beyond it). */
const MAX_SYMLINK_HOPS = 40;

export type KernelWalk =
  | {
      ok: true;
      /** Where the walk ends (the real path when every component exists). */
      end: string;
      /** Every entry looked at, symlinks included, in order. */
      entries: string[];
      /** The entries that were symlinks and were followed. */
      links: string[];
    }
  | { ok: false; reason: string };

/**
 * Walks `input` (relative to `cwd`, or absolute). With `keepLast`, the last
 * component is not followed when it is a symlink (what `rm link` or
 * `ln -s x link` acts on is the link itself).
 *
 * @example
 * walkKernelPath({ input: 'self/../evil', cwd: '/p/ws' })
 * // with self -> .: { ok: true, end: '/p/evil', entries: ['/p', '/p/ws', '/p/ws/self', '/p/evil'] }
 */
export function walkKernelPath(options: { input: string; cwd: string; keepLast?: boolean }): KernelWalk {
  const joined = path.isAbsolute(options.input) ? options.input : `${options.cwd}${path.sep}${options.input}`;
  const pending = components(joined);
  const entries: string[] = [];
  const links: string[] = [];
  let current = path.parse(joined).root;
  let hops = 0;
  while (pending.length > 0) {
    const component = pending.shift()!;
    if (component === '..') {
      current = path.dirname(current);
      continue;
    }
    const entry = path.join(current, component);
    entries.push(entry);
    let isLink = false;
    try {
      isLink = lstatSync(entry, { throwIfNoEntry: false })?.isSymbolicLink() === true;
    } catch (error) {
      // ENOTDIR, EACCES: the kernel would fail here too; what lies beyond cannot be known.
      return { ok: false, reason: `${entry} cannot be examined (${(error as NodeJS.ErrnoException).code ?? 'error'})` };
    }
    if (!isLink || (options.keepLast === true && pending.length === 0)) {
      current = entry;
      continue;
    }
    links.push(entry);
    if (++hops > MAX_SYMLINK_HOPS) return { ok: false, reason: `${joined} goes through more than ${MAX_SYMLINK_HOPS} symlinks` };
    let target: string;
    try {
      target = readlinkSync(entry);
    } catch (error) {
      return { ok: false, reason: `the symlink ${entry} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})` };
    }
    if (path.isAbsolute(target)) current = path.parse(target).root;
    pending.unshift(...components(target));
  }
  return { ok: true, end: current, entries, links };
}

/**
 * Whether `candidate` is `location` or lies below it (separator-aware).
 *
 * @example
 * isAtOrBelow({ candidate: '/p/ws/d/x', location: '/p/ws/d' }) // true
 */
export function isAtOrBelow(options: { candidate: string; location: string }): boolean {
  const { candidate, location } = options;
  if (candidate === location) return true;
  return candidate.startsWith(location.endsWith(path.sep) ? location : location + path.sep);
}

function components(text: string): string[] {
  return text.split(path.sep).filter((part) => part !== '' && part !== '.');
}
