/**
 * The OS sandbox profile: plain data that says what a sandboxed command may
 * see, write and reach. It is derived from the policy (`deriveSandboxProfile`)
 * and turned into bubblewrap arguments or a Seatbelt profile by the backends;
 * nothing here touches the filesystem.
 *
 * How a path is judged (`accessOf`): the deepest rule whose path is the path
 * itself or one of its ancestors decides; at equal depth the most restrictive
 * rule wins (hidden, then read-only, then writable). A path no rule covers is
 * not in the sandbox at all. This one rule is what makes nested zones work
 * (a read-only `docs/` inside a writable workspace) and what makes
 * `intersectProfiles` exact.
 */
import path from 'node:path';
import { ToolgateError } from '../core/errors/toolgate-error.ts';

/** One path the profile says something about. */
export interface SandboxPathRule {
  /** Absolute and normalized; zone roots are realpath'ed by the zone loader. */
  readonly path: string;
  /** Why it is there, for people: `zone workspace`, `system`, `extra read-only`, `secret`, ... */
  readonly source: string;
  /**
   * Only on writable rules: writes are allowed only to files whose name ends
   * with one of these (the zone's `suffixes`). A backend that cannot express
   * this must make the path read-only instead (never weaker).
   */
  readonly suffixes?: readonly string[];
}

/** What the sandboxed command may reach over the network. */
export type SandboxNetwork =
  | { readonly mode: 'none' }
  | { readonly mode: 'all' }
  /** Only these domains (`example.com`, `*.example.com`); a backend without a domain filter must treat this as `none`. */
  | { readonly mode: 'domains'; readonly allowDomains: readonly string[] };

export interface SandboxProfile {
  readonly writable: readonly SandboxPathRule[];
  readonly readOnly: readonly SandboxPathRule[];
  /** Paths that must not be visible even though a rule above them makes their parent visible. */
  readonly hidden: readonly SandboxPathRule[];
  readonly network: SandboxNetwork;
  /**
   * A fresh, private, empty `/tmp` that disappears with the command (bwrap: a
   * tmpfs). It grants no access to any host path, which is why it is not a
   * writable rule.
   */
  readonly privateTemporaryDirectory: boolean;
}

/** What a profile allows at one path. Ordered from most to least restrictive. */
export type SandboxAccess = 'none' | 'read-only' | 'read-write';

const ACCESS_RANK: Record<SandboxAccess, number> = { none: 0, 'read-only': 1, 'read-write': 2 };

/**
 * The more restrictive of two accesses.
 *
 * @example
 * weakestAccess('read-write', 'read-only') // 'read-only'
 */
export function weakestAccess(first: SandboxAccess, second: SandboxAccess): SandboxAccess {
  return ACCESS_RANK[first] <= ACCESS_RANK[second] ? first : second;
}

/** What a profile allows at a path, and which rule decided it. */
export interface PathAccess {
  access: SandboxAccess;
  /** Set only for `read-write` with a suffix limit. */
  suffixes?: readonly string[];
  rule: SandboxPathRule | undefined;
}

/**
 * What the profile allows at `target` (absolute). For a writable rule with
 * suffixes, `read-write` applies only to files with those suffixes: the caller
 * checks `suffixes` (`accessOfFile` does it for a file path).
 *
 * @example
 * accessOf(profile, '/home/me/ws/notes.txt') // { access: 'read-write', rule: { path: '/home/me/ws', source: 'zone ws' } }
 */
export function accessOf(profile: SandboxProfile, target: string): PathAccess {
  const absolute = normalizeSandboxPath(target);
  let best: { rule: SandboxPathRule; access: SandboxAccess; depth: number } | undefined;
  const consider = (rules: readonly SandboxPathRule[], access: SandboxAccess): void => {
    for (const rule of rules) {
      if (!isSameOrInside(absolute, rule.path)) continue;
      const depth = pathDepth(rule.path);
      if (best === undefined || depth > best.depth || (depth === best.depth && ACCESS_RANK[access] < ACCESS_RANK[best.access])) {
        best = { rule, access, depth };
      }
    }
  };
  consider(profile.writable, 'read-write');
  consider(profile.readOnly, 'read-only');
  consider(profile.hidden, 'none');
  if (best === undefined) return { access: 'none', rule: undefined };
  const found: { rule: SandboxPathRule; access: SandboxAccess } = best;
  return found.access === 'read-write' && found.rule.suffixes !== undefined
    ? { access: 'read-write', suffixes: found.rule.suffixes, rule: found.rule }
    : { access: found.access, rule: found.rule };
}

/**
 * Like `accessOf`, for a file about to be written: a suffix-limited writable
 * rule gives `read-only` to files without one of its suffixes.
 *
 * @example
 * accessOfFile(profile, '/ws/notes.md') // 'read-only' when the zone admits only .txt
 */
export function accessOfFile(profile: SandboxProfile, file: string): SandboxAccess {
  const found = accessOf(profile, file);
  if (found.access !== 'read-write' || found.suffixes === undefined) return found.access;
  return found.suffixes.some((suffix) => file.endsWith(suffix)) ? 'read-write' : 'read-only';
}

/**
 * An absolute, normalized path (no `.`/`..`, no trailing slash). Throws
 * `SANDBOX_PROFILE_INVALID` for a relative path or one with a NUL byte or a
 * newline, which no backend can express safely.
 *
 * @example
 * normalizeSandboxPath('/work//ws/../ws/') // '/work/ws'
 */
export function normalizeSandboxPath(value: string): string {
  if (!path.isAbsolute(value)) {
    throw new ToolgateError({ code: 'SANDBOX_PROFILE_INVALID', message: `sandbox path ${JSON.stringify(value)} is not absolute: resolve it against the policy directory first` });
  }
  if (/[\0\n\r]/.test(value)) {
    throw new ToolgateError({ code: 'SANDBOX_PROFILE_INVALID', message: `sandbox path ${JSON.stringify(value)} contains a NUL byte or a line break` });
  }
  return path.resolve(value);
}

/**
 * Whether `target` is `parent` or lies beneath it (both absolute and
 * normalized). By whole segments: `/ws2` is not inside `/ws`.
 *
 * @example
 * isSameOrInside('/ws/a', '/ws') // true
 */
export function isSameOrInside(target: string, parent: string): boolean {
  if (target === parent) return true;
  const prefix = parent.endsWith(path.sep) ? parent : `${parent}${path.sep}`;
  return target.startsWith(prefix);
}

/**
 * How many segments deep an absolute path is: the mount order and the
 * "deepest rule decides" judgement both sort by it.
 *
 * @example
 * pathDepth('/usr/lib') // 2 (and '/' is 0)
 */
export function pathDepth(absolute: string): number {
  return absolute === path.sep ? 0 : absolute.split(path.sep).length - 1;
}
