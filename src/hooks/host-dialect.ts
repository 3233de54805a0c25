/**
 * What makes an agent host a host of toolgate's: how it hands a call to its
 * hook (the JSON on stdin), how long it waits, what answers it reads, and
 * which answer blocks when toolgate itself fails. Everything else — the
 * judgement, the audit log, the approvers — is the same for every host
 * (`decide-host-call.ts`, `run-hook.ts`).
 */
import { sanitizeTerminalText } from '../core/sanitize-terminal-text.ts';
import { absoluteDirectory, describe, HostInputError, type HostCall, type HostName, textField } from './host-call.ts';

/** What the hook process prints and exits with. */
export interface HookAnswer {
  stdout: string;
  stderr: string;
  exitCode: number;
}

/** A host's call as its hook receives it, before it is put in toolgate's terms. */
export type HostInput = Omit<HostCall, 'call'> & { toolInput: Record<string, unknown> };

export interface HostDialect {
  name: HostName;
  /** The host's product name, for messages. */
  title: string;
  /** How long the host waits for its hook when the hook's configuration sets no timeout, in ms. */
  defaultBudgetMs: number;
  /** Whether the host asks its own user when the hook answers "ask" (otherwise toolgate denies, saying why): for every call, or for some (asksItsUserFor). */
  asksItsUser: boolean | ((input: HostInput) => boolean);
  /** The host's JSON as a call; throws HostInputError, naming the field, for anything else. */
  read(input: unknown): HostInput;
  /**
   * What the hook process (which runs as the user, in the host's
   * environment) can tell of how the host runs this call: the shell of its
   * command (undefined when it cannot tell, and the command is judged as one
   * whose shell is not known), and the call's other options (Codex's).
   */
  detailsOf(input: HostInput, env: Readonly<Record<string, string | undefined>>): { shell: string | undefined; options?: Record<string, unknown> };
  /**
   * Whether the host runs a tool input its hook hands back instead of the
   * model's (measured for each: Claude Code's and Codex's `updatedInput`,
   * Copilot CLI's `modifiedArgs`, Gemini CLI's `tool_input`, toolgate's
   * opencode plugin): `sandbox.hosts: wrap` needs it.
   */
  takesChangedInput: boolean | ((input: HostInput) => boolean);
  /** The answer the host reads; `updatedInput` is the tool input it runs instead (`sandbox.hosts: wrap`), where `takesChangedInput`. */
  answer(verdict: { decision: 'allow' | 'deny' | 'ask'; reason: string; updatedInput?: Record<string, unknown> | undefined }): HookAnswer;
  /** The decision in an answer of this dialect (toolgate serve's, read by a hook that forwarded the call); undefined for anything else. */
  decisionIn(answer: unknown): { decision: 'allow' | 'deny' | 'ask'; reason: string; updatedInput?: Record<string, unknown> } | undefined;
  /** toolgate's own failure, in the one form this host never runs the call after. */
  fail(reason: string): HookAnswer;
  /**
   * The dialect of the event this input (the host's JSON, not yet read)
   * comes from, where the host calls one hook for more than one event and
   * each reads its own answers (Copilot CLI's permissionRequest); absent:
   * this dialect answers every input.
   */
  forEvent?(input: unknown): HostDialect;
}

/** The dialect that answers this input: the one of its event (`forEvent`), or `dialect` itself. */
export function dialectFor(dialect: HostDialect, input: unknown): HostDialect {
  return dialect.forEvent?.(input) ?? dialect;
}

/** Whether the host runs the tool input this call's answer hands back (Copilot CLI does after preToolUse, not after permissionRequest). */
export function takesChangedInputFor(dialect: HostDialect, input: HostInput): boolean {
  return typeof dialect.takesChangedInput === 'function' ? dialect.takesChangedInput(input) : dialect.takesChangedInput;
}

/** Whether the host asks its own user about this call when its hook answers "ask" (Cursor reads a file without asking anyone). */
export function asksItsUserFor(dialect: HostDialect, input: HostInput): boolean {
  return typeof dialect.asksItsUser === 'function' ? dialect.asksItsUser(input) : dialect.asksItsUser;
}

/**
 * The PreToolUse input Claude Code defined and Codex copies:
 * `{session_id, cwd, hook_event_name, tool_name, tool_input, tool_use_id?, transcript_path?}`.
 *
 * @example
 * const input = readPreToolUse({ host: 'codex', title: 'Codex', input: JSON.parse(stdin) });
 */
