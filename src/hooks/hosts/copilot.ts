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
 */
import { sanitizeTerminalText } from '../../core/sanitize-terminal-text.ts';
import { absoluteDirectory, describe, HostInputError, textField } from '../host-call.ts';
import { objectIn, onPath, type HookAnswer, type HostDialect, type HostInput } from '../host-dialect.ts';

export const copilot: HostDialect = {
  name: 'copilot',
  title: 'GitHub Copilot CLI',
  defaultBudgetMs: 30_000,
  asksItsUser: true,
  takesChangedInput: true,
  read: readPreToolUse,
  // Its bash tool runs bash, found on PATH.
  detailsOf: (_input, env) => ({ shell: onPath('bash', env.PATH) }),
  answer: (verdict) => preToolUseAnswer(verdict.decision, `toolgate: ${verdict.reason}`, 0, verdict.updatedInput),
  decisionIn: (answer) => {
    const { permissionDecision: decision, permissionDecisionReason: reason, modifiedArgs } = (typeof answer === 'object' && answer !== null ? answer : {}) as Record<string, unknown>;
    return (decision === 'allow' || decision === 'deny' || decision === 'ask') && typeof reason === 'string' ? { decision, reason, ...objectIn(modifiedArgs) } : undefined;
  },
  // Exit 2 blocks whatever it printed; the denial printed too is what the model is told, where Copilot CLI reads it.
  fail: (reason) => ({ ...preToolUseAnswer('deny', `toolgate: ${reason}`, 2), stderr: `${sanitizeTerminalText(`toolgate: ${reason}`, { collapse: true })}\n` }),
};

/** `{sessionId, timestamp, cwd, toolName, toolArgs}`, toolArgs an object (or its JSON). */
function readPreToolUse(input: unknown): HostInput {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw new HostInputError(`expected the JSON object GitHub Copilot CLI sends its preToolUse hook, not ${describe(input)}`);
  const record = input as Record<string, unknown>;
  if (record.toolArgs === undefined && (record.hookName !== undefined || record.hook_event_name !== undefined)) {
    throw new HostInputError(`this is Copilot CLI's ${JSON.stringify(record.hookName ?? record.hook_event_name)} input: toolgate hook copilot answers preToolUse only (configure it under hooks.preToolUse)`);
  }
  const field = (key: string): string => textField(record, key);
  let toolArgs = record.toolArgs;
  if (typeof toolArgs === 'string') {
    try {
      toolArgs = JSON.parse(toolArgs);
    } catch {
      throw new HostInputError('toolArgs is a string that is not JSON');
    }
  }
  if (typeof toolArgs !== 'object' || toolArgs === null || Array.isArray(toolArgs)) throw new HostInputError(`toolArgs must be a JSON object, not ${describe(toolArgs)}`);
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
