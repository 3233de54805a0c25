/**
 * `sandbox.hosts: wrap`: a shell command a host may run is handed back to
 * it wrapped in toolgate's OS sandbox (bubblewrap from the system's
 * folders, never the host's PATH), made for the decision: writes only in
 * the zones, .git read-only, toolgate's own files hidden. Or why it cannot
 * be: the host's hook cannot hand back a changed command, there is no
 * sandbox here, another hook of the repository's could hand the host a
 * command of its own, or the command cannot run inside.
 */
import type { LoadedPolicy } from '../config/load-policy-file.ts';
import { quoteShellWord } from '../core/quote-shell-word.ts';
import { SANDBOX_PATH } from '../sandbox/bwrap-sandbox.ts';
import { detectSandbox, type SandboxDetection } from '../sandbox/detect-sandbox.ts';
import type { CallAuthority } from '../sandbox/sandbox-zone.ts';
import { analyzeCommandOnce } from '../tools/shell/analysis-cache.ts';
import type { ShellTool } from '../tools/shell/create-shell-tool.ts';
import { onPath, takesChangedInputFor, type HostInput } from './host-dialect.ts';
import { claudeOtherPreToolUseHooks } from './host-settings-layers.ts';
import { HOST_DIALECTS } from './hosts/host-dialects.ts';

/** A command handed back inside the sandbox (with what a person must be asked, if anything), or why it cannot be. */
export type WrappedCommand = { updatedInput: Record<string, unknown>; note: string; asks?: string } | { why: string };

export interface HostCommandWrapper {
  /** Why there is no bubblewrap to wrap commands in here; undefined where there is. Looked for once. */
  missingSandbox(): Promise<string | undefined>;
  /** The host's input with the command run inside the OS sandbox; or why it cannot be, and whether a person may run it as it is instead. */
  wrapHostCommand(call: { input: HostInput; command: string; cwd: string; authority: CallAuthority }): Promise<WrappedCommand>;
}

/**
 * The wrapper of one judge (a decider's judge answers many calls).
 *
 * @example
 * const wrapper = createHostCommandWrapper({ loaded, env, replay: false, shellTool, commandSandbox });
 * const wrapped = await wrapper.wrapHostCommand({ input, command: 'make', cwd, authority: 'policy' });
 */
export function createHostCommandWrapper(options: {
  loaded: LoadedPolicy;
  env: Readonly<Record<string, string | undefined>>;
  replay: boolean;
  shellTool: ShellTool | undefined;
  commandSandbox: Parameters<ShellTool['sandboxedCommand']>[0]['sandbox'] | undefined;
}): HostCommandWrapper {
  const { loaded, shellTool, commandSandbox } = options;
  let detection: Promise<SandboxDetection> | undefined;
  /** Why there is no bubblewrap to wrap commands in here; undefined where there is. */
  async function missingSandbox(): Promise<string | undefined> {
    detection ??= detectSandbox({ environment: { PATH: SANDBOX_PATH } });
    const found = await detection;
    return found.available && found.kind === 'bwrap' ? undefined : (found.reason ?? found.kind);
  }
  /** The host's input with the command run inside the OS sandbox; or why it cannot be, and whether a person may run it as it is instead. */
  async function wrapHostCommand(call: { input: HostInput; command: string; cwd: string; authority: CallAuthority }): Promise<WrappedCommand> {
    const { input } = call;
    const fallback = loaded.policy.document.sandbox?.fallback ?? 'refuse_tools';
    const dialect = HOST_DIALECTS[input.host];
    if (dialect === undefined || !takesChangedInputFor(dialect, input)) {
      return { why: `sandbox.hosts is wrap, but ${input.host}'s ${input.event === undefined ? 'hook' : `${input.event} hook`} cannot hand back a changed command, so it would run outside toolgate's OS sandbox (sandbox.fallback ${fallback})` };
    }
    // A replay runs nothing and writes nothing: the command is judged as one the sandbox would hold, without looking for bubblewrap or building it.
    if (options.replay) {
      return shellTool === undefined ? { why: 'sandbox.hosts is wrap, but the policy has no shell section, whose zones the sandbox is made from' } : { updatedInput: input.toolInput, note: `${dialect.title} would run it inside toolgate's OS sandbox (sandbox.hosts: wrap; a replay builds none)` };
    }
    const missing = await missingSandbox();
    if (missing !== undefined) return { why: `sandbox.hosts is wrap, but there is no OS sandbox here (${missing}), so the command would run unconfined (sandbox.fallback ${fallback})` };
    if (shellTool === undefined || commandSandbox === undefined) return { why: 'sandbox.hosts is wrap, but the policy has no shell section, whose zones the sandbox is made from' };
    if (input.host === 'claude-code') {
      const others = claudeOtherPreToolUseHooks({ cwd: input.cwd, env: options.env, tool: input.hostTool });
      if (others.length > 0) {
        const where = others.map((entry) => `${entry.file} (${entry.hooks.join('; ')})`).join(', ');
        return { why: `sandbox.hosts is wrap, but another PreToolUse hook can hand Claude Code a command of its own, which it would run instead of the wrapped one: ${where}` };
      }
    }
    const shell = onPath('bash', SANDBOX_PATH);
    if (shell === undefined) return { why: `sandbox.hosts is wrap, but there is no bash in ${SANDBOX_PATH} to run the command with inside the sandbox` };
    // Claude Code keeps the directory a command moved to for its next one: inside the sandbox that move is lost, which a person
    // is asked about. Approved, it still runs inside (running it as it is would make "cd . &&" a way out; found on review).
    const moves = input.host === 'claude-code' && analyzeCommandOnce(call.command).commands.some((command) => command.via === undefined && ['cd', 'pushd', 'popd'].includes(command.name ?? ''));
    const asks = moves ? "it changes the directory Claude Code keeps for its later commands, which it cannot from inside toolgate's OS sandbox (sandbox.hosts: wrap): approved, it runs inside, and Claude Code's next command starts where this one started" : undefined;
    let wrapped: { command: string; args: string[] };
    try {
      wrapped = await shellTool.sandboxedCommand({ command: call.command, cwd: call.cwd, shell, authority: call.authority, sandbox: commandSandbox });
    } catch (error) {
      return { why: `sandbox.hosts is wrap, but the command cannot run inside the sandbox: ${error instanceof Error ? error.message : String(error)}` };
    }
    const network = loaded.policy.document.shell?.network === true ? 'the network open' : 'no network';
    return {
      updatedInput: { ...input.toolInput, command: [wrapped.command, ...wrapped.args].map(quoteShellWord).join(' ') },
      note: `${dialect.title} runs it inside toolgate's OS sandbox (sandbox.hosts: wrap; bubblewrap): writes only in the zones${call.authority === 'policy' ? ' that allow them without asking' : ''}, .git read-only, toolgate's own files hidden, ${network}`,
      ...(asks === undefined ? {} : { asks }),
    };
  }
  return { missingSandbox, wrapHostCommand };
}
