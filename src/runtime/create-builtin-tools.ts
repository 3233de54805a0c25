import { toolgateConfigHome, toolgateStateHome } from '../config/user-toolgate-paths.ts';
import { makeDirectoriesSync } from '../filesystem/make-directories.ts';
import { createWholeFile } from '../filesystem/create-whole-file.ts';
import path from 'node:path';
import { existsSync, lstatSync, realpathSync } from 'node:fs';
import { DEFAULT_POLICY_NAMES, ownPaths, stateDirectory, type LoadedPolicy, auditLogPath, approvalsFilePath } from '../config/load-policy-file.ts';
import { ToolgateError } from '../core/errors/toolgate-error.ts';
import { APPROVALS_SCHEMA_VERSION } from '../approvals/approvals-file.ts';
import { blockCall, type ToolDeclaration } from '../core/tool-declaration.ts';
import { wrapWithBwrap } from '../sandbox/bwrap-sandbox.ts';
import { detectSandbox, type SandboxDetection } from '../sandbox/detect-sandbox.ts';
import { resolveSandboxPolicy, type SandboxDecision } from '../sandbox/sandbox-policy.ts';
import { wrapWithSeatbelt } from '../sandbox/seatbelt-profile.ts';
import type { BuiltinTool } from '../tools/builtin-tool.ts';
import { createFsTools } from '../tools/fs/create-fs-tools.ts';
import { zonesFromPolicy, type Zone } from '../tools/fs/zones.ts';
import { createShellTool, type ShellSandbox } from '../tools/shell/create-shell-tool.ts';
import { refuseStateInWritableZone } from './refuse-state-in-writable-zone.ts';
import { realPathOf, withRealPathMemo } from '../filesystem/real-path-of.ts';

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
  /**
   * The calls are judged here and run elsewhere (an agent host runs them,
   * `toolgate hook`): no OS sandbox is set up and \`sandbox:\` is not
   * consulted, so commands are judged by the policy alone, as they run.
   */
  judgeOnly?: boolean;
  /**
   * With judgeOnly: the OS sandbox the judged commands will run in (an agent
   * host's, `sandbox.hosts: wrap`), so that an allowed command that sandbox
   * would stop writing is asked about, as toolgate's own would be.
   */
  commandSandbox?: ShellSandbox;
  /** Whose home's toolgate folders are protected (the agent host's user, for a hook); default this process's environment. */
  env?: Readonly<Record<string, string | undefined>>;
  /** More of toolgate's own paths no call may change (a hook: the toolgate and the Node it runs as). */
  ownExtra?: readonly string[];
}): Promise<BuiltinToolset> {
  const detection = options.judgeOnly === true ? undefined : (options.detection ?? (await detectSandbox()));
  // The rest resolves the same folders again and again (each own path, each hidden one, each zone): a hook does it for every call.
  return withRealPathMemo(() => builtinToolsNow(options, detection));
}

/** createBuiltinTools once the sandbox is detected (none for calls only judged): synchronous, the real paths it finds found once each. */
function builtinToolsNow(options: Parameters<typeof createBuiltinTools>[0], detection: SandboxDetection | undefined): BuiltinToolset {
  const { loaded, cwd } = options;
  const { policy } = loaded;
  const zones = zonesFromPolicy({ policy, policyDirectory: loaded.zoneRoot ?? loaded.directory });
  refuseStateInWritableZone({ loaded, zones });
  const sandbox: SandboxDecision =
    detection === undefined
      ? { mode: 'unsandboxed', requirement: { os: 'off', fallback: 'refuse_tools', defaulted: { os: false, fallback: true } }, reason: 'the calls run in the agent host, outside toolgate: judged by the policy alone' }
      : resolveSandboxPolicy({ sandbox: policy.document.sandbox, detection, policyFile: loaded.path });
  const wantsFs = policy.document.fs !== undefined;
  const wantsShell = policy.document.shell !== undefined;
  if (sandbox.mode === 'refuse-tools') {
    const refused = (name: string): ToolDeclaration => ({ name, description: `refused: ${sandbox.reason}`, checkApproval: () => blockCall(sandbox.reason) });
    return { tools: [...(wantsFs ? FS_TOOL_NAMES.map(refused) : []), ...(wantsShell ? [refused(SHELL_TOOL_NAME)] : [])], zones, sandbox };
  }
  // toolgate's own files, beside the policy and beside the project root.
  const stateAndPolicy = [...ownPaths({ policy, policyFile: loaded.path, ...(options.env === undefined ? {} : { env: options.env }) }), ...DEFAULT_POLICY_NAMES.map((name) => path.join(cwd, name))];
  refuseSymlinkedOwnPaths({ paths: stateAndPolicy, zones });
  // The hook's own program may be reached through a link (a project's node_modules/.bin/node): the link and its target are both protected.
  const written = [...stateAndPolicy, ...(options.ownExtra ?? [])];
  // Zone roots and resolved paths are real: so must these be, or a symlinked folder above them (macOS /tmp) would slip past.
  const protectedPaths = [...new Set(written.flatMap((entry) => [entry, realPathOf(entry)]))];
  const fsTools = wantsFs ? createFsTools({ zones, cwd, protectedPaths }) : [];
  let shellSandbox: ShellSandbox | undefined = options.commandSandbox;
  if (sandbox.mode === 'sandboxed') {
    // The shell tool makes each call's profile (who let it run decides what it may write); this only wraps.
    const wrap: ShellSandbox['wrap'] = sandbox.kind === 'bwrap' ? (input) => wrapWithBwrap(input) : (input) => wrapWithSeatbelt(input);
    // Just before a sandboxed command runs, not at start-up: the simulator
    // (`toolgate check`) builds these tools too and must write nothing.
    shellSandbox = {
      wrap: (input) => {
        prepareOwnState({ loaded });
        return wrap(input);
      },
    };
  }
  // The shell finds toolgate's own files through the policy's source; the built-in default policy has none, so it gets the path it stands for.
  const shellPolicy = policy.source === loaded.path ? policy : { ...policy, source: loaded.path };
  const extraHidden = [...(options.env === undefined ? [] : [toolgateConfigHome(options.env), toolgateStateHome(options.env)]), ...(options.ownExtra ?? [])];
  const hidden = extraHidden.length === 0 ? {} : { hidden: extraHidden };
  const shell = wantsShell ? [createShellTool({ policy: shellPolicy, zones, cwd, ...hidden, ...(shellSandbox === undefined ? {} : { sandbox: shellSandbox }) })] : [];
  return { tools: [...fsTools, ...shell], zones, sandbox };
}

