/**
 * A host's call through the same gate as every other call of toolgate's:
 * the built-in tools' judgement (the shell's analysis, the fs zones) without
 * running anything, the MCP servers' section of the policy, the network
 * rules for a web fetch, the policy's rules, memory, the approvals file, the
 * mode, and the audit log, where the host and its session are recorded.
 */
import path from 'node:path';
import type { LoadedPolicy } from '../config/load-policy-file.ts';
import { createInMemoryApprovalMemory, type ApprovalMemory } from '../core/approval-memory.ts';
import { createNonInteractiveApprover, type PresentedRequest } from '../core/approver.ts';
import type { AuditSink } from '../core/audit-entry.ts';
import type { AlwaysApprovals, GateObserver } from '../core/gate.ts';
import type { AlwaysScope, ApprovalDecision, Authorization, GateContext, RunMode } from '../core/types.ts';
import { createMcpSimulation } from '../mcp/simulated-mcp-tools.ts';
import { hookInstallationPaths } from '../config/own-entry.ts';
import { geminiInClaudeTerms } from './hosts/gemini-tools.ts';
import { copilotDiffAsWrite, copilotInClaudeTerms } from './hosts/copilot-tools.ts';
import { opencodeInClaudeTerms } from './hosts/opencode-tools.ts';
import { CURSOR_MCP_PREFIX } from './hosts/cursor.ts';
import { opencodeRepositoryCode } from './opencode-settings-layers.ts';
import { geminiRepositoryHooks } from './gemini-settings-layers.ts';
import { createBuiltinTools, hostCommandSandbox } from '../runtime/create-builtin-tools.ts';
import { SANDBOX_PATH } from '../sandbox/bwrap-sandbox.ts';
import { findExecutable } from '../sandbox/find-executable.ts';
import type { ShellTool } from '../tools/shell/create-shell-tool.ts';
import { createRuntimeGate } from '../runtime/create-runtime-gate.ts';
import { searchConcern } from '../tools/fs/zone-hidden.ts';
import { callIdentity, callScope } from './call-identity.ts';
import { claudeRepositoryHooks, claudeRepositorySettings, codexRepositoryHooks, repositoryCommandEnvironment, type RepositorySettings } from './host-settings-layers.ts';
import { resolveSkill } from './host-skills.ts';
import { programReadingInput } from './input-readers.ts';
import { describePatch, parsePatch, readPatchCommand, type PatchCommand } from './codex-patch.ts';
import { otherShellHazard } from './host-shells.ts';
import { HOST_PATCH_TOOL, HOST_REWRITTEN_TOOL, HOST_SANDBOX_TOOL, HOST_SEARCH_TOOL, HOST_SHELL_TOOL, HOST_SKILL_TOOL, HOSTS_WITHOUT_INPUT_GATE, ownToolName, toolgateCallOf, type HostCall, type ToolgateCall } from './host-call.ts';
import type { HostInput } from './host-dialect.ts';
import { hostTools } from './host-tools.ts';
import { createHostCommandWrapper, type WrappedCommand } from './host-command-wrap.ts';
import { createHostFileTexts } from './host-file-texts.ts';



/** What the host is told: run it, refuse it, or ask its own user (where it can). */
export interface HostVerdict {
  decision: 'allow' | 'deny' | 'ask';
  /** Why, in toolgate's words: the model reads it on a denial, the person on an ask. */
  reason: string;
  /** The gate's own outcome: its request, when it asks. */
  authorization: Authorization;
  call: HostCall;
  /** On an ask: what "approve always" may cover beyond the payload, for the inbox's card (the gate's `alwaysChoices`). */
  alwaysScopes?: Array<Omit<AlwaysScope, 'match'>>;
  /** The host's tool input to run instead, where toolgate changed it (`sandbox.hosts: wrap`: the command inside the OS sandbox). */
  updatedInput?: Record<string, unknown>;
}

/**
 * Who answers an ask: `host` leaves it to the host's own prompt or to the
 * caller (the verdict is "ask"); `nobody` denies it, saying `why` (a host
 * that cannot ask from its hook), so the audit log records the denial.
 */
export type HostAsks =
  | { by: 'host' }
  | { by: 'nobody'; why: (request: PresentedRequest) => string }
  /** A person decided already (the server's inbox): their decision answers, remembered and audited as theirs. Blocks still block. */
  | { by: 'person'; decision: ApprovalDecision };

