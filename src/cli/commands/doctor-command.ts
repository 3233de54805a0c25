import { findHostPolicy } from '../../config/find-host-policy.ts';
import { policyTrust } from '../../config/policy-trust.ts';
import { pausedUntil } from '../../hooks/hook-pause.ts';
import { existsSync, readFileSync } from 'node:fs';
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
import { builtInPolicy, loadPolicyOrExplain } from '../cli-support.ts';
import type { LoadedPolicy } from '../../config/load-policy-file.ts';
import { sanitizeTerminalText } from '../../core/sanitize-terminal-text.ts';
import type { HostName } from '../../hooks/host-call.ts';
import { checkHostHook, type HostHookCheck } from '../../hooks/host-hook-check.ts';
import { hostConfigFile, type InstallScope } from '../../hooks/host-install.ts';

export const DOCTOR_HELP = `Usage: toolgate doctor [--policy FILE] [--json]

Reports whether the OS sandbox works here and what the policy makes of it:
Node version; bubblewrap (path, version, whether a sandbox really starts,
user namespace settings); macOS sandbox-exec; and, with a policy, the
sandbox profile derived from it (writable, read-only and hidden paths,
network) and what sandbox.os / sandbox.fallback will do.

Without --policy, the policy in this directory (toolgate.yaml, .yml, .json)
is used if there is one; otherwise the built-in default policy that
\`toolgate run\` uses here (file and shell tools in this directory,
sandbox.os: preferred). Only the tools the policy declares are reported: the
file tools with an fs section, the shell tool with a shell section.

Then every agent host with toolgate's hook (Claude Code's managed settings,
.claude/settings.json here and ~/.claude's, Codex's $CODEX_HOME/hooks.json):
whether the hook is live — the file parses, its matcher is "*", its program exists and runs, and
a probe call (a tool named toolgate_doctor_probe, which runs nothing) is
answered within the hook's timeout (Claude Code's http hook: the probe is
posted with its headers, TOOLGATE_TOKEN from this environment). A host runs
every call when its hook fails, so one that is not live is NOT OK, and so is
a Claude Code hook without "onFailure": "block" (FAILS OPEN: Claude Code
2.1.295 and later block by themselves on a failed hook only with it), and a
Copilot CLI hooks file without toolgate under permissionRequest (FAILS OPEN:
Copilot CLI runs a call whose preToolUse hook timed out). So is
a hook another settings file the host reads here turns off, the file and
key named: Claude Code's disableAllHooks in managed, user, project
(.claude/settings.json) or local (.claude/settings.local.json) settings
(managed hooks survive all but the managed one), allowManagedHooksOnly in
managed settings; Codex's [features] codex_hooks = false in its
config.toml or the project's .codex/config.toml.

The last line says OK only when every check passed; WARNING when the
requirement is met but something failed (no OS sandbox, and the policy lets
its tools run without one); NOT OK otherwise.

Options:
  --policy FILE   the policy to check
  --json          one JSON object instead of the report
  -h, --help      this help

Exit codes:
  0  the policy's sandbox requirement can be met (a sandbox works, or the
     policy accepts running without one: sandbox.os preferred or off)
  1  it cannot: toolgate would refuse to start (fallback fail_fast) or
     refuse the file and shell tools (fallback refuse_tools); or this Node
     is too old; or an installed host hook is not live (or blocks every call)
  2  usage error
  3  the policy file is missing or invalid
`;

/** Node major version toolgate needs (package.json engines). */
const MINIMUM_NODE_MAJOR = 22;

export interface DoctorDependencies {
  /** How the sandbox is found (tests inject an unavailable one). Default `detectSandbox`. */
  detectSandbox?: () => Promise<SandboxDetection>;
  /** The Node version to judge (tests give an old one). Default `process.version`. */
  nodeVersion?: string;
}

