/**
 * The `shell` built-in tool: runs a command line with bash in a zone, after
 * the gate has decided it from the policy's `shell` rules.
 */
import os from 'node:os';
import { lstatSync, statSync } from '../../filesystem/file-lookups.ts';
import path from 'node:path';
import { z } from 'zod';
import { realPathOf } from '../../filesystem/real-path-of.ts';
import { ToolgateError } from '../../core/errors/toolgate-error.ts';
import { durationMs } from '../../core/policy/normalize-policy.ts';
import type { Policy } from '../../core/policy/policy.ts';
import { allowCall, blockCall } from '../../core/tool-declaration.ts';
import type { ApprovalRequest } from '../../core/types.ts';
import { deriveSandboxProfile, type DeriveSandboxProfileOptions } from '../../sandbox/derive-sandbox-profile.ts';
import { listHiddenEntries } from '../fs/zone-hidden.ts';
import { CODE_LOADING_NAMES } from '../fs/code-loading-files.ts';
import { findVcsMetadata } from '../../sandbox/find-vcs-metadata.ts';
import type { SandboxProfile } from '../../sandbox/sandbox-profile.ts';
import type { CallAuthority } from '../../sandbox/sandbox-zone.ts';
import type { BuiltinTool, ToolExecutionOptions } from '../builtin-tool.ts';
import { quotePath } from '../fs/resolve-zone-path.ts';
import { resolveInZones, type Zone } from '../fs/zones.ts';
import { analyzeCommandOnce } from './analysis-cache.ts';
import { decideShellCommand, MAX_COMMAND_LENGTH, type ShellVerdict } from './decide-shell-command.ts';
import { profileAccess } from './profile-access.ts';
import { DEFAULT_MAX_OUTPUT_BYTES, DEFAULT_SHELL_TIMEOUT_MS, runShellCommand, type ShellCommandResult, type WrapCommand } from './run-shell-command.ts';
import { sandboxProfileOptionsFromPolicy } from './sandbox-profile-from-policy.ts';
import { ShellCommandRefusedError } from './errors/shell-command-refused-error.ts';
import { ShellInvalidArgumentsError } from './errors/shell-invalid-arguments-error.ts';
import { allowRule, shellRulesFromPolicy, type ShellRule } from './shell-rules.ts';
import { commandScopeOf, keptCommandScope } from './command-always-scope.ts';

export const shellSchema = z.strictObject({
  command: z.string().min(1).describe('The command line, run with bash -c.'),
  cwd: z.string().min(1).optional().describe('The working directory, inside a zone (default: the first writable zone).'),
});

export type ShellArguments = z.infer<typeof shellSchema>;

/**
 * How the shell tool runs commands in the OS sandbox: `wrap` turns one
 * command into its sandboxed form under the profile made for that call
 * (`wrapWithBwrap` and `wrapWithSeatbelt` have this shape).
 */
export interface ShellSandbox {
  wrap: (options: { profile: SandboxProfile; command: string; args: readonly string[]; cwd: string }) => { command: string; args: string[] };
}

/** The shell tool, plus `decide` for `--explain` and the simulator. */
export interface ShellTool extends BuiltinTool<ShellArguments, ShellCommandResult> {
  /** The verdict with every finding, without running anything. */
  decide(args: ShellArguments): Promise<ShellVerdict & { cwd: string | undefined }>;
  /**
   * The command line that runs `command` with `shell` in `cwd` inside the OS
   * sandbox `sandbox` makes, under the profile of a call `authority` let run
   * (an agent host's command, which the host runs: `sandbox.hosts: wrap`).
   * Throws ShellCommandRefusedError where the sandbox would not show `cwd`.
   */
  sandboxedCommand(options: { command: string; cwd: string; shell: string; authority: CallAuthority; sandbox: ShellSandbox }): Promise<{ command: string; args: string[] }>;
}

const NAME = 'shell';
const MAX_DESCRIPTION_COMMAND = 120;
/** The full reasons are in the presentation's metadata; the description carries the start. */
const MAX_DESCRIPTION_REASONS = 600;

