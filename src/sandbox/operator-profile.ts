import path from 'node:path';
import type { PolicyDocument } from '../core/policy/policy-schema.ts';
import { LINUX_SYSTEM_READ_ONLY_PATHS, MACOS_SYSTEM_READ_ONLY_PATHS, networkFromPolicy } from './derive-sandbox-profile.ts';
import { normalizeSandboxPath, type SandboxPathRule, type SandboxProfile } from './sandbox-profile.ts';
import { realPathOf } from '../filesystem/real-path-of.ts';

/** The policy's `sandbox.profile` section. */
export type OperatorProfileDocument = NonNullable<NonNullable<PolicyDocument['sandbox']>['profile']>;

/**
 * The operator's explicit OS sandbox profile (seed 001's `explicit_profile`,
 * policy key `sandbox.profile`) as a `SandboxProfile`, or undefined when the
 * policy has none. `deriveSandboxProfile` intersects it with the profile it
 * derives, so it can only take permissions away: a path it does not list is
 * out of the sandbox, a `read_only` path cannot be written even inside a rw
 * zone, and `network: false` turns the network off whatever `shell.network`
 * says. The system paths programs need to start are part of it (read-only)
 * unless `hidden` names them, so a profile that lists only a project
 * directory still runs programs; an absent `network` restricts nothing.
 * Relative paths resolve against the policy file's directory, and each
 * existing path is taken as its real path (zone roots are real paths, and
 * the intersection compares them as written).
 *
 * @example
 * const operatorProfile = operatorProfileFromPolicy({ section: policy.document.sandbox?.profile, policyDirectory });
 * const profile = deriveSandboxProfile({ zones, network: false, operatorProfile });
 */
export function operatorProfileFromPolicy(options: { section: OperatorProfileDocument | undefined; policyDirectory: string; platform?: NodeJS.Platform }): SandboxProfile | undefined {
  const { section } = options;
  if (section === undefined) return undefined;
  const platform = options.platform ?? process.platform;
  const rules = (paths: readonly string[] | undefined, source: string): SandboxPathRule[] =>
    (paths ?? []).flatMap((written) => {
      const absolute = normalizeSandboxPath(path.resolve(options.policyDirectory, written));
      const real = realPathOf(absolute);
      // Hidden paths are masked under both names; allowed ones only under the real one, as zones are.
      return source === 'operator hidden' && real !== absolute ? [{ path: absolute, source }, { path: real, source }] : [{ path: real, source }];
    });
  const system = (platform === 'darwin' ? MACOS_SYSTEM_READ_ONLY_PATHS : LINUX_SYSTEM_READ_ONLY_PATHS).map((systemPath) => ({ path: systemPath, source: 'system' }));
  const network = section.network === undefined ? { mode: 'all' as const } : networkFromPolicy(typeof section.network === 'boolean' ? section.network : { allowDomains: [...section.network.allow_domains] });
  return {
    writable: rules(section.read_write, 'operator read-write'),
    readOnly: [...system, ...rules(section.read_only, 'operator read-only')],
    hidden: rules(section.hidden, 'operator hidden'),
    network,
    privateTemporaryDirectory: true,
  };
}
