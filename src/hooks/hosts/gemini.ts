/**
 * Gemini CLI (`@google/gemini-cli`, measured with 0.61): a `BeforeTool`
 * command hook in `.gemini/settings.json` (or `~/.gemini/settings.json`),
 * with `hooksConfig.enabled`. Its input is Claude Code's, renamed
 * (`hook_event_name: "BeforeTool"`, no tool-use id); its answer is
 * `{"decision": "allow" | "deny", "reason"}` on stdout, the reason sent to
 * the model as the tool's error. It waits 60 s unless `timeout` (ms) says
 * otherwise. It runs the call when its hook crashes, times out or prints
 * what it cannot read, and "ask" is no decision it has (headless, the turn
 * just ends, saying nothing): so toolgate never answers "ask" — a call that
 * needs a person is denied, saying how to get it approved — and every
 * failure of toolgate's own exits 2, which it always enforces.
 */
import { sanitizeTerminalText } from '../../core/sanitize-terminal-text.ts';
import { absoluteDirectory, describe, HostInputError, textField } from '../host-call.ts';
import { objectIn, blockingExit, onPath, type HookAnswer, type HostDialect, type HostInput } from '../host-dialect.ts';

export const gemini: HostDialect = {
  name: 'gemini',
  title: 'Gemini CLI',
  defaultBudgetMs: 60_000,
  takesChangedInput: true,
  asksItsUser: false,
  read: readBeforeTool,
  // run_shell_command runs `bash -c COMMAND`, bash found on PATH, on every system but Windows (PowerShell: not judged as bash).
  detailsOf: (_input, env) => ({ shell: process.platform === 'win32' ? 'powershell' : onPath('bash', env.PATH) }),
  answer: (verdict) => beforeToolAnswer(verdict.decision === 'allow' ? 'allow' : 'deny', `toolgate: ${verdict.reason}`, verdict.updatedInput),
  decisionIn: (answer) => {
    const { decision, reason, hookSpecificOutput } = (typeof answer === 'object' && answer !== null ? answer : {}) as Record<string, unknown>;
    const changed = objectIn((hookSpecificOutput as { tool_input?: unknown } | undefined)?.tool_input);
    return (decision === 'allow' || decision === 'deny') && typeof reason === 'string' ? { decision, reason, ...changed } : undefined;
  },
  fail: (reason) => blockingExit(`toolgate: ${reason}`),
};

/** `{session_id, transcript_path, cwd, hook_event_name: "BeforeTool", timestamp, tool_name, tool_input, mcp_context?}`. */
function readBeforeTool(input: unknown): HostInput {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw new HostInputError(`expected the JSON object Gemini CLI sends its BeforeTool hook, not ${describe(input)}`);
  const record = input as Record<string, unknown>;
  if (record.hook_event_name !== 'BeforeTool') {
    throw new HostInputError(`hook_event_name is ${JSON.stringify(record.hook_event_name)}: toolgate hook gemini answers BeforeTool only (configure it under hooks.BeforeTool)`);
  }
  const field = (key: string): string => textField(record, key);
  const toolInput = record.tool_input;
  if (typeof toolInput !== 'object' || toolInput === null || Array.isArray(toolInput)) throw new HostInputError(`tool_input must be a JSON object, not ${describe(toolInput)}`);
  const tool = field('tool_name');
  return {
    host: 'gemini',
    sessionId: field('session_id'),
    cwd: absoluteDirectory(record.cwd, 'cwd'),
    toolUseId: undefined,
    // Empty where Gemini CLI records no chat (a full disk, recording off).
    transcriptPath: record.transcript_path === undefined || record.transcript_path === null || record.transcript_path === '' ? undefined : field('transcript_path'),
    // An MCP tool is `mcp_<server>_<tool>`, which cannot be split where names hold `_`: named as Claude Code names them,
    // from the server and tool Gemini CLI gives beside it.
    hostTool: mcpName(tool, record.mcp_context) ?? tool,
    toolInput: toolInput as Record<string, unknown>,
    // Sent by `toolgate hook gemini --approver server`, which knows the host's environment (as for PreToolUse hosts).
    ...(typeof record.toolgate_shell === 'string' ? { shell: record.toolgate_shell } : {}),
    ...(typeof record.toolgate_last_user_message === 'string' ? { lastUserMessage: record.toolgate_last_user_message.slice(0, 1000) } : {}),
  };
}

function mcpName(tool: string, context: unknown): string | undefined {
  if (!tool.startsWith('mcp_')) return undefined;
  const { server_name: server, tool_name: name } = (typeof context === 'object' && context !== null ? context : {}) as Record<string, unknown>;
  if (typeof server !== 'string' || typeof name !== 'string' || server === '' || name === '') {
    throw new HostInputError(`${tool} looks like an MCP tool, but mcp_context does not name its server and tool: toolgate cannot tell which server's rules apply`);
  }
  return `mcp__${server}__${name}`;
}


/** `{decision, reason}`, and on an allow the input Gemini CLI runs instead (`hookSpecificOutput.tool_input`: `sandbox.hosts: wrap`). */
function beforeToolAnswer(decision: 'allow' | 'deny', reason: string, toolInput?: Record<string, unknown>): HookAnswer {
  // The reason quotes the call (a model wrote it), and Gemini CLI shows it in a terminal: every control, escape and bidi character written out inert.
  const changed = toolInput === undefined || decision !== 'allow' ? {} : { hookSpecificOutput: { hookEventName: 'BeforeTool', tool_input: toolInput } };
  return { stdout: `${JSON.stringify({ decision, reason: sanitizeTerminalText(reason, { collapse: true }), ...changed })}\n`, stderr: '', exitCode: 0 };
}
