/**
 * The sandbox profile's judgement of a path (`accessOf`), answered from an
 * index of its rules by path: the shell tool asks it for every path of every
 * command line, and scanning every rule each time costs more than the rest
 * of a path's check. Same judgement as `accessOf`: the deepest rule whose
 * path is the path or one of its ancestors decides, and at equal depth (the
 * same path) the most restrictive one. Walking up from the path, the first
 * ancestor that has rules is the deepest.
 */
import path from 'node:path';
import { normalizeSandboxPath, type PathAccess, type SandboxAccess, type SandboxPathRule, type SandboxProfile } from '../../sandbox/sandbox-profile.ts';

const RANK: Record<SandboxAccess, number> = { none: 0, 'read-only': 1, 'read-write': 2 };

const indexes = new WeakMap<SandboxProfile, Map<string, { access: SandboxAccess; rule: SandboxPathRule }>>();

/**
 * What `profile` allows at `target` (absolute), as `accessOf` says.
 *
 * @example
 * profileAccess(profile, '/p/ws/.ssh/id_rsa') // { access: 'none', rule: { path: '/p/ws/.ssh', source: 'credentials' } }
 */
export function profileAccess(profile: SandboxProfile, target: string): PathAccess {
  let index = indexes.get(profile);
  if (index === undefined) {
    index = indexOf(profile);
    indexes.set(profile, index);
  }
  let current = normalizeSandboxPath(target);
  for (;;) {
    const found = index.get(current);
    if (found !== undefined) {
      return found.access === 'read-write' && found.rule.suffixes !== undefined ? { access: found.access, suffixes: found.rule.suffixes, rule: found.rule } : { access: found.access, rule: found.rule };
    }
    const parent = path.dirname(current);
    if (parent === current) return { access: 'none', rule: undefined };
    current = parent;
  }
}

/**
 * `accessOfFile` on the index: a suffix-limited writable rule gives
 * `read-only` to files without one of its suffixes.
 *
 * @example
 * profileAccessOfFile(profile, '/ws/notes.md') // 'read-only' when the zone admits only .txt
 */
export function profileAccessOfFile(profile: SandboxProfile, file: string): SandboxAccess {
  const found = profileAccess(profile, file);
  if (found.access !== 'read-write' || found.suffixes === undefined) return found.access;
  return found.suffixes.some((suffix) => file.endsWith(suffix)) ? 'read-write' : 'read-only';
}

function indexOf(profile: SandboxProfile): Map<string, { access: SandboxAccess; rule: SandboxPathRule }> {
  const index = new Map<string, { access: SandboxAccess; rule: SandboxPathRule }>();
  const add = (rules: readonly SandboxPathRule[], access: SandboxAccess): void => {
    for (const rule of rules) {
      const existing = index.get(rule.path);
      if (existing === undefined || RANK[access] < RANK[existing.access]) index.set(rule.path, { access, rule });
    }
  };
  // The order accessOf considers them in, so that a tie between equal rules keeps the same one.
  add(profile.writable, 'read-write');
  add(profile.readOnly, 'read-only');
  add(profile.hidden, 'none');
  return index;
}