export interface HostJudge {
  decide(input: HostInput, asks: HostAsks): Promise<HostVerdict>;
  /**
   * A call already in toolgate's terms (an audit log's verdict record, a
   * `check --batch` line), through the same gate, asking nobody: what
   * `toolgate replay` judges such history with. An MCP server's tool (its
   * `server`) is declared as the gateway declares it.
   */
  judgeToolgateCall(call: { tool: string; args: Record<string, unknown>; server?: string | undefined; identity?: string | undefined; sessionId: string; callId: string }): Promise<Authorization>;
  /** Flushes the audit log of a judge that opened its own. */
  close(): Promise<void>;
}

/** A host's call in toolgate's terms: Gemini CLI's, Copilot CLI's and opencode's tools are the same acts as Claude Code's under other names (Codex shares Claude Code's). */
function toolgateCallIn(input: HostInput, readText: (file: string) => string | undefined, names: { mcpServers: readonly string[]; hasMeaning: (name: string) => boolean }): ToolgateCall {
  if (input.host === 'copilot') {
    // Its permission request for a file change carries the change as a diff.
    if (input.event === 'permissionRequest' && input.hostTool === 'edit' && typeof input.toolInput.diff === 'string') return copilotDiffAsWrite({ input: input.toolInput, cwd: input.cwd, readText });
    return toolgateCallOf({ ...copilotInClaudeTerms({ tool: input.hostTool, input: input.toolInput, cwd: input.cwd }), readText });
  }
  if (input.host === 'opencode') return toolgateCallOf({ ...opencodeInClaudeTerms({ tool: input.hostTool, input: input.toolInput, cwd: input.cwd, ...names }), readText });
  if (input.host === 'cursor') {
    // A file Cursor deletes (preToolUse's Delete): the fs delete it is.
    if (input.hostTool === 'Delete') return { kind: 'tool', tool: 'delete_file', args: { path: String(input.toolInput.file_path) } };
    // An MCP tool by its own name; one named like a tool of toolgate's or Claude Code's (a repository's server can name it so) by Cursor's name for it.
    if (input.hostTool.startsWith(CURSOR_MCP_PREFIX)) return { kind: 'tool', tool: ownToolName('cursor', input.hostTool.slice(CURSOR_MCP_PREFIX.length), names.hasMeaning), args: input.toolInput };
  }
  if (input.host !== 'gemini') return toolgateCallOf({ tool: input.hostTool, input: input.toolInput, cwd: input.cwd, readText });
  const mapped = geminiInClaudeTerms({ tool: input.hostTool, input: input.toolInput, cwd: input.cwd });
  return 'call' in mapped ? mapped.call : toolgateCallOf({ ...mapped, readText });
}

/**
 * The judge of host calls for one policy. The hook makes one per call; the
 * server one for all (its audit sink, memory and "approve always" given).
 * Throws on toolgate's own failures (a zone root that is gone): the hook
 * turns every throw into the host's blocking answer.
 *
 * @example
 * const judge = await createHostJudge({ loaded, env: process.env });
 * const verdict = await judge.decide(input, { by: 'host' });
 */
