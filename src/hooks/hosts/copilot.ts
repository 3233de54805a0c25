/**
 * GitHub Copilot CLI (`@github/copilot`, measured with 1.0.102): a
 * `preToolUse` command hook in a hooks file of `$COPILOT_HOME/hooks/` (it
 * ignores a repository's `.github/hooks` when run with `-p`). Its input is
 * camelCase, `{sessionId, timestamp, cwd, toolName, toolArgs}`; its answer
 * is Claude Code's, `{"permissionDecision": "allow" | "deny" | "ask",
 * "permissionDecisionReason"}` on stdout. It asks its user on "ask" (with
 * `-p`, it denies, saying it could not ask). It waits 30 s unless
 * `timeoutSec` says otherwise, and then runs the call, as it does for an
 * answer it cannot read; a hook that crashes or exits 2 blocks (the reason
 * on stderr does not reach the model). So every failure of toolgate's own
 * is a denial it prints, with the reason, and exits 2 besides.
 *
 * Its `permissionRequest` hook (the same command, in the same file) is
 * asked in place of Copilot CLI's own prompt: for a call that needs a
 * permission it was not given (run without `--allow-all-tools`), and,
 * `--allow-all-tools` or not, for a call whose preToolUse hook timed out or
 * answered what Copilot CLI cannot read, which it would otherwise run: so
 * toolgate decides the call after all. After a preToolUse hook that
 * answered, it does not fire. Its input is
 * `{hookName: "permissionRequest", sessionId, timestamp, cwd, toolName,
 * toolInput, permissionSuggestions}` (bash's input is `{command}`; a file
 * created or edited is `edit` with `{file_path, diff}`); its answer
 * `{"behavior": "allow"}` or `{"behavior": "deny", "message"}`, the message
 * reaching the model. Anything else it reads as a denial (a crash, a
 * timeout, an answer it cannot read), but `{}` leaves the call to its own
 * prompt, which with `--allow-all-tools` runs it: toolgate never answers
 * so. It runs no changed input.
 */
import { sanitizeTerminalText } from '../../core/sanitize-terminal-text.ts';
import { absoluteDirectory, describe, HostInputError, textField } from '../host-call.ts';
import { objectIn, onPath, type HookAnswer, type HostDialect, type HostInput } from '../host-dialect.ts';

export const copilot: HostDialect = {
  name: 'copilot',
  title: 'GitHub Copilot CLI',
  defaultBudgetMs: 30_000,
  asksItsUser: true,
  read: readPreToolUse,
  // Its bash tool runs bash, found on PATH.
  detailsOf: (_input, env) => ({ shell: onPath('bash', env.PATH) }),
  // Only after preToolUse does it run the arguments the hook hands back (the judge asks this dialect for either event's call).
  takesChangedInput: (input) => input.event === undefined,
  answer: (verdict) => preToolUseAnswer(verdict.decision, `toolgate: ${verdict.reason}`, 0, verdict.updatedInput),
  decisionIn: (answer) => {
    const { permissionDecision: decision, permissionDecisionReason: reason, modifiedArgs } = (typeof answer === 'object' && answer !== null ? answer : {}) as Record<string, unknown>;
    return (decision === 'allow' || decision === 'deny' || decision === 'ask') && typeof reason === 'string' ? { decision, reason, ...objectIn(modifiedArgs) } : undefined;
  },
  // Exit 2 blocks whatever it printed; the denial printed too is what the model is told, where Copilot CLI reads it.
  fail: (reason) => ({ ...preToolUseAnswer('deny', `toolgate: ${reason}`, 2), stderr: `${sanitizeTerminalText(`toolgate: ${reason}`, { collapse: true })}\n` }),
  forEvent: (input) => (isPermissionRequest(input) ? copilotPermissionRequest : copilot),
};

/** Copilot CLI's permissionRequest hook: toolgate's decision in place of its own prompt. */
export const copilotPermissionRequest: HostDialect = {
  ...copilot,
  // Never left to its prompt: `{}` does that, and with --allow-all-tools, after a preToolUse hook that failed, Copilot CLI runs
  // the call then without asking anyone (measured with 1.0.102; found on review). What the policy asks about is denied, saying
  // so, or waits in the inbox (--approver server).
  asksItsUser: false,
  read: readPermissionRequest,
  answer: (verdict) => permissionRequestAnswer(verdict.decision === 'ask' ? 'deny' : verdict.decision, `toolgate: ${verdict.reason}`, 0),
  decisionIn: (answer) => {
    const { behavior, message } = (typeof answer === 'object' && answer !== null ? answer : {}) as Record<string, unknown>;
    if (behavior === 'allow') return { decision: 'allow', reason: typeof message === 'string' ? message : 'allowed' };
    if (behavior === 'deny' && typeof message === 'string') return { decision: 'deny', reason: message };
    return undefined;
  },
  // Measured: exit 2 with a denial printed blocks the call, and the message reaches the model.
  fail: (reason) => ({ ...permissionRequestAnswer('deny', `toolgate: ${reason}`, 2), stderr: `${sanitizeTerminalText(`toolgate: ${reason}`, { collapse: true })}\n` }),
};