/**
 * Creates the `shell` tool from the policy's `shell` section and the zones.
 * Throws `PolicyError` when the section is invalid or a rule's example
 * fails. `cwd` is the directory relative `cwd` arguments resolve against
 * (the project root); commands run in a zone. Commands are also judged
 * against the OS sandbox profile derived from the same policy (what it lets
 * a command read, write and reach), whether or not a sandbox runs them.
 *
 * With `sandbox`, each command runs in a profile made for its call: one a
 * person approved (`authorization.decision: 'approved'` from the gate) gets
 * every zone whose writes are not blocked; one nobody approved — allowed by
 * the policy, or run without an authorization at all — may write only where
 * the policy lets writes and deletes happen without asking, and sees no zone
 * whose reads ask. `.git` is read-only unless `sandbox.vcs_metadata` grants
 * it, toolgate's own files are hidden, and `sandbox.profile` narrows it all.
 * So what the analysis misses (a hook, a filter, a `core.fsmonitor` that git
 * runs; a "reader" that writes) is still held by the kernel. A write the
 * policy allows without asking but the sandbox grants only with approval
 * (a `write: allow` zone whose deletes are not allowed) asks instead.
 *
 * @example
 * const zones = zonesFromPolicy({ policy, policyDirectory });
 * const shell = createShellTool({ policy, zones, cwd: projectRoot, sandbox: { wrap: wrapWithBwrap } });
 * const gate = createGate({ policy, tools: [shell] });
 */