export async function createHostJudge(options: {
  loaded: LoadedPolicy;
  env: Readonly<Record<string, string | undefined>>;
  /** Where relative paths resolve: the host's working directory (the hook), else the policy's directory. */
  cwd?: string;
  mode?: RunMode;
  audit?: AuditSink;
  memory?: ApprovalMemory;
  always?: AlwaysApprovals;
  observer?: GateObserver;
  /** The program the hook was started as (a decider answers for hook processes other than itself); default this process's. */
  argv0?: string;
  /**
   * `toolgate replay`'s judge: nothing is recorded (no audit log, "approve
   * always" read but never written), and a repository's settings are read
   * once per directory, since nothing changes them while history is replayed.
   */
  replay?: boolean;
}): Promise<HostJudge> {
  const { loaded } = options;
  const options_ = options;
  // sandbox.hosts: wrap: the shell commands a host runs go into toolgate's OS sandbox, which the judgement then counts with.
  const wrapsHostCommands = loaded.policy.document.sandbox?.hosts === 'wrap';
  // bwrap from the system's folders, never the host's PATH: a folder of a zone on it (an activated .venv/bin) let an allowed
  // command put a "bwrap" there that ran every later command unconfined (found on review).
  const commandSandbox = wrapsHostCommands && options.replay !== true ? hostCommandSandbox({ loaded, env: options.env, bwrapPath: findExecutable({ name: 'bwrap', searchPath: SANDBOX_PATH }) ?? 'bwrap-not-found' }) : undefined;
  const { tools, zones } = await createBuiltinTools({
    loaded,
    cwd: options.cwd ?? loaded.directory,
    judgeOnly: true,
    env: options.env,
    ownExtra: hookInstallationPaths(options.argv0 === undefined ? {} : { argv0: options.argv0 }),
    ...(commandSandbox === undefined ? {} : { commandSandbox }),
  });
  const mcp = createMcpSimulation({ loaded, env: options.env });
  // What a host's own tool may not be judged as by its name alone (opencode-tools.ts): a tool of toolgate's.
  const meaningful = new Set([...tools, ...hostTools(loaded)].map((tool) => tool.name));
  // A name in an MCP server's namespace (`<namespace>__<tool>`) is that server's tool, once a host's call of it registered it: another
  // host's tool named so would inherit its rules (found on review).
  const names = { mcpServers: mcp.servers.map((server) => server.name), hasMeaning: (name: string) => meaningful.has(name) || mcp.servers.some((server) => name.startsWith(`${server.namespace}__`)) };
  const gate = createRuntimeGate({
    loaded,
    tools: [...tools, ...hostTools(loaded)],
    sections: [mcp.section],
    openWorld: true,
    memory: options.memory ?? createInMemoryApprovalMemory(),
    ...(options.mode === undefined ? {} : { mode: options.mode }),
    ...(options.audit === undefined ? {} : { audit: options.audit }),
    ...(options.always === undefined ? {} : { always: options.always }),
    ...(options.observer === undefined ? {} : { observer: options.observer }),
    ...(options.replay === true ? { simulate: true } : {}),
  });
  const { once, readTextFor } = createHostFileTexts({ zones, replay: options.replay === true });
  // The OS sandbox is looked for once per judge (a decider's judge answers many calls).
  const shellTool = tools.find((candidate): candidate is ShellTool => candidate.name === 'shell' && 'sandboxedCommand' in candidate);
  const { missingSandbox, wrapHostCommand } = createHostCommandWrapper({ loaded, env: options.env, replay: options.replay === true, shellTool, commandSandbox });
  return {
    async decide(input, asks) {
      const call: HostCall = {
        host: input.host,
        sessionId: input.sessionId,
        cwd: input.cwd,
        toolUseId: input.toolUseId,
        transcriptPath: input.transcriptPath,
        hostTool: input.hostTool,
        // Gemini CLI's tools are the same acts as Claude Code's under other names (Codex shares Claude Code's).
        call: toolgateCallIn(input, readTextFor(input.cwd), names),
      };
      let tool: string;
      let args: Record<string, unknown>;
      if (call.call.kind === 'mcp') {
        const { server, tool: upstream } = call.call;
        const config = mcp.servers.find((candidate) => candidate.name === server);
        // A server the policy does not name is judged by its public name alone (rules, unknown_tools).
        tool = config === undefined ? input.hostTool : `${config.namespace}__${upstream}`;
        args = call.call.args;
        const resolved = config === undefined ? undefined : mcp.resolve({ tool, server });
        if (resolved !== undefined && 'error' in resolved) throw new Error(resolved.error);
        // The same declaration for the same name every time: registering it again changes nothing for a call decided meanwhile.
        if (resolved !== undefined) gate.register(resolved.declaration);
      } else {
        ({ tool, args } = call.call);
      }
      // A decision is for exactly this call (call-identity.ts): remembered for the session, it holds only where and how it ran.
      const context: GateContext = { sessionId: `${input.host}:${input.sessionId}`, chatId: callScope(callIdentity(input)), caller: input.host };
      const callId = input.toolUseId ?? `${input.host}-call`;
      const options = asks.by === 'person' ? { approver: { ask: async () => asks.decision }, personDecides: true } : { approver: asks.by === 'host' ? null : createNonInteractiveApprover({ hint: asks.why }) };
      // The repository's own Claude Code settings, read once for this call.
      const repository = input.host === 'claude-code' ? once(`settings\u0000${input.cwd}`, () => claudeRepositorySettings({ cwd: input.cwd, env: options_.env })) : [];
      // A repository's own hook can answer with other arguments, which the host runs instead of the call judged here: nothing else is judged then.
      // sandbox.hosts: wrap with sandbox.fallback: fail_fast, and no OS sandbox here: as toolgate would refuse to start, every call is blocked.
      const unconfinable = wrapsHostCommands && loaded.policy.document.sandbox?.fallback === 'fail_fast' && options_.replay !== true ? await missingSandbox() : undefined;
      if (unconfinable !== undefined) {
        const why = `sandbox.hosts is wrap with sandbox.fallback fail_fast, but there is no OS sandbox here (${unconfinable}): every call is blocked, as toolgate would refuse to start`;
        return { ...verdictOf(await gate.authorize({ tool: HOST_SANDBOX_TOOL, args: { why }, callId }, context, options)), call };
      }
      const rewriters = once(`hooks\u0000${input.host}\u0000${input.hostTool}\u0000${input.cwd}`, () => repositoryHooks(input, options_.env, repository));
      if (rewriters.length > 0) {
        const rewritten = await gate.authorize({ tool: HOST_REWRITTEN_TOOL, args: { tool: input.hostTool, found: rewriters, host: input.host }, callId }, context, options);
        return { ...verdictOf(rewritten), call };
      }
      // Codex's apply_patch, through its shell tool or as its own tool: the files it changes, each judged as the fs change it is.
      const patch = input.host === 'codex' ? patchOf(tool, args) : (input.host === 'opencode' || input.host === 'cursor') && tool === HOST_PATCH_TOOL ? patchIn(String(args.patch)) : undefined;
      if (patch !== undefined) {
        tool = HOST_PATCH_TOOL;
        args = await patchArguments({ read: patch, cwd: input.cwd, judge: (change, index) => gate.authorize({ ...change, callId: `${callId}:patch-${index}` }, context, { approver: null }) });
      }
      let authorization =
        tool === HOST_SKILL_TOOL
          ? await gate.authorize({ tool, args: await skillArguments({ args, input, env: options_.env, judge: (command, index) => gate.authorize({ tool: 'shell', args: { command, cwd: input.cwd }, callId: `${callId}:inline-${index}` }, context, { approver: null }) }), callId }, context, options)
          : await gate.authorize({ tool, args, callId }, context, options);
      // The shell tool reads commands as bash does, and gives them an empty input: a host that runs them with zsh (or fish...) may run
      // something else, and one that lets the model type into a program (Codex) runs what nobody judged: then a person sees it.
      const concerns =
        tool === 'shell'
          ? [
              otherShellHazard(input.shell, String(args.command)),
              HOSTS_WITHOUT_INPUT_GATE.has(input.host) ? programReadingInput(String(args.command), { terminal: input.options?.tty === true }) : undefined,
              // A repository's own settings that give the session another PATH, shell or startup code: the command is not what runs.
              ...(input.host === 'claude-code' ? repositoryCommandEnvironment(repository).map((found) => `${found.file} sets ${found.key} (${found.detail})`) : []),
            ].filter((concern) => concern !== undefined)
          : [];
      const hazard = concerns.length === 0 ? undefined : concerns.join('; ');
      // Asked already (as bash reads it), it is asked as what it is: the card says which shell runs it and why that matters.
      // A person's decision answers this ask too: the call the person saw was this one.
      if (hazard !== undefined && (authorization.decision === 'allow' || authorization.decision === 'approved' || authorization.decision === 'ask')) {
        const why = authorization.decision === 'ask' ? `${hazard}; as bash reads it: ${authorization.reason}` : hazard;
        authorization = await gate.authorize({ tool: HOST_SHELL_TOOL, args: { command: args.command, shell: input.shell ?? 'a shell not known', why }, callId }, context, options);
      }
      // A host's search tool reads every file below its folder (Claude Code's Grep): one a zone hides there makes it ask.
      // Its `glob` only filters what it searches (and may name a hidden file, which rg then reads though git ignores it): the folder it searches is `path`.
      if (input.hostTool === 'Grep' && tool === 'list_dir' && (authorization.decision === 'allow' || authorization.decision === 'approved')) {
        const searched = typeof input.toolInput.path === 'string' && input.toolInput.path !== '' ? input.toolInput.path : input.cwd;
        const why = [searched, String(args.path)].map((target) => searchConcern({ target, cwd: input.cwd, subject: input.hostTool, zones })).find((concern) => concern !== undefined);
        if (why !== undefined) authorization = await gate.authorize({ tool: HOST_SEARCH_TOOL, args: { path: searched, pattern: input.toolInput.pattern, why }, callId }, context, options);
      }
      // sandbox.hosts: wrap — a shell command that may run runs inside toolgate's OS sandbox, made for this decision.
      let wrapped: Exclude<WrappedCommand, { why: string }> | undefined;
      if (wrapsHostCommands && tool === 'shell' && (authorization.decision === 'allow' || authorization.decision === 'approved' || authorization.decision === 'ask')) {
        // A command that asks runs only once a person approved it: its sandbox is an approved command's.
        const asked = authorization.decision !== 'allow';
        let wrapping = await wrapHostCommand({ input, command: String(args.command), cwd: String(args.cwd), authority: asked ? 'person' : 'policy' });
        if (!('why' in wrapping) && wrapping.asks !== undefined && !asked) {
          // Allowed by the policy, asked about for what wrapping changes: if approved, it runs with an approved command's sandbox.
          authorization = await gate.authorize({ tool: HOST_SHELL_TOOL, args: { command: args.command, shell: input.shell ?? 'a shell not known', why: wrapping.asks }, callId }, context, options);
          wrapping = await wrapHostCommand({ input, command: String(args.command), cwd: String(args.cwd), authority: 'person' });
        }
        if ('why' in wrapping) authorization = await gate.authorize({ tool: HOST_SANDBOX_TOOL, args: { command: args.command, why: wrapping.why }, callId }, context, options);
        else wrapped = wrapping;
      }
      const request = authorization.decision === 'ask' ? authorization.request : undefined;
      // A replay shows nobody a card: what "always" could cover is not worked out for it.
      const alwaysScopes = request === undefined || options_.replay === true ? [] : await gate.alwaysChoices({ tool: request.tool, args: authorization.args, callId }, request);
      const verdict = verdictOf(authorization);
      return {
        ...verdict,
        call,
        ...(alwaysScopes.length === 0 ? {} : { alwaysScopes }),
        ...(wrapped === undefined || verdict.decision === 'deny' ? {} : { updatedInput: wrapped.updatedInput, reason: `${verdict.reason}; ${wrapped.asks === undefined || authorization.decision !== 'ask' || verdict.reason.includes(wrapped.asks) ? '' : `${wrapped.asks}; `}${wrapped.note}` }),
      };
    },
    async judgeToolgateCall(call) {
      const resolved = mcp.resolve({ tool: call.tool, server: call.server, identity: call.identity });
      if (resolved !== undefined && 'error' in resolved) throw new Error(resolved.error);
      if (resolved !== undefined) gate.register(resolved.declaration);
      return gate.authorize({ tool: call.tool, args: call.args, callId: call.callId }, { sessionId: call.sessionId }, { approver: null });
    },
    close: () => gate.close(),
  };
}

