/**
 * Cursor's agent hooks, in the shapes its documentation gives (no Cursor
 * runs here): `beforeShellExecution` (`{command, cwd}`),
 * `beforeMCPExecution` (`{tool_name, tool_input}` as JSON text, with the
 * server's `url` or `command`) and `beforeReadFile` (`{file_path,
 * content}`), each with the common `{conversation_id, generation_id,
 * hook_event_name, workspace_roots, user_email, ...}`; the answer is
 * `{"permission": "allow" | "deny" | "ask", "user_message",
 * "agent_message"}` — a file read has no "ask", so one the policy would ask
 * about is denied, saying so. Exit 2 denies. A hook that fails otherwise
 * lets the action proceed unless its entry says `"failClosed": true`, which
 * `toolgate install cursor` would write; every failure of toolgate's own
 * prints a denial and exits 2 besides.
 *
 * Its file changes reach a hook only through `preToolUse` (`{tool_name,
 * tool_input, tool_use_id, cwd, ...}`, `cwd` often empty), which toolgate's
 * entry matches to them alone (`CURSOR_FILE_TOOLS`): its shell, reads and
 * MCP tools fire it too, beside their own events, and would be judged twice.
 * Cursor names them `Write` (`{file_path, content}`), `StrReplace`
 * (`{file_path, old_string, new_string}`), `Delete` and `ApplyPatch`; the
 * field names are read as its documentation and captured payloads give them
 * (`file_path`, or `path`; `content`, or `contents`), and a shape none of
 * them has is refused. It has no "ask" there (its documentation: accepted,
 * not enforced), so what the policy would ask about is denied, saying so.
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import { sanitizeTerminalText } from '../../core/sanitize-terminal-text.ts';
import { absoluteDirectory, describe, HOST_PATCH_TOOL, HostInputError, textField } from '../host-call.ts';
import { loginShell, type HookAnswer, type HostDialect, type HostInput } from '../host-dialect.ts';

/** The events whose answer Cursor enforces before an action, by the tool toolgate judges each as. */
const EVENTS = { beforeShellExecution: 'Bash', beforeReadFile: 'Read', beforeMCPExecution: 'mcp', preToolUse: 'any' } as const;

/** Cursor's tools that change files: what toolgate's preToolUse entry matches (its `matcher`, a pattern of tool names). */
export const CURSOR_FILE_TOOLS = ['Write', 'StrReplace', 'Delete', 'ApplyPatch'] as const;

/** An MCP tool as toolgate names the call of a Cursor MCP tool: `MCP:<tool>`, Cursor's own name for it in preToolUse. */
export const CURSOR_MCP_PREFIX = 'MCP:';

export const cursor: HostDialect = {
  name: 'cursor',
  title: 'Cursor',
  defaultBudgetMs: 30_000,
  // beforeShellExecution's answer has no changed command.
  takesChangedInput: false,
  // Shell commands and MCP tools can ask the person in Cursor; a file read cannot, nor anything through preToolUse.
  asksItsUser: (input) => input.hostTool !== 'Read' && input.event !== 'preToolUse',
  read: readCursorHook,
  // Cursor runs the agent's commands in the user's shell.
  detailsOf: (_input, env) => ({ shell: nonEmpty(env.SHELL) ?? loginShell() }),
  answer: (verdict) => permissionAnswer(verdict.decision, `toolgate: ${verdict.reason}`, 0),
  decisionIn: (answer) => {
    const { permission, agent_message: reason } = (typeof answer === 'object' && answer !== null ? answer : {}) as Record<string, unknown>;
    return (permission === 'allow' || permission === 'deny' || permission === 'ask') && typeof reason === 'string' ? { decision: permission, reason } : undefined;
  },
  // Exit 2 denies whatever it printed; the denial printed too says why.
  fail: (reason) => ({ ...permissionAnswer('deny', `toolgate: ${reason}`, 2), stderr: `${sanitizeTerminalText(`toolgate: ${reason}`, { collapse: true })}\n` }),
};