export function createShellTool(options: { policy: Policy; zones: readonly Zone[]; cwd: string; sandbox?: ShellSandbox; /** More of toolgate's own paths to hide and protect, beside the policy's (`ownPaths`). */ hidden?: readonly string[] }): ShellTool {
  if ('wrapCommand' in options) {
    // The old option ran every command under one fixed profile; ignoring it would run them with no sandbox at all.
    throw new ToolgateError({
      code: 'SANDBOX_PROFILE_INVALID',
      message: 'createShellTool no longer takes wrapCommand: pass sandbox: { wrap: wrapWithBwrap } (or wrapWithSeatbelt), and the shell tool makes each call\'s profile',
    });
  }
  const { zones } = options;
  const policyRules = shellRulesFromPolicy({ policy: options.policy, zones });
  const section = options.policy.document.shell ?? {};
  const timeoutMs = durationMs(section.timeout) ?? DEFAULT_SHELL_TIMEOUT_MS;
  const maxOutputBytes = section.max_output ?? DEFAULT_MAX_OUTPUT_BYTES;
  const base = realPathOf(options.cwd);
  const defaultZone = zones.find((zone) => zone.mode === 'rw') ?? zones[0];
  const profileOptions = sandboxProfileOptionsFromPolicy({ policy: options.policy, zones, policyDirectory: base, ...(options.hidden === undefined ? {} : { hidden: options.hidden }) });
  // The most any call can get (a person-approved one): what the policy layer judges paths against.
  const profile = deriveSandboxProfile(profileOptions);
  const { sandbox } = options;
  const writableRoots = zones.filter((zone) => zone.mode === 'rw').map((zone) => zone.root);
  // Where the policy allows a write without asking that the sandbox grants only with approval
  // (write: allow but deletes not, or .git writable only when approved), an allowed command is judged
  // again against what it would get unapproved, and asks instead of failing inside the sandbox.
  // Without a sandbox nothing narrows it, so the policy's own answer stands.
  const narrowedForUnapproved =
    sandbox !== undefined &&
    (zones.some((zone) => zone.mode === 'rw' && zone.approval.write === 'allow' && zone.approval.delete !== 'allow') ||
      (profileOptions.vcsMetadata?.access === 'writable_when_approved' && zones.some((zone) => zone.mode === 'rw' && zone.approval.write === 'allow')));
  const unapprovedProfile = sandbox === undefined ? undefined : deriveSandboxProfile({ ...profileOptions, authority: 'policy' });

  /** The working directory: inside a zone and an existing directory, or the reason it is not. */
  function workingDirectory(requested: string | undefined): { ok: true; cwd: string } | { ok: false; reason: string } {
    if (defaultZone === undefined) return { ok: false, reason: 'no zones are configured (fs.zones), so the shell has nowhere to run' };
    // A zone root is real and checked to be a directory when the zones load; execution checks it again.
    if (requested === undefined) return { ok: true, cwd: defaultZone.root };
    const resolved = resolveInZones({ zones, path: requested, cwd: base, operation: 'read' });
    if (!resolved.ok) return { ok: false, reason: `the working directory ${shownDirectory(requested)} is not usable: ${resolved.reason}` };
    if (!isExistingDirectory(resolved.absolute)) return { ok: false, reason: `the working directory ${shownDirectory(requested)} is not an existing directory` };
    return { ok: true, cwd: resolved.absolute };
  }

  async function decide(args: ShellArguments, extra: readonly ShellRule[] = []): Promise<ShellVerdict & { cwd: string | undefined }> {
    const rules = extra.length === 0 ? policyRules : { ...policyRules, rules: [...policyRules.rules, ...extra] };
    const directory = workingDirectory(args.cwd);
    if (!directory.ok) {
      return { decision: 'block', findings: [{ decision: 'block', subject: args.cwd ?? '', reason: directory.reason, rule: null, via: undefined }], reasons: [directory.reason], rule: undefined, decidedBy: undefined, cwd: undefined };
    }
    // The unapproved profile only narrows the full one: a command it allows, the full one allows too,
    // so an allowed command is analysed once here (and once more when it runs), not twice.
    const hiddenFromUnapproved = unapprovedProfile !== undefined && profileAccess(unapprovedProfile, directory.cwd).access === 'none';
    if (narrowedForUnapproved && !hiddenFromUnapproved) {
      const unapproved = await decideShellCommand({ command: args.command, cwd: directory.cwd, rules, zones, profile: unapprovedProfile!, network: unapprovedProfile!.network });
      if (unapproved.decision === 'allow') return { ...unapproved, cwd: directory.cwd };
      const verdict = await decideShellCommand({ command: args.command, cwd: directory.cwd, rules, zones, profile, network: profile.network });
      if (verdict.decision !== 'allow') return { ...verdict, cwd: directory.cwd };
      return askedForUnapproved({ verdict, unapproved, cwd: directory.cwd });
    }
    const verdict = await decideShellCommand({ command: args.command, cwd: directory.cwd, rules, zones, profile, network: profile.network });
    if (verdict.decision !== 'allow' || !hiddenFromUnapproved) return { ...verdict, cwd: directory.cwd };
    const reason = 'its working directory is in a zone whose reads need approval, which the OS sandbox shows only to a command a person approved';
    return { decision: 'ask', findings: [...verdict.findings, { decision: 'ask', subject: args.command, reason, rule: null, via: undefined }], reasons: [`${args.command}: ${reason}`], rule: undefined, decidedBy: undefined, cwd: directory.cwd };
  }

  /** The innermost zone a real directory lies in. */
  function zoneHolding(directory: string): Zone | undefined {
    const holding = zones.filter((zone) => directory === zone.root || directory.startsWith(zone.root.endsWith('/') ? zone.root : `${zone.root}/`));
    return holding.sort((left, right) => right.root.length - left.root.length)[0];
  }

  /** An allowed command whose writes the sandbox grants only with approval: it asks, saying so. */
  function askedForUnapproved(options: { verdict: ShellVerdict; unapproved: ShellVerdict; cwd: string }): ShellVerdict & { cwd: string } {
    const { verdict, unapproved } = options;
    const note = 'the OS sandbox lets only a command a person approved write there';
    const findings = unapproved.findings.filter((finding) => finding.decision !== 'allow').map((finding) => ({ ...finding, decision: 'ask' as const, reason: `${finding.reason} (${note})` }));
    const reasons = findings.map((finding) => `${finding.subject}${finding.via === undefined ? '' : ` (${finding.via})`}: ${finding.reason}`);
    return { decision: 'ask', findings: [...verdict.findings, ...findings], reasons, rule: undefined, decidedBy: undefined, cwd: options.cwd };
  }

  /**
   * The wrapper for one call: its own profile, for who let it run, with the
   * `.git` entries found just now. Refused, not run, when the working
   * directory is hidden from this call (a zone whose reads ask).
   */
  async function sandboxedWrap(call: { sandbox: ShellSandbox; authority: CallAuthority; cwd: string; command: string }): Promise<WrapCommand> {
    const paths = await findVcsMetadata({ roots: writableRoots, cwd: call.cwd });
    // The files the zones hide, as they are now: the kernel hides them from what the analysis cannot see (a script reading .env).
    const hiddenNow: string[] = [];
    for (const zone of zones) {
      const listed = listHiddenEntries({ zone });
      if (listed.kind === 'unknown') throw new ShellCommandRefusedError({ command: call.command, reasons: [`the files zone ${zone.name} hides could not all be found (${listed.reason}), so the sandbox could not hide them; narrow the zone`] });
      hiddenNow.push(...listed.entries);
    }
    const hidden = hiddenNow.length === 0 ? {} : { hidden: [...(profileOptions.hidden ?? []), ...hiddenNow] };
    // The code-loading files there are now (an agent host's settings, .envrc, .vscode...), beside each writable root and on the way from the working directory up.
    const codeLoadingPaths = codeLoadingEntries({ roots: writableRoots, cwd: call.cwd });
    const callOptions: DeriveSandboxProfileOptions = { ...profileOptions, ...hidden, authority: call.authority, vcsMetadata: { ...profileOptions.vcsMetadata, paths }, codeLoadingPaths };
    const callProfile = deriveSandboxProfile(callOptions);
    if (profileAccess(callProfile, call.cwd).access === 'none') {
      const why = call.authority === 'policy' ? 'no person approved the command, and the sandbox hides zones whose reads need approval from such commands' : 'the sandbox hides it';
      throw new ShellCommandRefusedError({ command: call.command, reasons: [`its working directory ${call.cwd} is not visible inside the sandbox: ${why}`] });
    }
    return (input) => call.sandbox.wrap({ ...input, profile: callProfile });
  }

  return {
    async sandboxedCommand(call) {
      const wrap = await sandboxedWrap(call);
      return wrap({ command: call.shell, args: ['-c', call.command], cwd: call.cwd });
    },
    name: NAME,
    description: 'Run a shell command line with bash in a project zone. Returns exit_code, stdout, stderr (each cut at a size limit, marked truncated) and timed_out.',
    inputSchema: shellSchema,
    decide,
    async checkApproval(call) {
      const parsed = shellSchema.safeParse(call.args);
      if (!parsed.success) return blockCall(new ShellInvalidArgumentsError({ problems: problemsOf(parsed.error) }).message);
      const verdict = await decide(parsed.data);
      // Each answer names the part of the policy that decided, where one did (check --explain, the audit log).
      if (verdict.decision === 'block') return blockCall(verdict.reasons.join('\n'), { rule: verdict.decidedBy });
      if (verdict.decision === 'allow') return verdict.decidedBy === undefined ? null : allowCall(`${verdict.decidedBy} allows it`, { rule: verdict.decidedBy });
      return { ...approvalRequest({ tool: call.tool, command: parsed.data.command, cwd: verdict.cwd!, verdict }), ...(verdict.decidedBy === undefined ? {} : { rule: verdict.decidedBy }) };
    },
    async alwaysScopes(call) {
      const parsed = shellSchema.safeParse(call.args);
      if (!parsed.success) return [];
      const directory = workingDirectory(parsed.data.cwd);
      const zone = directory.ok ? zoneHolding(directory.cwd) : undefined;
      if (zone === undefined) return [];
      const scope = commandScopeOf({ analysis: analyzeCommandOnce(parsed.data.command), zone: zone.name });
      return scope === undefined ? [] : [scope];
    },
    async withinAlwaysScope(call, kept) {
      const scope = keptCommandScope(kept, analyzeCommandOnce);
      const parsed = shellSchema.safeParse(call.args);
      if (scope === undefined || !parsed.success) return false;
      const directory = workingDirectory(parsed.data.cwd);
      if (!directory.ok || zoneHolding(directory.cwd)?.name !== scope.zone) return false;
      const extra = scope.commands.map((words) => allowRule({ match: words, pathsIn: [scope.zone], label: `approvals (always: ${JSON.stringify(words)})`, zones }));
      if (extra.some((rule) => rule === undefined)) return false;
      // What the policy would answer with these lines in it: allow, or the call is asked about.
      return (await decide(parsed.data, extra as ShellRule[])).decision === 'allow';
    },
    async execute(args, executionOptions = {}) {
      const parsed = shellSchema.safeParse(args);
      if (!parsed.success) throw new ShellInvalidArgumentsError({ problems: problemsOf(parsed.error) });
      const { command } = parsed.data;
      const approved = executionOptions.approvedPresentation;
      if (approved !== undefined && (approved.type !== 'command' || approved.content !== command)) {
        throw new ShellCommandRefusedError({ command, reasons: ['it is not the command that was approved'] });
      }
      const { authorization } = executionOptions;
      // Decided again here, so that a caller skipping the gate still cannot run a blocked command.
      const verdict = await decide({ ...parsed.data, cwd: parsed.data.cwd ?? defaultZone?.root });
      if (verdict.decision === 'block' || verdict.cwd === undefined) throw new ShellCommandRefusedError({ command, reasons: verdict.reasons });
      if (authorization?.decision === 'approved' && !approvedPayloadMatches({ payload: authorization.payload, command, cwd: verdict.cwd })) {
        throw new ShellCommandRefusedError({ command, reasons: ['it is not the command that was approved (another command line, or another working directory)'] });
      }
      // A caller that skipped the gate gets only what the policy allows outright: nobody approved an ask.
      // (In an OS sandbox such a call runs with the profile of an unapproved one, which the kernel holds.)
      if (authorization === undefined && sandbox === undefined && verdict.decision !== 'allow') {
        throw new ShellCommandRefusedError({ command, reasons: ['it needs a person\'s approval, and it came without one (run it through the gate)', ...verdict.reasons] });
      }
      if (authorization?.decision === 'allow' && verdict.decision !== 'allow') {
        throw new ShellCommandRefusedError({ command, reasons: ['it was allowed without asking, but now needs a person\'s approval (something it touches changed): call it again', ...verdict.reasons] });
      }
      const wrapCommand = sandbox === undefined ? undefined : await sandboxedWrap({ sandbox, authority: authorityOf(executionOptions), cwd: verdict.cwd, command });
      return runShellCommand({ command, cwd: verdict.cwd, timeoutMs, maxOutputBytes, signal: executionOptions.signal, wrapCommand, zoneRoots: zones.map((zone) => zone.root) });
    },
  };
}

