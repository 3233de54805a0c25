import path from 'node:path';
import { stateDirectory, type LoadedPolicy } from '../config/load-policy-file.ts';
import { blockCall, type ToolDeclaration } from '../core/tool-declaration.ts';
import { createBwrapWrapper } from '../sandbox/bwrap-sandbox.ts';
import { detectSandbox, type SandboxDetection } from '../sandbox/detect-sandbox.ts';
import { sandboxProfileFromPolicy } from '../sandbox/sandbox-profile-from-policy.ts';
import { resolveSandboxPolicy, type SandboxDecision } from '../sandbox/sandbox-policy.ts';
import { wrapWithSeatbelt } from '../sandbox/seatbelt-profile.ts';
import type { BuiltinTool } from '../tools/builtin-tool.ts';
import { createFsTools } from '../tools/fs/create-fs-tools.ts';
import { zonesFromPolicy, type Zone } from '../tools/fs/zones.ts';
import { createShellTool } from '../tools/shell/create-shell-tool.ts';
import type { WrapCommand } from '../tools/shell/run-shell-command.ts';

/** The names of the built-in tools, whether they run or are refused. */
export const FS_TOOL_NAMES = ['read_file', 'write_file', 'edit_file', 'delete_file', 'move_file', 'list_dir'] as const;
export const SHELL_TOOL_NAME = 'shell';

export interface BuiltinToolset {
  /** Tools that run; refused tools are declarations that block every call with the reason. */
  tools: (BuiltinTool | ToolDeclaration)[];
  zones: Zone[];
  sandbox: SandboxDecision;
}

/**
 * The built-in file and shell tools as a policy file configures them — the
 * file tools when it has an `fs` section, the shell tool when it has a
 * `shell` section (a policy without them judges calls by name alone): zones
 * from `fs.zones` (roots relative to the policy file), shell rules from
 * `shell`, shell commands wrapped in the OS sandbox derived from the same
 * policy, and toolgate's own files (the policy, `.toolgate/`, the audit log,
 * the approvals file) out of every tool's reach. When `sandbox` says the
 * tools must be refused, they are still declared, so a call to them is
 * blocked with the reason instead of looking like an unknown tool.
 *
 * Throws `PolicyError` for zone roots that do not exist and for failing shell
 * rule examples; `SandboxUnavailableError` for `os: required` + `fail_fast`
 * without a sandbox.
 *
 * @example
 * const { tools, sandbox } = await createBuiltinTools({ loaded, cwd: process.cwd() });
 * const gate = createRuntimeGate({ loaded, tools });
 */
export async function createBuiltinTools(options: {
  loaded: LoadedPolicy;
  /** The project root: relative paths in tool calls resolve against it. */
  cwd: string;
  /** Injected in tests; by default the real detection. */
  detection?: SandboxDetection;
}): Promise<BuiltinToolset> {
  const { loaded, cwd } = options;
  const { policy } = loaded;
  const zones = zonesFromPolicy({ policy, policyDirectory: loaded.directory });
  const sandbox = resolveSandboxPolicy({ sandbox: policy.document.sandbox, detection: options.detection ?? (await detectSandbox()) });
  const wantsFs = policy.document.fs !== undefined;
  const wantsShell = policy.document.shell !== undefined;
  if (sandbox.mode === 'refuse-tools') {
    const refused = (name: string): ToolDeclaration => ({ name, description: `refused: ${sandbox.reason}`, checkApproval: () => blockCall(sandbox.reason) });
    return { tools: [...(wantsFs ? FS_TOOL_NAMES.map(refused) : []), ...(wantsShell ? [refused(SHELL_TOOL_NAME)] : [])], zones, sandbox };
  }
  const document = policy.document;
  const protectedPaths = [loaded.path, stateDirectory(loaded.directory)];
  if (document.audit?.path !== undefined) protectedPaths.push(path.resolve(loaded.directory, document.audit.path));
  if (document.approvals?.path !== undefined) protectedPaths.push(path.resolve(loaded.directory, document.approvals.path));
  const fsTools = wantsFs ? createFsTools({ zones, cwd, protectedPaths }) : [];
  let wrapCommand: WrapCommand | undefined;
  if (sandbox.mode === 'sandboxed') {
    const profile = sandboxProfileFromPolicy({ policy, policyFile: loaded.path, zones });
    wrapCommand = sandbox.kind === 'bwrap' ? createBwrapWrapper({ profile }) : (input) => wrapWithSeatbelt({ profile, ...input });
  }
  const shell = wantsShell ? [createShellTool({ policy, zones, cwd, ...(wrapCommand === undefined ? {} : { wrapCommand }) })] : [];
  return { tools: [...fsTools, ...shell], zones, sandbox };
}