function readCursorHook(input: unknown): HostInput {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw new HostInputError(`expected the JSON object Cursor sends its hooks, not ${describe(input)}`);
  const record = input as Record<string, unknown>;
  const event = record.hook_event_name;
  if (typeof event !== 'string' || !Object.hasOwn(EVENTS, event)) {
    throw new HostInputError(`hook_event_name is ${JSON.stringify(event)}: toolgate hook cursor answers ${Object.keys(EVENTS).join(', ')} (configure it under those in hooks.json)`);
  }
  const field = (key: string): string => textField(record, key);
  const roots = record.workspace_roots;
  const root = Array.isArray(roots) && typeof roots[0] === 'string' ? roots[0] : undefined;
  // A shell command runs in its cwd; a read or an MCP tool, in the workspace's first root; preToolUse's call in its cwd, where it gives one.
  const hasCwd = (event === 'beforeShellExecution' || event === 'preToolUse') && record.cwd !== undefined && record.cwd !== null && record.cwd !== '';
  const cwd = absoluteDirectory(hasCwd ? record.cwd : root, hasCwd ? 'cwd' : 'workspace_roots[0]');
  const common = {
    host: 'cursor' as const,
    sessionId: field('conversation_id'),
    cwd,
    toolUseId: undefined,
    transcriptPath: typeof record.transcript_path === 'string' && record.transcript_path !== '' ? record.transcript_path : undefined,
    // Sent by `toolgate hook cursor --approver server`, which knows the host's environment.
    ...(typeof record.toolgate_shell === 'string' ? { shell: record.toolgate_shell } : {}),
  };
  if (event === 'beforeShellExecution') return { ...common, hostTool: 'Bash', toolInput: { command: field('command') } };
  if (event === 'beforeReadFile') return { ...common, hostTool: 'Read', toolInput: { file_path: field('file_path') } };
  let toolInput = record.tool_input;
  if (typeof toolInput === 'string') {
    try {
      toolInput = toolInput === '' ? {} : JSON.parse(toolInput);
    } catch {
      throw new HostInputError('tool_input is text that is not JSON');
    }
  }
  if (typeof toolInput !== 'object' || toolInput === null || Array.isArray(toolInput)) throw new HostInputError(`tool_input must be a JSON object (or its text), not ${describe(toolInput)}`);
  const args = toolInput as Record<string, unknown>;
  // An MCP tool: Cursor names the tool and the server's url or command, not the server's name in mcp.servers, so it is
  // judged by the tool's own name (the policy's tools rules, then unknown_tools), its arguments as Cursor gives them.
  if (event === 'beforeMCPExecution') return { ...common, hostTool: `${CURSOR_MCP_PREFIX}${field('tool_name')}`, toolInput: args };
  return { ...common, event: 'preToolUse', ...cursorToolInClaudeTerms(field('tool_name'), args, cwd) };
}

/**
 * A call of preToolUse in the terms toolgate judges Claude Code's by: a
 * file written, edited, deleted or patched; a command, a read, an MCP tool
 * (where a matcher of the user's sends them); anything else by its name.
 */
function cursorToolInClaudeTerms(tool: string, input: Record<string, unknown>, cwd: string): { hostTool: string; toolInput: Record<string, unknown>; cwd?: string } {
  const text = (...keys: string[]): string => {
    const present = keys.filter((candidate) => input[candidate] !== undefined);
    // Both names of one field: which one Cursor acts on is not known, so neither is judged (found on review).
    if (present.length > 1) throw new HostInputError(`${tool}'s input carries both ${present.join(' and ')}: which one Cursor acts on is not known`);
    const key = present[0];
    const value = key === undefined ? undefined : input[key];
    if (typeof value !== 'string') throw new HostInputError(`${tool}'s ${keys.join(' (or ')}${keys.length > 1 ? ')' : ''} must be a string, not ${describe(value)}`);
    return value;
  };
  const file = (): string => path.resolve(cwd, text('file_path', 'path'));
  if (tool.startsWith(CURSOR_MCP_PREFIX)) return { hostTool: tool, toolInput: input };
  switch (tool) {
    case 'Write':
      return { hostTool: 'Write', toolInput: { file_path: file(), content: text('content', 'contents') } };
    case 'StrReplace':
      return { hostTool: 'Edit', toolInput: { file_path: file(), old_string: text('old_string'), new_string: text('new_string'), replace_all: input.replace_all === true } };
    case 'Delete': {
      // A file: toolgate judges deletes of files, and a folder's would take what it holds, unjudged (found on review).
      const target = file();
      if (statSync(target, { throwIfNoEntry: false })?.isDirectory() === true) throw new HostInputError(`Delete of a folder (${target}): toolgate judges the deletes of files, not of what a folder holds`);
      return { hostTool: 'Delete', toolInput: { file_path: target } };
    }
    case 'ApplyPatch':
      return { hostTool: HOST_PATCH_TOOL, toolInput: { patch: text('patch', 'input') } };
    case 'Shell': {
      // Run where its input says (captured: `cwd`, often empty; documented: `working_directory`); two different ones are refused.
      const named = [input.cwd, input.working_directory].filter((value) => value !== undefined && value !== '');
      if (new Set(named).size > 1) throw new HostInputError(`Shell's input carries both cwd and working_directory: which one Cursor runs it in is not known`);
      const where = named[0];
      if (where !== undefined && typeof where !== 'string') throw new HostInputError(`Shell's cwd must be a string, not ${describe(where)}`);
      return { hostTool: 'Bash', toolInput: { command: text('command') }, ...(where === undefined ? {} : { cwd: absoluteDirectory(path.resolve(cwd, where), 'tool_input.cwd') }) };
    }
    case 'Read':
      return { hostTool: 'Read', toolInput: { file_path: file() } };
    default:
      return { hostTool: tool, toolInput: input };
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

function permissionAnswer(decision: 'allow' | 'deny' | 'ask', reason: string, exitCode: number): HookAnswer {
  // The reason quotes the call (a model wrote it), and Cursor shows it: every control, escape and bidi character written out inert.
  const said = sanitizeTerminalText(reason, { collapse: true });
  return { stdout: `${JSON.stringify({ permission: decision, user_message: said, agent_message: said })}\n`, stderr: '', exitCode };
}
