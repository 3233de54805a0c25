/**
 * A paused deferred run as data: the messages to continue from and the
 * approvals it waits for, as JSON with a schema version, so it can be stored
 * and resumed later, in another process. It holds no secret: it is signed
 * with the gated set's approval secret (session, chat, run, messages and
 * every pending approval as a person is shown it), and so are the approval
 * requests in its messages; only the server's key verifies them.
 */
import type { ContentPart, ModelMessage, ToolSet } from 'ai';
import { z } from 'zod';
import type { GateContext } from '../../core/types.ts';
import { AiSdkRunStateError } from './errors/ai-sdk-run-state-error.ts';
import { stateOf, type GatedTools } from './gated-tools-state.ts';
import { pendingApprovals, type PendingApproval } from './pending-approvals.ts';
import { signRunState } from './run-state-signature.ts';

/**
 * The version this code writes and resumes. Version 1 (toolgate before run
 * states were signed) is refused: nothing proves what its person was shown.
 */
export const RUN_STATE_SCHEMA_VERSION = 2;

export interface RunState {
  schemaVersion: typeof RUN_STATE_SCHEMA_VERSION;
  /** The gate context the approvals belong to; a resume must use the same session, chat and run. */
  context: GateContext;
  /** The run's input messages followed by its response messages. */
  messages: ModelMessage[];
  /** What each paused call's person is shown; show it only from a state `verifyRunState` accepted. */
  pending: PendingApproval[];
  /** ISO 8601. */
  createdAt: string;
  /** HMAC-SHA256 (base64url) over every other field, keyed by the gated set's approval secret. */
  signature: string;
}

const presentationSchema = z.looseObject({
  type: z.enum(['text', 'diff', 'file_content', 'command', 'structured']),
  content: z.string(),
  language: z.string().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});

const pendingSchema = z.object({
  approvalId: z.string().min(1),
  toolCallId: z.string().min(1),
  tool: z.string().min(1),
  args: z.unknown(),
  description: z.string(),
  payload: z.unknown(),
  required: z.boolean(),
  groupId: z.string().optional(),
  reason: z.string(),
  presentation: presentationSchema.optional(),
  alwaysScopes: z.array(z.strictObject({ id: z.string(), text: z.string(), rule: z.string() })).optional(),
});

const runStateSchema = z.object({
  schemaVersion: z.literal(RUN_STATE_SCHEMA_VERSION),
  context: z.looseObject({ sessionId: z.string(), chatId: z.string().optional(), runId: z.string().optional(), caller: z.string().optional() }),
  messages: z.array(z.looseObject({ role: z.enum(['system', 'user', 'assistant', 'tool']), content: z.union([z.string(), z.array(z.looseObject({ type: z.string() }))]) })),
  pending: z.array(pendingSchema),
  createdAt: z.string(),
  signature: z.string().min(1),
});

/**
 * The state of a run that paused on approvals: its messages (input, then
 * response) and what it waits for, signed with the gated set's secret.
 *
 * @example
 * const messages: ModelMessage[] = [{ role: 'user', content: 'Delete temp.txt' }];
 * const result = await generateText({ model, messages, ...gated });
 * const state = await createRunState({ gated, messages, result });
 * await store.save(runId, serializeRunState(state));
 */
export async function createRunState(options: {
  gated: GatedTools<any>;
  /** The messages the run started from (turn a `prompt` string into a user message). */
  messages: readonly ModelMessage[];
  /** A `generateText` result, or a `streamText` result's awaited `responseMessages` and `content`. */
  result: { responseMessages: readonly ModelMessage[]; content: ReadonlyArray<ContentPart<ToolSet>> };
}): Promise<RunState> {
  const state = stateOf(options.gated);
  const unsigned: Omit<RunState, 'signature'> = {
    schemaVersion: RUN_STATE_SCHEMA_VERSION,
    context: { ...state.context },
    messages: [...options.messages, ...options.result.responseMessages],
    pending: pendingApprovals({ gated: options.gated, content: options.result.content }),
    createdAt: new Date().toISOString(),
  };
  return { ...unsigned, signature: await signRunState({ state: unsigned, secret: state.secret }) };
}

/**
 * The state as JSON (it is plain data; files in messages must be URLs or base64 strings).
 *
 * @example
 * writeFileSync(path, serializeRunState(state));
 */
export function serializeRunState(state: RunState): string {
  return JSON.stringify(state);
}

/**
 * Reads a state written by `serializeRunState`, checking its shape and
 * version; throws `AiSdkRunStateError` (nothing is resumed) otherwise. Its
 * signature is checked by `verifyRunState` and `resumeRun`, which hold the secret.
 *
 * @example
 * const state = parseRunState(readFileSync(path, 'utf8'));
 */
export function parseRunState(text: string): RunState {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new AiSdkRunStateError({ field: 'the text', problem: 'is not JSON', reason: 'malformed', cause: error });
  }
  return validateRunState(value);
}

/**
 * The value as a `RunState`, or `AiSdkRunStateError` naming the first bad field.
 *
 * @example
 * const state = validateRunState(await request.json());
 */
export function validateRunState(value: unknown): RunState {
  const version = (value as { schemaVersion?: unknown } | null)?.schemaVersion;
  if (typeof value === 'object' && value !== null && version !== RUN_STATE_SCHEMA_VERSION) {
    const problem =
      version === 1
        ? 'is 1: states saved before toolgate signed them cannot be resumed, because nothing proves what the person was shown or which session they belong to; start the run again so its approvals are asked anew'
        : `is ${JSON.stringify(version)}; this version of toolgate reads ${RUN_STATE_SCHEMA_VERSION}`;
    throw new AiSdkRunStateError({ field: 'schemaVersion', problem, reason: 'unsupported-version' });
  }
  const parsed = runStateSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new AiSdkRunStateError({ field: issue.path.length === 0 ? 'the state' : issue.path.map(String).join('.'), problem: issue.message.toLowerCase(), reason: 'malformed' });
  }
  // The checked value itself (not zod's copy), so messages keep every field the SDK wrote.
  return value as RunState;
}