/** The hooks of the repository's own settings that could change this call after it is judged (Claude Code's and Codex's updatedInput, Gemini CLI's tool_input). */
function repositoryHooks(input: HostInput, env: Readonly<Record<string, string | undefined>>, repository: RepositorySettings): Array<{ file: string; hooks: string[] }> {
  if (input.host === 'claude-code') return claudeRepositoryHooks({ repository, tool: input.hostTool, projectDirectory: env.CLAUDE_PROJECT_DIR ?? input.cwd });
  if (input.host === 'codex') return codexRepositoryHooks({ cwd: input.cwd, env, tool: input.hostTool });
  if (input.host === 'opencode') return opencodeRepositoryCode({ cwd: input.cwd, env }).map((found) => ({ file: found.file, hooks: [found.what] }));
  if (input.host !== 'gemini') return [];
  const hooks = geminiRepositoryHooks({ cwd: input.cwd, tool: input.hostTool });
  return hooks.length === 0 ? [] : [{ file: path.join(input.cwd, '.gemini', 'settings.json'), hooks }];
}

/** The patch a Codex call applies: its shell tool given exactly the apply_patch command, or an apply_patch call of its own. */
function patchOf(tool: string, args: Record<string, unknown>): PatchCommand | { problem: string } | undefined {
  if (tool === 'shell') return readPatchCommand(String(args.command));
  if (tool !== HOST_PATCH_TOOL) return undefined;
  const text = [args.input, args.command, args.patch].find((value) => typeof value === 'string') as string | undefined;
  if (text === undefined) return { problem: 'the apply_patch call carries no patch text (input, command or patch)' };
  return readPatchCommand(text) ?? patchIn(text);
}