interface PolicyReport {
  /** The file, or null for the built-in default policy. */
  file: string | null;
  /** The built-in tools the policy declares, which the sandbox confines. */
  tools: DeclaredTools;
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
  let policy: PolicyReport;
  const policyFile = values.policy ?? findPolicyFile(io.cwd);
  try {
    // No policy file: what `toolgate run` would use here.
    const loaded = policyFile === undefined ? builtInPolicy(io.cwd) : await loadPolicyOrExplain({ policy: policyFile, io });
    policy = reportPolicy({ loaded, builtIn: policyFile === undefined, detection });
  } catch (error) {
    if (!(error instanceof PolicyError)) throw error;
    io.stderr.write(`toolgate doctor: ${error.message}\n`);
    return EXIT.policy;
  }
  const version = dependencies.nodeVersion ?? process.version;
  const node = { version, ok: Number(version.replace(/^v/, '').split('.')[0]) >= MINIMUM_NODE_MAJOR, minimum: MINIMUM_NODE_MAJOR };
  const confines = policy.tools.fs || policy.tools.shell;
  const requirementMet = policy.failFast === undefined && (policy.decision?.mode !== 'refuse-tools' || !confines);
  // Every check that failed, so that the last line never says OK after one.
  const problems: string[] = [];
  if (!node.ok) problems.push(`Node ${node.version} is too old: toolgate needs ${MINIMUM_NODE_MAJOR} or later`);
  if (!requirementMet) problems.push('the policy\'s sandbox requirement cannot be met here');
  // Agent hosts with toolgate's hook: is it really live (a host ignores a hook that fails, and runs every call)?
  const hosts = (await Promise.all(HOST_LOCATIONS.map(({ host, scope }) => checkHostHook({ host, scope, file: hostConfigFile({ host, scope, cwd: io.cwd, env: io.env }), cwd: io.cwd, env: io.env, searchPath: io.env.PATH })))).flat();
  for (const check of hosts) if (check.state === 'broken' || check.state === 'blocking' || check.state === 'untrusted' || check.state === 'fails_open' || check.state === 'switched_off') problems.push(`the ${check.host} hook in ${check.file} is not live (${check.state})`);
  const warnings: string[] = [];
  const paused = pausedUntil({ env: io.env });
  if (paused !== undefined && hosts.some((check) => check.state !== 'absent' && check.state !== 'none')) warnings.push(`toolgate's hooks are paused until ${paused.toISOString()}: the hosts decide alone until then (toolgate resume)`);
  if (!detection.available && requirementMet) {
    warnings.push(confines ? `no OS sandbox here: the policy lets ${toolsPhrase(policy.tools)} run without one` : 'no OS sandbox here (the policy declares no file or shell tools for it to confine)');
  }
  const ok = problems.length === 0;
  const status = !ok ? 'not_ok' : warnings.length > 0 ? 'warning' : 'ok';
  if (values.json) {
    const report = {
      ok,
      status,
      problems,
      warnings,
      node,
      platform: `${process.platform} ${process.arch}`,
      sandbox: detection,
      helpers: { socat: 'not needed', ripgrep: 'not needed' },
      hosts,
      policy: {
        file: policy.file,
        builtIn: policy.file === null,
        tools: policy.tools,
        requirement: policy.requirement,
        decision: policy.decision ?? null,
        failFast: policy.failFast ?? null,
        profile: policy.profile,
        notes: policy.notes,
      },
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
  if (policy.file === null) {
    lines.push(`Policy         none here: \`toolgate run\` uses its built-in default policy (\`toolgate init\` writes it to ${io.cwd}/toolgate.yaml, to change)`);
  } else {
    lines.push(`Policy         ${policy.file}`);
  }
  lines.push(`  tools         ${confines ? `${toolsPhrase(policy.tools)} (the built-in tools it declares)` : 'no file or shell tools (the policy has neither an fs nor a shell section)'}`);
  lines.push(...describeRequirement(policy.requirement));
  lines.push(`  will          ${policy.failFast ?? describeDecision(policy.decision!, policy.tools)}`);
  if (confines) lines.push('', ...describeProfile(policy.profile), ...policy.notes.map((note) => `  note          ${note}`));
  lines.push('', ...describeHosts(hosts), ...describeHostPolicy({ hosts, cwd: io.cwd, env: io.env }));
  lines.push('');
  if (!ok) lines.push(`NOT OK: ${problems.join('; ')} (see above).`);
  else if (warnings.length > 0) lines.push(`WARNING: ${warnings.join('; ')}. The policy's sandbox requirement is met (sandbox.os: ${policy.requirement.os}).`);
  else lines.push('OK: the policy\'s sandbox requirement can be met here.');
  io.stdout.write(`${lines.join('\n')}\n`);
  return ok ? EXIT.ok : 1;
}

/** Which built-in tools a policy declares: the file tools with an fs section, the shell tool with a shell section. */
interface DeclaredTools {
  fs: boolean;
  shell: boolean;
}

/** Where doctor looks for toolgate's hook: every place a host reads hooks from. */
const HOST_LOCATIONS: ReadonlyArray<{ host: HostName; scope: InstallScope }> = [
  { host: 'claude-code', scope: 'managed' },
  { host: 'claude-code', scope: 'project' },
  { host: 'claude-code', scope: 'local' },
  { host: 'claude-code', scope: 'user' },
  { host: 'codex', scope: 'user' },
  { host: 'gemini', scope: 'project' },
  { host: 'gemini', scope: 'user' },
  { host: 'copilot', scope: 'user' },
  { host: 'opencode', scope: 'user' },
  { host: 'cursor', scope: 'project' },
  { host: 'cursor', scope: 'user' },
];

function describeHosts(hosts: readonly HostHookCheck[]): string[] {
  const installed = hosts.filter((check) => check.state !== 'absent' && check.state !== 'none');
  if (installed.length === 0) return ['Hosts          no agent host has toolgate\'s hook (toolgate install claude-code | codex | gemini | copilot | opencode | cursor)'];
  const label: Record<HostHookCheck['state'], string> = { live: 'live', blocking: 'BLOCKS EVERY CALL', broken: 'NOT LIVE', untrusted: 'NOT TRUSTED BY CODEX', fails_open: 'FAILS OPEN', switched_off: 'NOT LIVE', absent: 'absent', none: 'none' };
  return ['Hosts', ...installed.map((check) => `  ${check.host.padEnd(12)} ${label[check.state]}: ${check.file}: ${sanitizeTerminalText(check.detail, { collapse: true })}`)];
}

/**
 * For installed hooks: which policy they judge a call made here with, and
 * whether it decides (a project's policy only once trusted), and what
 * confines what the hosts run — not toolgate's OS sandbox, which is its own
 * agent's.
 */
function describeHostPolicy(options: { hosts: readonly HostHookCheck[]; cwd: string; env: CliIo['env'] }): string[] {
  if (!options.hosts.some((check) => check.state !== 'absent' && check.state !== 'none')) return [];
  const safe = (text: string) => sanitizeTerminalText(text, { collapse: true });
  let policy: string;
  try {
    const found = findHostPolicy({ cwd: options.cwd, env: options.env });
    if (found === undefined) policy = 'none: no toolgate.yaml here or above, and no user-level policy, so the hooks block every call here (toolgate init --user, or toolgate init --for HOST)';
    else if (found.origin === 'user') policy = `${safe(found.file)} (the user-level policy; its zone is this project)`;
    else {
      const trust = policyTrust({ file: found.file, text: readFileSync(found.file, 'utf8'), env: options.env });
      policy = trust === 'trusted' ? `${safe(found.file)} (trusted)` : `${safe(found.file)}: ${trust === 'changed' ? 'CHANGED since you trusted it' : 'NOT TRUSTED'}, so the hooks block every call here until you read it and run toolgate trust`;
    }
  } catch (error) {
    policy = `cannot tell (${safe((error as Error).message)})`;
  }
  return [
    `  policy here  ${policy}`,
    "  confinement  the hosts run what their hook allows themselves, with your permissions: the policy's decision (and the host's own sandbox, when on) is what confines those calls; toolgate's OS sandbox above confines toolgate run's own agent",
  ];
}

function toolsPhrase(tools: DeclaredTools): string {
  if (tools.fs && tools.shell) return 'the file and shell tools';
  return tools.fs ? 'the file tools' : 'the shell tool';
}

function reportPolicy(options: { loaded: LoadedPolicy; builtIn: boolean; detection: SandboxDetection }): PolicyReport {
  const { loaded } = options;
  const section = loaded.policy.document.sandbox;
  const profile = sandboxProfileFromPolicy({ policy: loaded.policy, policyFile: loaded.path });
  const outcome = decide({ requirementSection: section, detection: options.detection });
  return {
    file: options.builtIn ? null : loaded.path,
    tools: { fs: loaded.policy.document.fs !== undefined, shell: loaded.policy.document.shell !== undefined },
    requirement: sandboxRequirement(section),
    decision: outcome.decision,
    failFast: outcome.failFast,
    profile,
    notes: profileNotes(profile, options.detection),
  };
}

function decide(options: { requirementSection: Parameters<typeof sandboxRequirement>[0]; detection: SandboxDetection }): {
  decision: SandboxDecision | undefined;
  failFast: string | undefined;
} {
  try {
    const decision = resolveSandboxPolicy({ sandbox: options.requirementSection, detection: options.detection });
    return { decision, failFast: undefined };
  } catch (error) {
    if (error instanceof SandboxUnavailableError) return { decision: undefined, failFast: `refuse to start: ${error.message}` };
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

/** What the run does with the tools the policy declares, and only those. */
function describeDecision(decision: SandboxDecision, tools: DeclaredTools): string {
  if (!tools.fs && !tools.shell) return 'start; there is nothing for the OS sandbox to confine';
  const phrase = toolsPhrase(tools);
  if (decision.mode === 'sandboxed') return `run ${phrase}; ${decision.reason}`;
  if (decision.mode === 'unsandboxed') return `run ${phrase} WITHOUT an OS sandbox: ${decision.reason}`;
  // The decision's own reason names both tool kinds; say which of them this policy has.
  return `start, but refuse ${phrase}: ${decision.reason.replace(/^the file and shell tools are refused: /, '')}`;
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
