import { existsSync } from 'node:fs';
import os from 'node:os';
import { findPolicyFile } from '../../config/load-policy-file.ts';
import { PolicyError } from '../../core/errors/policy-error.ts';
import { detectSandbox, type SandboxDetection } from '../../sandbox/detect-sandbox.ts';
import { sandboxProfileFromPolicy } from '../../tools/shell/sandbox-profile-from-policy.ts';
import type { SandboxPathRule, SandboxProfile } from '../../sandbox/sandbox-profile.ts';
import { resolveSandboxPolicy, sandboxRequirement, type SandboxDecision, type SandboxRequirement } from '../../sandbox/sandbox-policy.ts';
import { SandboxUnavailableError } from '../../sandbox/sandbox-unavailable-error.ts';
import { EXIT, type CliIo } from '../cli-io.ts';
import { parseCommandLine } from '../parse-command-line.ts';
import { loadPolicyOrExplain } from '../cli-support.ts';

export const DOCTOR_HELP = `Usage: toolgate doctor [--policy FILE] [--json]

Reports whether the OS sandbox works here and what the policy makes of it:
Node version; bubblewrap (path, version, whether a sandbox really starts,
user namespace settings); macOS sandbox-exec; and, with a policy, the
sandbox profile derived from it (writable, read-only and hidden paths,
network) and what sandbox.os / sandbox.fallback will do.

Without --policy, the policy in this directory (toolgate.yaml, .yml, .json)
is used if there is one; otherwise the defaults of a policy without a
sandbox section apply (os: required, fallback: refuse_tools).

Options:
  --policy FILE   the policy to check
  --json          one JSON object instead of the report
  -h, --help      this help

Exit codes:
  0  the policy's sandbox requirement can be met (a sandbox works, or the
     policy accepts running without one: sandbox.os preferred or off)
  1  it cannot: toolgate would refuse to start (fallback fail_fast) or
     refuse the file and shell tools (fallback refuse_tools)
  2  usage error
  3  the policy file is missing or invalid
`;

/** Node major version toolgate needs (package.json engines). */
const MINIMUM_NODE_MAJOR = 22;

export interface DoctorDependencies {
  /** How the sandbox is found (tests inject an unavailable one). Default `detectSandbox`. */
  detectSandbox?: () => Promise<SandboxDetection>;
}

interface PolicyReport {
  file: string;
  requirement: SandboxRequirement;
  decision: SandboxDecision | undefined;
  /** Set when the decision is to refuse to start (fallback fail_fast). */
  failFast: string | undefined;
  profile: SandboxProfile;
  notes: string[];
}

/**
 * `toolgate doctor`: what OS sandbox is available and why not, and what the
 * policy's `sandbox` section will do with it. Exit 0 when the requirement
 * can be met, 1 otherwise.
 *
 * @example
 * process.exitCode = await runDoctorCommand(['--policy', 'toolgate.yaml'], processIo());
 */