/** A patch's text as the patch it is, applied where the session is (opencode's apply_patch: no command form, no other directory). */
function patchIn(text: string): PatchCommand | { problem: string } {
  const parsed = parsePatch(text);
  return 'problem' in parsed ? parsed : { patch: text, operations: parsed.operations };
}

/**
 * A patch's arguments for the `apply_patch` declaration (host-tools.ts):
 * every file it changes, judged as the fs call it is (an added or updated
 * file as a write of it, a deleted one as a delete, a moved one as the move
 * and the write at its new place), paths resolved where the patch runs. The
 * first change blocked blocks the patch; the ones that ask make it ask.
 */
async function patchArguments(options: { read: PatchCommand | { problem: string }; cwd: string; judge: (change: { tool: string; args: Record<string, unknown> }, index: number) => Promise<Authorization> }): Promise<Record<string, unknown>> {
  const { read } = options;
  if ('problem' in read) return { problem: read.problem };
  const where = read.directory === undefined ? options.cwd : path.resolve(options.cwd, read.directory);
  const at = (file: string) => path.resolve(where, file);
  const base = { files: describePatch(read.operations), patch: read.patch };
  const changes = read.operations.flatMap((operation): Array<{ tool: string; args: Record<string, unknown>; shown: string }> => {
    if (operation.kind === 'add') return [{ tool: 'write_file', args: { path: at(operation.path), content: operation.content }, shown: `adds ${operation.path}` }];
    if (operation.kind === 'delete') return [{ tool: 'delete_file', args: { path: at(operation.path) }, shown: `deletes ${operation.path}` }];
    if (operation.moveTo === undefined) return [{ tool: 'write_file', args: { path: at(operation.path), content: operation.hunks }, shown: `changes ${operation.path}` }];
    return [
      { tool: 'move_file', args: { source: at(operation.path), destination: at(operation.moveTo) }, shown: `moves ${operation.path} to ${operation.moveTo}` },
      { tool: 'write_file', args: { path: at(operation.moveTo), content: operation.hunks }, shown: `changes ${operation.moveTo}` },
    ];
  });
  const asks: string[] = [];
  for (const [index, change] of changes.entries()) {
    const verdict = await options.judge({ tool: change.tool, args: change.args }, index);
    if (verdict.decision === 'block' || verdict.decision === 'denied') return { ...base, blocked: `${change.shown}: ${verdict.reason}` };
    if (verdict.decision === 'ask') asks.push(`${change.shown}: ${verdict.request?.description ?? verdict.reason}`);
  }
  return { ...base, asks };
}