/** The code-loading entries that exist at each root and in each folder from `cwd` up to the root holding it. */
function codeLoadingEntries(options: { roots: readonly string[]; cwd: string }): string[] {
  const folders = new Set(options.roots);
  for (const root of options.roots) {
    if (options.cwd !== root && !options.cwd.startsWith(`${root}/`)) continue;
    for (let folder = options.cwd; folder.length > root.length; folder = path.dirname(folder)) folders.add(folder);
  }
  const found: string[] = [];
  for (const folder of folders) {
    // .git (and git's own configuration) is sandbox.vcs_metadata's to decide.
    for (const name of CODE_LOADING_NAMES.filter((entry) => entry !== '.git' && entry !== '.gitconfig')) {
      const entry = path.join(folder, name);
      if (lstatSync(entry, { throwIfNoEntry: false }) === undefined) continue;
      found.push(entry);
      // Through a link (.claude -> cfg), what it leads to is what a write changes: protected there too, inside a root.
      const target = realPathOf(entry);
      if (target !== entry && options.roots.some((root) => target === root || target.startsWith(`${root}/`))) found.push(target);
    }
  }
  return found;
}

/** The working directory as the call named it, for a reason: control and text-direction characters spelled out, cut when long. */
function shownDirectory(requested: string): string {
  return requested.length > 200 ? `${quotePath(requested.slice(0, 200))}...` : quotePath(requested);
}

