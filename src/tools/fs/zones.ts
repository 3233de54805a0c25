/**
 * Filesystem zones: the named directories the filesystem tools (and the shell
 * tool and the OS sandbox) may touch, loaded from the policy's `fs.zones`,
 * and the one function that decides which zone a path really lies in.
 */
import { realpathSync, statSync } from '../../filesystem/file-lookups.ts';
import path from 'node:path';
import { PolicyError, type PolicyIssue } from '../../core/errors/policy-error.ts';
import { normalizeDecision } from '../../core/policy/normalize-policy.ts';
import type { Policy } from '../../core/policy/policy.ts';
import type { Decision } from '../../core/types.ts';
import { resolveZonePath } from './resolve-zone-path.ts';
import { compileHidden, hiddenPatternProblem, type ZoneHidden } from './zone-hidden.ts';

/** One zone, ready to use: its root is absolute and already realpath'ed. */
export interface Zone {
  name: string;
  /** Where it was written: `fs.zones[2]` (rules that decide name it). */
  label?: string;
  /** Absolute and realpath'ed at load, so containment compares real paths with real paths. */
  root: string;
  mode: 'ro' | 'rw';
  /** Only files whose name ends with one of these may be touched; undefined means any file. */
  suffixes: readonly string[] | undefined;
  /** Files no tool touches (`hidden:`, gitignore patterns relative to the root); undefined: none. */
  hidden?: ZoneHidden | undefined;
  /** Read-only zones always carry `block` for write and delete, whatever the file says. */
  approval: { read: Decision; write: Decision; delete: Decision };
}

/**
 * Loads the policy's `fs.zones`. Roots are relative to the policy file's
 * directory and must exist and be directories; they are realpath'ed here so
 * a symlinked root cannot be swapped later. Approvals default to read allow,
 * write ask, delete ask; a read-only zone blocks writes and deletes.
 * Throws `PolicyError` naming `fs.zones[i].root` (or `.name`) on a problem.
 *
 * @example
 * const zones = zonesFromPolicy({ policy, policyDirectory: path.dirname(policyFile) });
 */
export function zonesFromPolicy(options: { policy: Policy; policyDirectory: string }): Zone[] {
  const documents = options.policy.document.fs?.zones ?? [];
  const issues: PolicyIssue[] = [];
  const zones: Zone[] = [];
  const names = new Map<string, number>();
  const roots = new Map<string, number>();
  documents.forEach((document, index) => {
    const where = `fs.zones[${index}]`;
    const earlierName = names.get(document.name);
    if (earlierName !== undefined) {
      issues.push({ path: `${where}.name`, message: `zone name ${JSON.stringify(document.name)} is already used by fs.zones[${earlierName}]`, expected: 'a unique name' });
      return;
    }
    names.set(document.name, index);
    const written = path.resolve(options.policyDirectory, document.root);
    let root: string;
    try {
      root = realpathSync.native(written);
    } catch (error) {
      issues.push({ path: `${where}.root`, message: `zone root ${written} does not exist (${(error as NodeJS.ErrnoException).code ?? 'error'})`, expected: 'an existing directory', found: JSON.stringify(document.root) });
      return;
    }
    if (!statSync(root).isDirectory()) {
      issues.push({ path: `${where}.root`, message: `zone root ${root} is not a directory`, expected: 'an existing directory', found: JSON.stringify(document.root) });
      return;
    }
    const earlierRoot = roots.get(root);
    if (earlierRoot !== undefined) {
      // Two zones on one directory would make "the most specific zone" ambiguous.
      issues.push({ path: `${where}.root`, message: `zone root ${root} is the same directory as fs.zones[${earlierRoot}].root`, expected: 'a distinct directory' });
      return;
    }
    roots.set(root, index);
    // A pattern that can never match hides nothing while the policy seems to hide it: refused, naming it.
    const unmatchable = (document.hidden ?? []).map((pattern, at) => ({ at, problem: hiddenPatternProblem(pattern, root) })).filter((found) => found.problem !== undefined);
    for (const { at, problem } of unmatchable) issues.push({ path: `${where}.hidden[${at}]`, message: problem!, expected: 'a .gitignore pattern relative to the zone root (.env, *.pem, secrets/)', found: JSON.stringify(document.hidden![at]) });
    if (unmatchable.length > 0) return;
    const readOnly = document.mode === 'ro';
    zones.push({
      name: document.name,
      label: where,
      root,
      mode: readOnly ? 'ro' : 'rw',
      suffixes: document.suffixes === undefined ? undefined : [...document.suffixes],
      hidden: compileHidden(document.hidden),
      approval: {
        read: normalizeDecision(document.approval?.read ?? 'allow'),
        write: readOnly ? 'block' : normalizeDecision(document.approval?.write ?? 'ask'),
        delete: readOnly ? 'block' : normalizeDecision(document.approval?.delete ?? 'ask'),
      },
    });
  });
  if (issues.length > 0) throw new PolicyError({ file: options.policy.source, issues });
  return zones;
}

/**
 * Resolves `path` (relative to `cwd`) on the real filesystem and finds the
 * zone it lies in, or says why it may not be touched: outside every zone, a
 * symlink out of its zone, a dangling symlink, NUL bytes, `~`, a zone root
 * for write or delete, a read-only zone for write or delete, a suffix the
 * zone does not admit. Never throws for a bad path.
 *
 * @example
 * const resolved = resolveInZones({ zones, path: 'ws/notes.txt', cwd: projectRoot, operation: 'write' });
 * if (!resolved.ok) return blockCall(resolved.reason);
 */
export function resolveInZones(options: {
  zones: readonly Zone[];
  path: string;
  cwd: string;
  operation: 'read' | 'write' | 'delete';
}): { ok: true; zone: Zone; absolute: string; relative: string; exists: boolean } | { ok: false; reason: string } {
  const resolved = resolveZonePath(options);
  if (!resolved.ok) return { ok: false, reason: resolved.reason };
  return { ok: true, zone: resolved.zone, absolute: resolved.absolute, relative: resolved.relative, exists: resolved.exists };
}