function verdictOf(authorization: Authorization): Omit<HostVerdict, 'call'> {
  switch (authorization.decision) {
    case 'allow':
    case 'approved':
      return { decision: 'allow', reason: authorization.reason, authorization };
    case 'ask':
      return { decision: 'ask', reason: authorization.request?.description ?? authorization.reason, authorization };
    default:
      return { decision: 'deny', reason: authorization.reason, authorization };
  }
}

/**
 * A skill call's arguments for the `skill` declaration (host-tools.ts): the
 * files Claude Code could load for it and the inline commands they run,
 * each judged by the shell analysis (and the host's shell) as a shell call
 * in the call's directory: the first one blocked blocks the skill; the ones
 * that ask, or that their shell reads otherwise than bash, make it ask.
 */
async function skillArguments(options: {
  args: Record<string, unknown>;
  input: HostInput;
  env: Readonly<Record<string, string | undefined>>;
  judge: (command: string, index: number) => Promise<Authorization>;
}): Promise<Record<string, unknown>> {
  const { args, input } = options;
  const resolved = resolveSkill({ name: args.skill, args: args.args, cwd: input.cwd, env: options.env });
  if ('problem' in resolved) return { skill: String(args.skill), problem: resolved.problem };
  const base = { skill: resolved.name, ...(args.args === undefined ? {} : { args: args.args }), files: resolved.files, commands: resolved.commands };
  const asks: string[] = [];
  for (const [index, command] of resolved.commands.entries()) {
    const verdict = await options.judge(command, index);
    if (verdict.decision === 'block' || verdict.decision === 'denied') return { ...base, blocked: `\`${command}\`: ${verdict.reason}` };
    // A skill's `shell: bash` is Claude Code's default (the user's shell); any other it names runs the commands instead.
    const hazard = otherShellHazard(resolved.shell === undefined || resolved.shell === 'bash' ? input.shell : resolved.shell, command);
    if (hazard !== undefined) asks.push(`\`${command}\`: ${hazard}`);
    else if (verdict.decision === 'ask') asks.push(`\`${command}\`: ${verdict.reason}`);
  }
  return { ...base, asks };
}
