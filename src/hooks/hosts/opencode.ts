/**
 * opencode (`opencode-ai`, measured with 1.18.33) has no command hook: a
 * plugin of toolgate's (opencode-plugin.ts, which `toolgate install
 * opencode` writes to its plugins folder) hands each call, from opencode's
 * `tool.execute.before`, to `toolgate hook opencode` as
 * `{event: "tool.execute.before", tool, sessionID, callID, args, directory,
 * worktree}` on stdin, and reads `{"decision": "allow" | "deny",
 * "reason"}` from its stdout. The plugin runs the call on "allow" alone;
 * anything else — a denial, no answer, an answer it cannot read, the hook
 * killed or past its timeout — it throws, which blocks the call and gives
 * the model the message. opencode cannot ask its user from there: what the
 * policy would ask about is denied with the reason, or, with
 * `--approver server`, waits for a person in the inbox.
 */
import { sanitizeTerminalText } from '../../core/sanitize-terminal-text.ts';
import { absoluteDirectory, describe, HostInputError, textField } from '../host-call.ts';
import { objectIn, type HookAnswer, type HostDialect, type HostInput } from '../host-dialect.ts';
import { opencodeShell } from '../opencode-settings-layers.ts';

export const OPENCODE_EVENT = 'tool.execute.before';

export const opencode: HostDialect = {
  name: 'opencode',
  title: 'opencode',
  // The plugin waits as long as its entry says (toolgate install writes the hook's timeout there).
  defaultBudgetMs: 600_000,
  takesChangedInput: true,
  asksItsUser: false,
  read: readToolExecuteBefore,
  detailsOf: (_input, env) => ({ shell: opencodeShell(env) }),
  answer: (verdict) => decisionAnswer(verdict.decision === 'allow' ? 'allow' : 'deny', `toolgate: ${verdict.reason}`, 0, verdict.updatedInput),
  decisionIn: (answer) => {
    const { decision, reason, args } = (typeof answer === 'object' && answer !== null ? answer : {}) as Record<string, unknown>;
    return (decision === 'allow' || decision === 'deny') && typeof reason === 'string' ? { decision, reason, ...objectIn(args) } : undefined;
  },
  fail: (reason) => ({ ...decisionAnswer('deny', `toolgate: ${reason}`, 2), stderr: `${sanitizeTerminalText(`toolgate: ${reason}`, { collapse: true })}\n` }),
};

/** `{event, tool, sessionID, callID, args, directory, worktree}`, as toolgate's plugin sends it. */
function readToolExecuteBefore(input: unknown): HostInput {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw new HostInputError(`expected the JSON object toolgate's opencode plugin sends, not ${describe(input)}`);
  const record = input as Record<string, unknown>;
  if (record.event !== OPENCODE_EVENT) throw new HostInputError(`event is ${JSON.stringify(record.event)}: toolgate hook opencode answers ${OPENCODE_EVENT} only, as toolgate's plugin sends it (toolgate install opencode)`);
  const field = (key: string): string => textField(record, key);
  const args = record.args;
  if (typeof args !== 'object' || args === null || Array.isArray(args)) throw new HostInputError(`args must be a JSON object, not ${describe(args)}`);
  return {
    host: 'opencode',
    sessionId: field('sessionID'),
    cwd: absoluteDirectory(record.directory, 'directory'),
    toolUseId: typeof record.callID === 'string' && record.callID !== '' ? record.callID : undefined,
    transcriptPath: undefined,
    hostTool: field('tool'),
    toolInput: args as Record<string, unknown>,
    // Sent by `toolgate hook opencode --approver server`, which knows the host's environment.
    ...(typeof record.toolgate_shell === 'string' ? { shell: record.toolgate_shell } : {}),
  };
}

/** `{decision, reason}`, and `args` the plugin runs the call with instead (`sandbox.hosts: wrap`) on an allow. */
function decisionAnswer(decision: 'allow' | 'deny', reason: string, exitCode: number, args?: Record<string, unknown>): HookAnswer {
  // The reason quotes the call (a model wrote it), and opencode shows it in a terminal: every control, escape and bidi character written out inert.
  const changed = args === undefined || decision !== 'allow' ? {} : { args };
  return { stdout: `${JSON.stringify({ decision, reason: sanitizeTerminalText(reason, { collapse: true }), ...changed })}\n`, stderr: '', exitCode };
}