/**
 * Synchronous, like the resolution before it: one stat is a few
 * microseconds, where a promise stat waits for the thread pool (30-100 µs
 * on a busy machine), on every call that names its working directory.
 */
function isExistingDirectory(absolute: string): boolean {
  try {
    return statSync(absolute, { throwIfNoEntry: false })?.isDirectory() === true;
  } catch {
    return false;
  }
}

function approvalRequest(options: { tool: string; command: string; cwd: string; verdict: ShellVerdict }): ApprovalRequest {
  const { tool, command, cwd, verdict } = options;
  const cut = command.length > MAX_DESCRIPTION_COMMAND;
  // A cut line must not read as the whole of it: `echo AAAA…; rm -rf x` shows its start only, so the description says what it runs.
  const shown = cut ? `${command.slice(0, MAX_DESCRIPTION_COMMAND - 3)}... [cut: ${command.length.toLocaleString('en-US')} characters in all${commandsRun(command)}]` : command;
  // Said once: a reason about the whole line does not repeat it (one about a part of it names that part).
  const joined = verdict.reasons.map((reason) => (reason.startsWith(`${command}: `) ? reason.slice(command.length + 2) : reason)).join('; ');
  const why = joined === '' ? '' : ` — ${joined.length > MAX_DESCRIPTION_REASONS ? `${joined.slice(0, MAX_DESCRIPTION_REASONS - 3)}...` : joined}`;
  const home = os.homedir();
  const where = cwd === home ? '~' : cwd.startsWith(`${home}/`) ? `~${cwd.slice(home.length)}` : cwd;
  const headline = verdict.rule?.description ?? `Run ${shown.replace(/\s+/g, ' ')} in ${where}`;
  const consequences = (verdict.consequences ?? []).map((line) => line.replace(`${command} `, 'It '));
  return {
    // The name the tool was registered under, which the gate checks the request against.
    tool,
    // What will happen first: the command, once, and where.
    // Then what cannot be undone, in plain words, before the reasons.
    description: `${headline}${consequences.map((line) => `. ${line}`).join('')}${why}`,
    // The exact text: approving for the session approves this command line in this directory, nothing else.
    payload: { command, cwd },
    // The same, apart, for a view that shows each in its place (a card's heading, its consequences, its reasons).
    presentation: { type: 'command', content: command, metadata: { cwd, reasons: verdict.reasons.map((reason) => (reason.startsWith(`${command}: `) ? reason.slice(command.length + 2) : reason)), headline, consequences } },
    required: true,
  };
}

