import path from 'node:path';
import { PolicyError, type PolicyIssue } from '../core/errors/policy-error.ts';
import type { LoadedPolicy } from '../config/load-policy-file.ts';
import { isSameOrInside } from '../config/own-state-paths.ts';
import { realPathOf } from '../filesystem/real-path-of.ts';
import type { Zone } from '../tools/fs/zones.ts';

/**
 * Refuses a policy that moves its audit log or approvals file (`audit.path`,
 * `approvals.path`) into a writable zone without saying so
 * (`allow_in_writable_zone: true`). An agent working in that zone is the
 * one party that must never write the file; toolgate guards such a file and
 * every folder above it, but a path chosen by accident should not rely on
 * that. The default place, `.toolgate/` beside the policy, is not refused:
 * it is known by name, so it is guarded (and hidden from the sandbox) as a
 * whole wherever it is.
 *
 * Throws `PolicyError` naming the file, the key and what to do.
 *
 * @example
 * refuseStateInWritableZone({ loaded, zones }); // throws for approvals: { path: ws/state/approvals.json }
 */
export function refuseStateInWritableZone(options: { loaded: LoadedPolicy; zones: readonly Zone[] }): void {
  const { loaded, zones } = options;
  const document = loaded.policy.document;
  const issues: PolicyIssue[] = [];
  const sections = [
    { key: 'audit', section: document.audit?.enabled === false ? undefined : document.audit },
    { key: 'approvals', section: document.approvals },
  ] as const;
  for (const { key, section } of sections) {
    if (section?.path === undefined || section.allow_in_writable_zone === true) continue;
    const absolute = realPathOf(path.resolve(loaded.directory, section.path));
    const zone = zones.find((candidate) => candidate.mode === 'rw' && isSameOrInside(absolute, candidate.root));
    if (zone === undefined) continue;
    issues.push({
      path: `${key}.path`,
      message: `${absolute} lies inside the writable zone ${zone.name} (${zone.root}), where the agent works: move it out of every rw zone (or leave ${key}.path unset for .toolgate/ beside the policy), or set ${key}.allow_in_writable_zone: true to accept it`,
      found: JSON.stringify(section.path),
    });
  }
  if (issues.length > 0) throw new PolicyError({ file: loaded.path, issues });
}