/**
 * A protected path reached through a symlink inside a writable zone can be
 * swapped by the agent (remove the link, write a file in its place), and no
 * mount can cover a link itself: refuse to start rather than guard it weakly.
 */
function refuseSymlinkedOwnPaths(options: { paths: readonly string[]; zones: readonly Zone[] }): void {
  // The own paths share their folders: each is looked at once.
  const checked = new Set<string>();
  for (const file of options.paths) {
    // The file and every folder above it: a symlinked folder is swapped as easily as a symlinked file.
    for (let current = file; path.dirname(current) !== current; current = path.dirname(current)) {
      if (checked.has(current)) break;
      checked.add(current);
      let isLink: boolean | undefined;
      try {
        // Most of these do not exist yet: found without the cost of an exception.
        isLink = lstatSync(current, { throwIfNoEntry: false })?.isSymbolicLink();
      } catch {
        continue;
      }
      if (isLink !== true) continue;
      // Zone roots are real paths: compare with the link's real parent directory.
      const real = path.join(realpathSync.native(path.dirname(current)), path.basename(current));
      const writableZone = options.zones.find((zone) => zone.mode === 'rw' && (real === zone.root || real.startsWith(zone.root + path.sep)));
      if (writableZone === undefined) continue;
      const what = current === file ? `${file} is a symlink` : `${current}, a folder above ${file}, is a symlink`;
      throw new ToolgateError({
        code: 'POLICY_INVALID',
        message: `${what} inside the writable zone ${writableZone.name}: a tool could replace it. Point --policy (or audit.path, approvals.path) at the real path.`,
      });
    }
  }
}

/**
 * The OS sandbox an agent host's command is wrapped in (`sandbox.hosts:
 * wrap`): bubblewrap, with toolgate's state created first, as for its own
 * commands, so that there is something to hide.
 */
export function hostCommandSandbox(options: { loaded: LoadedPolicy; bwrapPath?: string | undefined; /** The host's environment, whose allow-listed variables (LANG, TERM...) the command keeps. */ env: Readonly<Record<string, string | undefined>> }): ShellSandbox {
  return {
    wrap: (input) => {
      prepareOwnState(options);
      return wrapWithBwrap({ ...input, environment: options.env, ...(options.bwrapPath === undefined ? {} : { bwrapPath: options.bwrapPath }) });
    },
  };
}

/**
 * Creates toolgate's state before any sandboxed command runs, so the OS
 * sandbox has something to hide: a mount cannot cover a path that does not
 * exist yet, and a command could otherwise create `.toolgate/approvals.json`
 * and approve itself.
 */
function prepareOwnState(options: { loaded: LoadedPolicy }): void {
  const { loaded } = options;
  const document = loaded.policy.document;
  makeDirectoriesSync(stateDirectory(loaded.directory), 0o700);
  const approvals = approvalsFilePath(loaded);
  createIfMissing(approvals, `${JSON.stringify({ v: APPROVALS_SCHEMA_VERSION, approvals: [] }, null, 2)}\n`);
  if (document.audit?.enabled !== false) createIfMissing(auditLogPath(loaded), '');
}

function createIfMissing(file: string, content: string): void {
  if (existsSync(file)) return;
  makeDirectoriesSync(path.dirname(file), 0o700);
  createWholeFile(file, content, 0o600);
}