function isPermissionRequest(input: unknown): boolean {
  return typeof input === 'object' && input !== null && (input as Record<string, unknown>).hookName === 'permissionRequest';
}

/** `{sessionId, timestamp, cwd, toolName, toolArgs}`, toolArgs an object (or its JSON). */
function readPreToolUse(input: unknown): HostInput {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw new HostInputError(`expected the JSON object GitHub Copilot CLI sends its preToolUse hook, not ${describe(input)}`);
  const record = input as Record<string, unknown>;
  if (record.toolArgs === undefined && (record.hookName !== undefined || record.hook_event_name !== undefined)) {
    throw new HostInputError(`this is Copilot CLI's ${JSON.stringify(record.hookName ?? record.hook_event_name)} input: toolgate hook copilot answers preToolUse and permissionRequest (configure it under hooks.preToolUse and hooks.permissionRequest)`);
  }
  return callOf(record, record.toolArgs, 'toolArgs');
}

/** `{hookName: "permissionRequest", sessionId, timestamp, cwd, toolName, toolInput, permissionSuggestions}`. */
function readPermissionRequest(input: unknown): HostInput {
  if (!isPermissionRequest(input)) throw new HostInputError(`expected the JSON object GitHub Copilot CLI sends its permissionRequest hook, not ${describe(input)}`);
  const record = input as Record<string, unknown>;
  return { ...callOf(record, record.toolInput, 'toolInput'), event: 'permissionRequest' };
}

/** The call of either event's input: its tool's arguments an object (or its JSON). */
function callOf(record: Record<string, unknown>, args: unknown, key: string): HostInput {
  const field = (name: string): string => textField(record, name);
  let toolArgs = args;
  if (typeof toolArgs === 'string') {
    try {
      toolArgs = JSON.parse(toolArgs);
    } catch {
      throw new HostInputError(`${key} is a string that is not JSON`);
    }
  }
  if (typeof toolArgs !== 'object' || toolArgs === null || Array.isArray(toolArgs)) throw new HostInputError(`${key} must be a JSON object, not ${describe(toolArgs)}`);
  return {
    host: 'copilot',
    sessionId: field('sessionId'),
    cwd: absoluteDirectory(record.cwd, 'cwd'),
    toolUseId: undefined,
    transcriptPath: undefined,
    hostTool: field('toolName'),
    toolInput: toolArgs as Record<string, unknown>,
    // Sent by `toolgate hook copilot --approver server`, which knows the host's environment.
    ...(typeof record.toolgate_shell === 'string' ? { shell: record.toolgate_shell } : {}),
  };
}


/** `{permissionDecision, permissionDecisionReason}`, and the arguments Copilot CLI runs the call with instead (`modifiedArgs`: `sandbox.hosts: wrap`). */
function preToolUseAnswer(decision: 'allow' | 'deny' | 'ask', reason: string, exitCode: number, modifiedArgs?: Record<string, unknown>): HookAnswer {
  // The reason quotes the call (a model wrote it), and Copilot CLI shows it in a terminal: every control, escape and bidi character written out inert.
  const changed = modifiedArgs === undefined || decision === 'deny' ? {} : { modifiedArgs };
  return { stdout: `${JSON.stringify({ permissionDecision: decision, permissionDecisionReason: sanitizeTerminalText(reason, { collapse: true }), ...changed })}\n`, stderr: '', exitCode };
}

/** `{"behavior": "allow"}` or `{"behavior": "deny", "message"}` (never `{}`, which leaves the call to Copilot CLI). */
function permissionRequestAnswer(decision: 'allow' | 'deny', reason: string, exitCode: number): HookAnswer {
  // The message quotes the call (a model wrote it), and Copilot CLI shows it in a terminal.
  const answer = decision === 'allow' ? { behavior: 'allow' } : { behavior: 'deny', message: sanitizeTerminalText(reason, { collapse: true }) };
  return { stdout: `${JSON.stringify(answer)}\n`, stderr: '', exitCode };
}