export async function runDoctorCommand(argv: string[], io: CliIo, dependencies: DoctorDependencies = {}): Promise<number> {
  const { values } = parseCommandLine({
    argv,
    options: { policy: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help) {
    io.stdout.write(DOCTOR_HELP);
    return EXIT.ok;
  }
  const detection = await (dependencies.detectSandbox ?? (() => detectSandbox({ environment: io.env })))();
  let policy: PolicyReport | undefined;
  const policyFile = values.policy ?? findPolicyFile(io.cwd);
  if (policyFile !== undefined) {
    try {
      policy = await reportPolicy({ file: policyFile, io, detection });
    } catch (error) {
      if (!(error instanceof PolicyError)) throw error;
      io.stderr.write(`toolgate doctor: ${error.message}\n`);
      return EXIT.policy;
    }
  }
  const withoutPolicy = policy === undefined ? decide({ requirementSection: undefined, detection }) : undefined;
  const ok = policy !== undefined ? policy.failFast === undefined && policy.decision?.mode !== 'refuse-tools' : withoutPolicy!.ok;
  const node = { version: process.version, ok: Number(process.versions.node.split('.')[0]) >= MINIMUM_NODE_MAJOR, minimum: MINIMUM_NODE_MAJOR };
  if (values.json) {
    const report = {
      ok,
      node,
      platform: `${process.platform} ${process.arch}`,
      sandbox: detection,
      helpers: { socat: 'not needed', ripgrep: 'not needed' },
      policy:
        policy === undefined
          ? { file: null, requirement: sandboxRequirement(undefined), decision: withoutPolicy!.decision ?? null, failFast: withoutPolicy!.failFast ?? null }
          : { file: policy.file, requirement: policy.requirement, decision: policy.decision ?? null, failFast: policy.failFast ?? null, profile: policy.profile, notes: policy.notes },
    };
    io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    return ok ? EXIT.ok : 1;
  }
  const lines: string[] = ['toolgate doctor', ''];
  lines.push(`Node           ${node.version} (${node.ok ? 'ok' : `too old: toolgate needs ${MINIMUM_NODE_MAJOR} or later`})`);
  lines.push(`Platform       ${process.platform} ${process.arch}`);
  lines.push(...describeDetection(detection));
  lines.push('socat, ripgrep not needed (toolgate drives bubblewrap itself, without a network proxy)');
  lines.push('');
  if (policy === undefined) {
    lines.push('Policy         none found (pass --policy FILE); a policy without a sandbox section means:');
    lines.push(...describeRequirement(sandboxRequirement(undefined)));
    lines.push(`  will          ${withoutPolicy!.failFast ?? describeDecision(withoutPolicy!.decision!)}`);
  } else {
    lines.push(`Policy         ${policy.file}`);
    lines.push(...describeRequirement(policy.requirement));
    lines.push(`  will          ${policy.failFast ?? describeDecision(policy.decision!)}`);
    lines.push('', ...describeProfile(policy.profile), ...policy.notes.map((note) => `  note          ${note}`));
  }
  lines.push('', ok ? 'OK: the policy\'s sandbox requirement can be met here.' : 'NOT OK: the policy\'s sandbox requirement cannot be met here (see above).');
  io.stdout.write(`${lines.join('\n')}\n`);
  return ok ? EXIT.ok : 1;
}

async function reportPolicy(options: { file: string; io: CliIo; detection: SandboxDetection }): Promise<PolicyReport> {
  const loaded = await loadPolicyOrExplain({ policy: options.file, io: options.io });
  const section = loaded.policy.document.sandbox;
  const profile = sandboxProfileFromPolicy({ policy: loaded.policy, policyFile: loaded.path });
  const outcome = decide({ requirementSection: section, detection: options.detection });
  return {
    file: loaded.path,
    requirement: sandboxRequirement(section),
    decision: outcome.decision,
    failFast: outcome.failFast,
    profile,
    notes: profileNotes(profile, options.detection),
  };
}

function decide(options: { requirementSection: Parameters<typeof sandboxRequirement>[0]; detection: SandboxDetection }): {
  ok: boolean;
  decision: SandboxDecision | undefined;
  failFast: string | undefined;
} {
  try {
    const decision = resolveSandboxPolicy({ sandbox: options.requirementSection, detection: options.detection });
    return { ok: decision.mode !== 'refuse-tools', decision, failFast: undefined };
  } catch (error) {
    if (error instanceof SandboxUnavailableError) return { ok: false, decision: undefined, failFast: `refuse to start: ${error.message}` };
    throw error;
  }
}

function describeDetection(detection: SandboxDetection): string[] {
  const { details } = detection;
  const lines: string[] = [];
  if (details.platform === 'linux') {
    lines.push(`bwrap          ${details.bwrapPath === undefined ? 'not found on PATH' : `${details.bwrapPath}${details.bwrapVersion === undefined ? '' : `, bubblewrap ${details.bwrapVersion}`}`}`);
    if (details.probe !== undefined) {
      lines.push(`  sandbox      ${detection.available ? 'starts (a trial command ran with /usr read-only)' : `does not start${details.probe.stderr === '' ? '' : `: ${firstLine(details.probe.stderr)}`}`}`);
    }
    const settings = details.userNamespaces ?? {};
    const known = [
      settings.maxUserNamespaces === undefined ? undefined : `user.max_user_namespaces=${settings.maxUserNamespaces}`,
      settings.unprivilegedUsernsClone === undefined ? undefined : `kernel.unprivileged_userns_clone=${settings.unprivilegedUsernsClone}`,
      settings.apparmorRestrictUnprivilegedUserns === undefined ? undefined : `kernel.apparmor_restrict_unprivileged_userns=${settings.apparmorRestrictUnprivilegedUserns}`,
    ].filter((entry) => entry !== undefined);
    lines.push(`  user namespaces ${known.length === 0 ? 'settings not readable' : known.join(', ')}`);
    lines.push('sandbox-exec   n/a (macOS only)');
  } else if (details.platform === 'darwin') {
    lines.push('bwrap          n/a (Linux only)');
    lines.push(`sandbox-exec   ${details.sandboxExecPath ?? 'not found'}${detection.available ? ' (a trial profile applied)' : ''}`);
  } else {
    lines.push('bwrap          n/a (Linux only)', 'sandbox-exec   n/a (macOS only)');
  }
  lines.push(`OS sandbox     ${detection.available ? `available: ${detection.kind}` : `NOT available: ${detection.reason ?? 'unknown reason'}`}`);
  if (!detection.available && details.fix !== undefined) lines.push(`  fix          ${details.fix}`);
  return lines;
}

function describeRequirement(requirement: SandboxRequirement): string[] {
  return [
    `  sandbox.os       ${requirement.os}${requirement.defaulted.os ? ' (default)' : ''}`,
    `  sandbox.fallback ${requirement.fallback}${requirement.defaulted.fallback ? ' (default)' : ''}${requirement.os === 'required' ? '' : ' (applies only to os: required)'}`,
  ];
}

function describeDecision(decision: SandboxDecision): string {
  if (decision.mode === 'sandboxed') return `run the file and shell tools; ${decision.reason}`;
  if (decision.mode === 'unsandboxed') return `run the file and shell tools WITHOUT an OS sandbox: ${decision.reason}`;
  return `start, but refuse the ${decision.refusedTools.join(' and ')} tools: ${decision.reason}`;
}

function describeProfile(profile: SandboxProfile): string[] {
  const lines = ['Sandbox profile (derived from the policy; everything not listed is not in the sandbox at all)'];
  const ruleLine = (label: string, rule: SandboxPathRule): string =>
    `  ${label.padEnd(13)} ${rule.path}  (${rule.source}${rule.suffixes === undefined ? '' : `; only files ending ${rule.suffixes.join(', ')}`})`;
  if (profile.writable.length === 0) lines.push('  writable      nothing');
  for (const rule of profile.writable) lines.push(ruleLine('writable', rule));
  const system = profile.readOnly.filter((rule) => rule.source === 'system');
  for (const rule of profile.readOnly.filter((entry) => entry.source !== 'system')) lines.push(ruleLine('read-only', rule));
  const presentSystem = system.filter((rule) => existsSync(rule.path)).map((rule) => rule.path);
  lines.push(`  read-only     system: ${presentSystem.join(' ')}`);
  // Hidden paths that do not exist need no mask; listing all of them would bury the ones that matter.
  const hidden = profile.hidden.filter((rule) => existsSync(rule.path));
  for (const rule of hidden) lines.push(ruleLine('hidden', rule));
  lines.push(`  hidden        (${profile.hidden.length - hidden.length} more credential and state paths are hidden if they appear)`);
  lines.push(`  /tmp          ${profile.privateTemporaryDirectory ? 'private and empty, gone after each command' : 'not in the sandbox'}`);
  lines.push(`  not visible   ${[os.homedir(), '/root', '/home', '/var', '/run', 'the rest of /etc'].filter((entry, index, all) => all.indexOf(entry) === index).join(', ')} (unless a zone above covers them)`);
  const network = profile.network;
  lines.push(`  network       ${network.mode === 'none' ? 'none' : network.mode === 'all' ? 'all (the host network)' : `only ${network.allowDomains.join(', ')}`}`);
  return lines;
}

/** Where the OS sandbox will be stricter than the profile says, because the backend cannot express a rule. */
function profileNotes(profile: SandboxProfile, detection: SandboxDetection): string[] {
  const notes: string[] = [];
  if (profile.network.mode === 'domains' && detection.kind !== 'none') {
    notes.push(`shell.network allows only some domains; ${detection.kind === 'bwrap' ? 'bubblewrap' : 'Seatbelt'} cannot filter by domain, so commands in the sandbox get no network at all (stricter than the policy, never weaker)`);
  }
  if (detection.kind === 'bwrap') {
    for (const rule of profile.writable) {
      if (rule.suffixes !== undefined) notes.push(`${rule.path} (${rule.source}) admits only some suffixes; bubblewrap cannot, so it is read-only in the sandbox`);
    }
  }
  return notes;
}

function firstLine(text: string): string {
  return (text.split('\n')[0] ?? '').slice(0, 300);
}