export function readPreToolUse(options: { host: HostName; title: string; input: unknown }): HostInput {
  const { input } = options;
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw new HostInputError(`expected the JSON object ${options.title} sends its PreToolUse hook, not ${describe(input)}`);
  const record = input as Record<string, unknown>;
  if (record.hook_event_name !== 'PreToolUse') {
    throw new HostInputError(`hook_event_name is ${JSON.stringify(record.hook_event_name)}: toolgate hook ${options.host} answers PreToolUse only (configure it under hooks.PreToolUse)`);
  }
  const field = (key: string): string => textField(record, key);
  const optional = (key: string): string | undefined => (record[key] === undefined || record[key] === null ? undefined : field(key));
  const toolInput = record.tool_input;
  if (typeof toolInput !== 'object' || toolInput === null || Array.isArray(toolInput)) throw new HostInputError(`tool_input must be a JSON object, not ${describe(toolInput)}`);
  return {
    host: options.host,
    sessionId: field('session_id'),
    cwd: absoluteDirectory(record.cwd, 'cwd'),
    toolUseId: optional('tool_use_id'),
    transcriptPath: optional('transcript_path'),
    hostTool: field('tool_name'),
    toolInput: toolInput as Record<string, unknown>,
    // Sent by `toolgate hook --approver server`, which knows the host's environment.
    ...(typeof record.toolgate_shell === 'string' ? { shell: record.toolgate_shell } : {}),
    ...(typeof record.toolgate_call_options === 'object' && record.toolgate_call_options !== null && !Array.isArray(record.toolgate_call_options) ? { options: record.toolgate_call_options as Record<string, unknown> } : {}),
    ...(typeof record.toolgate_last_user_message === 'string' ? { lastUserMessage: record.toolgate_last_user_message.slice(0, 1000) } : {}),
  };
}

/** The PreToolUse answer both hosts read: `hookSpecificOutput.permissionDecision` and its reason, and the input to run instead (`updatedInput`). */
export function preToolUseAnswer(decision: 'allow' | 'deny' | 'ask', reason: string, updatedInput?: Record<string, unknown>): HookAnswer {
  // The reason quotes the call (a model wrote it): the host shows it in a terminal, so every control, escape and bidi character is written out inert.
  const shown = sanitizeTerminalText(reason, { collapse: true });
  const changed = updatedInput === undefined || decision === 'deny' ? {} : { updatedInput };
  return { stdout: `${JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: decision, permissionDecisionReason: shown, ...changed } })}\n`, stderr: '', exitCode: 0 };
}

/**
 * A host that speaks Claude Code's PreToolUse dialect (Claude Code, Codex):
 * its JSON in, `permissionDecision` out, exit 2 when toolgate fails. An
 * "ask" reaches a host that cannot ask its user as a denial (`run-hook.ts`
 * and the server make it one; this only says so again).
 *
 * @example
 * export const codex = preToolUseHost({ name: 'codex', title: 'Codex', asksItsUser: false, detailsOf: () => ({ shell: loginShell() }) });
 */
export function preToolUseHost(options: { name: HostName; title: string; asksItsUser: boolean; detailsOf: HostDialect['detailsOf'] }): HostDialect {
  const { name, title, asksItsUser, detailsOf } = options;
  return {
    name,
    title,
    detailsOf,
    // Both hosts wait 600 s for a hook whose configuration sets no timeout.
    defaultBudgetMs: 600_000,
    takesChangedInput: true,
    asksItsUser,
    read: (input) => readPreToolUse({ host: name, title, input }),
    answer: (verdict) => preToolUseAnswer(verdict.decision === 'ask' && !asksItsUser ? 'deny' : verdict.decision, `toolgate: ${verdict.reason}`, verdict.updatedInput),
    decisionIn: (answer) => {
      const output = (answer as { hookSpecificOutput?: { permissionDecision?: unknown; permissionDecisionReason?: unknown; updatedInput?: unknown } } | null)?.hookSpecificOutput;
      const decision = output?.permissionDecision;
      const reason = output?.permissionDecisionReason;
      return (decision === 'allow' || decision === 'deny' || decision === 'ask') && typeof reason === 'string' ? { decision, reason, ...objectIn(output?.updatedInput) } : undefined;
    },
    fail: (reason) => blockingExit(`toolgate: ${reason}`),
  };
}

/** `{updatedInput}` when `value` is a JSON object (a changed tool input in a server's answer), nothing otherwise. */
export function objectIn(value: unknown): { updatedInput?: Record<string, unknown> } {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? { updatedInput: value as Record<string, unknown> } : {};
}

/** Exit 2 with the reason on stderr: both hosts block the call and give the model the reason. */
export function blockingExit(reason: string): HookAnswer {
  return { stdout: '', stderr: `${reason}\n`, exitCode: 2 };
}

/**
 * The user's login shell, from the password database (what a host falls
 * back to without $SHELL); undefined where there is none. Read once per
 * process (a replay asks for it for every Codex call of a month).
 */
export function loginShell(): string | undefined {
  if (knownLoginShell === null) {
    try {
      // From the module object, not an ESM import: a hook process loads only what it uses.
      const shell = process.getBuiltinModule('node:os').userInfo().shell;
      knownLoginShell = shell === null || shell === '' ? undefined : shell;
    } catch {
      knownLoginShell = undefined;
    }
  }
  return knownLoginShell;
}

let knownLoginShell: string | undefined | null = null;

/** Where `name` is on PATH, as the host's spawn finds it; undefined where it is not (the command's shell is then not known). */
export function onPath(name: string, searchPath: string | undefined): string | undefined {
  const { accessSync, constants } = process.getBuiltinModule('node:fs');
  for (const directory of (searchPath ?? '').split(':')) {
    if (!directory.startsWith('/')) continue;
    const candidate = `${directory.replace(/\/+$/, '')}/${name}`;
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not here.
    }
  }
  return undefined;
}