/** `; it runs 2 commands: echo, rm` (names only, at most 10), or nothing when the line cannot be read. */
function commandsRun(command: string): string {
  if (command.length > MAX_COMMAND_LENGTH) return '; too long to be read';
  let names: string[];
  try {
    names = analyzeCommandOnce(command).commands.map((simple) => simple.words[0]?.text ?? '?');
  } catch {
    return '';
  }
  if (names.length === 0) return '';
  const listed = names.slice(0, 10).map((name) => (name.length > 40 ? `${name.slice(0, 40)}...` : name));
  return `; it runs ${names.length} command${names.length === 1 ? '' : 's'}: ${listed.join(', ')}${names.length > 10 ? ', ...' : ''}`;
}

/**
 * Who let this call run. Only the gate's `approved` (a person, their
 * remembered approval, or a mode answering for them) counts as approval;
 * `allow`, and a call that comes without any authorization (a caller that
 * skipped the gate), run as approved by nobody.
 */
function authorityOf(executionOptions: ToolExecutionOptions): CallAuthority {
  return executionOptions.authorization?.decision === 'approved' ? 'person' : 'policy';
}

/**
 * An approval for a payload (`{command, cwd}`, what `approvalRequest` asks
 * about) is for that command line in that directory, nothing else (a
 * payload that names no directory matches none). No
 * payload: the person approved the arguments as edited, which are these.
 */
function approvedPayloadMatches(options: { payload: unknown; command: string; cwd: string }): boolean {
  const { payload } = options;
  if (payload === undefined) return true;
  if (typeof payload !== 'object' || payload === null) return false;
  const approved = payload as { command?: unknown; cwd?: unknown };
  // The approval was for one directory (the request always names it): a payload without one approves none.
  return approved.command === options.command && approved.cwd === options.cwd;
}

function problemsOf(error: z.ZodError): string[] {
  return error.issues.map((issue) => `${issue.path.join('.') || 'arguments'}: ${issue.message}`);
}
