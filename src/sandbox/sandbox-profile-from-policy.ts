import { realpathSync } from 'node:fs';
import path from 'node:path';
import { ownPaths } from '../config/load-policy-file.ts';
import type { Policy } from '../core/policy/policy.ts';
import { zonesFromPolicy, type Zone } from '../tools/fs/zones.ts';
import { deriveSandboxProfile, type DeriveSandboxProfileOptions } from './derive-sandbox-profile.ts';
import type { SandboxProfile } from './sandbox-profile.ts';

/**
 * The sandbox profile of a loaded policy file: its zones, its
 * `shell.network`, and toolgate's own files hidden — the policy file itself
 * (it may hold MCP tokens, and rewriting it would rewrite the rules), the
 * `.toolgate/` state directory, and the audit log and approvals file where
 * the policy moved them. A command in a rw zone that holds them must neither
 * read the audit log nor add itself to the "approve always" file.
 *
 * @example
 * const { policy, path: policyFile } = await loadPolicyFile('toolgate.yaml');
 * const profile = sandboxProfileFromPolicy({ policy, policyFile });
 */
export function sandboxProfileFromPolicy(
  options: { policy: Policy; policyFile: string; zones?: readonly Zone[] } & Pick<DeriveSandboxProfileOptions, 'extraReadOnly' | 'homeDirectory' | 'platform' | 'operatorProfile'>,
): SandboxProfile {
  const policyDirectory = path.dirname(options.policyFile);
  const zones = options.zones ?? zonesFromPolicy({ policy: options.policy, policyDirectory });
  const document = options.policy.document;
  const written = ownPaths({ policy: options.policy, policyFile: options.policyFile });
  // Zone roots are real paths, so these must be too, or a symlinked directory (macOS /tmp) would slip past the masks.
  const hidden = [...new Set(written.flatMap((entry) => [entry, realPathOf(entry)]))];
  const shellNetwork = document.shell?.network;
  const network = shellNetwork === undefined ? false : typeof shellNetwork === 'boolean' ? shellNetwork : { allowDomains: [...shellNetwork.allow_domains] };
  const derived: DeriveSandboxProfileOptions = { zones, network, hidden };
  if (options.extraReadOnly !== undefined) derived.extraReadOnly = options.extraReadOnly;
  if (options.homeDirectory !== undefined) derived.homeDirectory = options.homeDirectory;
  if (options.platform !== undefined) derived.platform = options.platform;
  if (options.operatorProfile !== undefined) derived.operatorProfile = options.operatorProfile;
  return deriveSandboxProfile(derived);
}

/** The real path of `target`, or of its nearest existing ancestor joined with the rest when it does not exist yet. */
function realPathOf(target: string): string {
  try {
    return realpathSync.native(target);
  } catch {
    const parent = path.dirname(target);
    return parent === target ? target : path.join(realPathOf(parent), path.basename(target));
  }
}
