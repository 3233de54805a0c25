import type { PolicyDocument } from '../core/policy/policy-schema.ts';
import type { SandboxDetection } from './detect-sandbox.ts';
import { SandboxUnavailableError } from './sandbox-unavailable-error.ts';

/** The policy's `sandbox` section with its defaults filled in, and which ones were. */
export interface SandboxRequirement {
  os: 'required' | 'preferred' | 'off';
  fallback: 'fail_fast' | 'refuse_tools';
  /** Which values were not written in the policy. */
  defaulted: { os: boolean; fallback: boolean };
}

/** The tools that run against the filesystem or start processes: what refuse_tools refuses (seed 001). */
export type SandboxedToolKind = 'fs' | 'shell';

/** What toolgate does about the OS sandbox, as data the file and shell tools act on. */
export type SandboxDecision =
  /** Run the file and shell tools; shell commands go through the OS sandbox of this kind. */
  | { mode: 'sandboxed'; kind: 'bwrap' | 'seatbelt'; requirement: SandboxRequirement; reason: string }
  /** Run them without an OS sandbox (the policy layer still applies); `reason` says so, to be shown. */
  | { mode: 'unsandboxed'; requirement: SandboxRequirement; reason: string }
  /** Start, but refuse every call to these tools with `reason`. */
  | { mode: 'refuse-tools'; requirement: SandboxRequirement; reason: string; refusedTools: readonly SandboxedToolKind[] };

/**
 * The policy's `sandbox` section with defaults, chosen to fail closed:
 *
 * - No `sandbox` section at all: `os: required`, `fallback: refuse_tools`.
 *   Saying nothing is not a decision to run commands unconfined, so without a
 *   working OS sandbox the file and shell tools are refused — but everything
 *   else (approvals, other tools, MCP servers) still starts, so a machine
 *   without bubblewrap is not locked out, and the refusal says which setting
 *   refused and where to learn what to install (the line that accepts the
 *   risk, `os: preferred`, is told to the operator at start-up, not here).
 * - `os: required` written without `fallback`: `fail_fast`, seed 001's
 *   default for an explicit requirement (production: refuse to start).
 * - `fallback` written without `os`: `os: required` (the fallback only means
 *   something for a requirement).
 *
 * @example
 * sandboxRequirement(undefined) // { os: 'required', fallback: 'refuse_tools', defaulted: { os: true, fallback: true } }
 * sandboxRequirement({ os: 'required' }).fallback // 'fail_fast'
 */
export function sandboxRequirement(section: PolicyDocument['sandbox']): SandboxRequirement {
  const written = section ?? {};
  const os = written.os ?? 'required';
  const fallback = written.fallback ?? (written.os === undefined ? 'refuse_tools' : 'fail_fast');
  return { os, fallback, defaulted: { os: written.os === undefined, fallback: written.fallback === undefined } };
}

/**
 * Applies the policy's `sandbox: {os, fallback}` (seed 001's
 * `require_os_sandbox` / `os_sandbox_fallback`) to what `detectSandbox`
 * found:
 *
 * | os        | sandbox available | not available                                   |
 * |-----------|-------------------|-------------------------------------------------|
 * | required  | sandboxed         | fail_fast: throws; refuse_tools: refuse-tools   |
 * | preferred | sandboxed         | unsandboxed, with the reason (warn about it)    |
 * | off       | unsandboxed       | unsandboxed                                     |
 *
 * Throws `SandboxUnavailableError` (code `SANDBOX_UNAVAILABLE`) for
 * required + fail_fast + unavailable, with the detection's reason and what
 * to install. Defaults: see `sandboxRequirement`.
 *
 * @example
 * const decision = resolveSandboxPolicy({ sandbox: policy.document.sandbox, detection: await detectSandbox() });
 * if (decision.mode === 'refuse-tools') shellTool = refusingTool(decision.reason);
 */
export function resolveSandboxPolicy(options: { sandbox: PolicyDocument['sandbox']; detection: SandboxDetection; /** Named in the advice to change it. */ policyFile?: string }): SandboxDecision {
  const requirement = sandboxRequirement(options.sandbox);
  const { detection } = options;
  const available = detection.available && detection.kind !== 'none';
  if (requirement.os === 'off') {
    return { mode: 'unsandboxed', requirement, reason: 'sandbox.os is off: shell commands run without an OS sandbox (only the policy confines them)' };
  }
  if (available) {
    const kind = detection.kind as 'bwrap' | 'seatbelt';
    return { mode: 'sandboxed', kind, requirement, reason: `shell commands run inside the OS sandbox (${kind === 'bwrap' ? 'bubblewrap' : 'macOS Seatbelt'})` };
  }
  const why = detection.reason ?? 'no OS sandbox is available';
  if (requirement.os === 'preferred') {
    return { mode: 'unsandboxed', requirement, reason: `no OS sandbox (${why}); sandbox.os is preferred, so shell commands run without an OS sandbox (only the policy confines them)` };
  }
  if (requirement.fallback === 'fail_fast') throw new SandboxUnavailableError({ detection, ...(options.policyFile === undefined ? {} : { policyFile: options.policyFile }) });
  const setting = requirement.defaulted.os ? 'the policy has no sandbox.os, which means required' : 'sandbox.os is required';
  return {
    mode: 'refuse-tools',
    requirement,
    // The model reads this (the refused tools' description and block reason): it names the setting that refused,
    // never the line that would let the tools run unconfined; that is the operator's choice, told at start-up.
    reason:
      `the file and shell tools are refused: ${setting}${options.policyFile === undefined ? '' : ` (${options.policyFile})`} and no OS sandbox can be started (${why}). ` +
      'They run once a sandbox can be started here (`toolgate doctor` says what to install).',
    refusedTools: ['fs', 'shell'],
  };
}
