/**
 * Maps a loaded policy onto the sandbox layer's plain inputs: the zones, the
 * network, toolgate's own files to hide, `sandbox.vcs_metadata` and the
 * operator's `sandbox.profile`. Here, above the sandbox layer, because it
 * reads the policy's own types; `src/sandbox` only ever sees the result.
 */
import path from 'node:path';
import { ownPaths } from '../../config/load-policy-file.ts';
import type { Policy } from '../../core/policy/policy.ts';
import { deriveSandboxProfile, type DeriveSandboxProfileOptions } from '../../sandbox/derive-sandbox-profile.ts';
import { operatorProfileFromPolicy } from '../../sandbox/operator-profile.ts';
import type { SandboxProfile } from '../../sandbox/sandbox-profile.ts';
import type { CallAuthority, SandboxZone } from '../../sandbox/sandbox-zone.ts';
import { zonesFromPolicy } from '../fs/zones.ts';
import { realPathOf } from '../../filesystem/real-path-of.ts';

/** What `sandboxProfileOptionsFromPolicy` takes besides the policy. */
export interface SandboxProfileFromPolicyOptions extends Pick<DeriveSandboxProfileOptions, 'extraReadOnly' | 'homeDirectory' | 'platform'> {
  policy: Policy;
  /**
   * The policy file (absolute). With it, toolgate's own files beside it are
   * hidden and `sandbox.profile` paths resolve against its directory.
   * Without it, `Policy.source` is used when it is an absolute path.
   */
  policyFile?: string;
  /** The zones already loaded (`zonesFromPolicy`: the file tools' zones fit); loaded from the policy when absent. */
  zones?: readonly SandboxZone[];
  /** More paths to hide from every command (absolute), besides toolgate's own files. */
  hidden?: readonly string[];
  /** Where `sandbox.profile` paths resolve when there is no policy file (default: the current directory). */
  policyDirectory?: string;
}

/**
 * The inputs of `deriveSandboxProfile` for a policy, without `authority` and
 * without the `.git` paths found at run time: the shell tool adds those per
 * command. Kept as data so that whoever adds an input (another path to hide)
 * adds it here, once, for every profile made from the policy.
 *
 * @example
 * const base = sandboxProfileOptionsFromPolicy({ policy, policyFile, zones });
 * const profile = deriveSandboxProfile({ ...base, authority: 'policy' });
 */
export function sandboxProfileOptionsFromPolicy(options: SandboxProfileFromPolicyOptions): DeriveSandboxProfileOptions {
  const policyFile = options.policyFile ?? (path.isAbsolute(options.policy.source) ? options.policy.source : undefined);
  const policyDirectory = policyFile === undefined ? path.resolve(options.policyDirectory ?? '.') : path.dirname(policyFile);
  const zones = options.zones ?? zonesFromPolicy({ policy: options.policy, policyDirectory });
  const document = options.policy.document;
  const written = [...(policyFile === undefined ? [] : ownPaths({ policy: options.policy, policyFile })), ...(options.hidden ?? [])];
  // Zone roots are real paths, so these must be too, or a symlinked directory (macOS /tmp) would slip past the masks.
  const hidden = [...new Set(written.flatMap((entry) => [entry, realPathOf(entry)]))];
  const shellNetwork = document.shell?.network;
  const network = shellNetwork === undefined ? false : typeof shellNetwork === 'boolean' ? shellNetwork : { allowDomains: [...shellNetwork.allow_domains] };
  const derived: DeriveSandboxProfileOptions = { zones, network, hidden, vcsMetadata: { access: document.sandbox?.vcs_metadata ?? 'read_only' } };
  const platformOption = options.platform === undefined ? {} : { platform: options.platform };
  const operatorProfile = operatorProfileFromPolicy({ section: document.sandbox?.profile, policyDirectory, ...platformOption });
  if (operatorProfile !== undefined) derived.operatorProfile = operatorProfile;
  if (options.extraReadOnly !== undefined) derived.extraReadOnly = options.extraReadOnly;
  if (options.homeDirectory !== undefined) derived.homeDirectory = options.homeDirectory;
  if (options.platform !== undefined) derived.platform = options.platform;
  return derived;
}

/**
 * The sandbox profile of a loaded policy file: its zones, its
 * `shell.network`, `.git` as `sandbox.vcs_metadata` says, the operator's
 * `sandbox.profile` intersected in, and toolgate's own files hidden — the
 * policy file itself (it may hold MCP tokens, and rewriting it would rewrite
 * the rules), the `.toolgate/` state directory, and the audit log and
 * approvals file where the policy moved them. Without `authority`, the most
 * any command can get (a person-approved one): what `toolgate doctor` shows.
 *
 * @example
 * const { policy, path: policyFile } = await loadPolicyFile('toolgate.yaml');
 * const profile = sandboxProfileFromPolicy({ policy, policyFile });
 * const unapproved = sandboxProfileFromPolicy({ policy, policyFile, authority: 'policy' });
 */
export function sandboxProfileFromPolicy(options: SandboxProfileFromPolicyOptions & { authority?: CallAuthority }): SandboxProfile {
  const base = sandboxProfileOptionsFromPolicy(options);
  return deriveSandboxProfile(options.authority === undefined ? base : { ...base, authority: options.authority });
}
