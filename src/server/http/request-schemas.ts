/**
 * What the API accepts, as strict zod objects (an unknown field is an error,
 * never ignored), and the 400 answers that name the field and what was
 * expected. Seed 004's one exact text is kept: a decision without
 * `approved` is `Missing required field: approved`.
 */
import { z } from 'zod';
import { ApiError, type ApproveInput, type StartRunInput } from '../run-service.ts';
import { RUN_STATUSES, type RunStatus, type ServerRunMode } from '../../store/store.ts';

const SERVER_RUN_MODES = ['interactive', 'approve_all', 'strict', 'auto_deny', 'daemon'] as const satisfies readonly ServerRunMode[];

/** Ids and names a client chooses: short, one line. */
const identifier = z.string().min(1).max(256).regex(/^[^\u0000-\u001f\u007f]*$/, 'no control characters');

export const startRunBody = z.strictObject({
  input: z.string().min(1),
  mode: z.enum(SERVER_RUN_MODES).optional(),
  session_id: identifier.optional(),
  chat_id: identifier.optional(),
  model: identifier.optional(),
}) satisfies z.ZodType<StartRunInput>;

export const approveBody = z.strictObject({
  approved: z.boolean(),
  reason: z.string().max(10_000).optional(),
  tool_call_id: identifier.optional(),
  group_id: identifier.optional(),
  scope: z.enum(['once', 'session', 'always']).optional(),
  always_scope: z.string().regex(/^[a-z][a-z0-9_-]{0,31}$/).optional(),
  via: z.enum(['inbox', 'api']).optional(),
  edited_args: z.unknown().optional(),
  stop: z.boolean().optional(),
}) satisfies z.ZodType<ApproveInput>;

const presentationBody = z.strictObject({
  type: z.enum(['text', 'diff', 'file_content', 'command', 'structured']),
  content: z.string().max(4 * 1024 * 1024),
  language: z.string().max(64).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});

/**
 * `POST /asks`: a call another gate judged and asks a person about (the MCP
 * gateway's `--approver server`). `id` is the asker's, unique per call: a
 * request repeated with it waits for the same decision.
 */
export const askBody = z.strictObject({
  id: z.string().regex(/^[A-Za-z0-9_-]{16,128}$/, '16 to 128 letters, digits, _ or -'),
  tool: identifier,
  args: z.unknown(),
  description: z.string().max(100_000),
  payload: z.unknown().optional(),
  required: z.boolean().optional(),
  reason: z.string().max(10_000),
  presentation: presentationBody.optional(),
  asked_by: z.strictObject({ rule: z.string().max(1_000), at: z.string().max(1_000).optional() }).optional(),
  /** The asker's choices of what "always" covers (its gate finds the chosen one again from the call). */
  always_scopes: z
    .array(z.strictObject({ id: z.string().regex(/^[a-z][a-z0-9_-]{0,31}$/), text: z.string().max(1_000), rule: z.string().max(1_000) }))
    .max(8)
    .optional(),
  session_id: identifier,
  caller: identifier,
  /** When the asker stops waiting (its approval timeout), if it does. */
  times_out_at: z.iso.datetime().optional(),
});
export type AskBody = z.output<typeof askBody>;

/** `POST /approvals/presence`: the cards a page has open now (none: it has none open, or is hidden). */
export const presenceBody = z.strictObject({
  open: z.array(z.strictObject({ run_id: identifier, tool_call_id: identifier })).max(50),
});

/** A cancel takes no fields (an empty object, or no body at all). */
export const cancelBody = z.strictObject({});

const decimal = z.string().regex(/^[0-9]{1,16}$/, 'a whole number');

export const listRunsQuery = z.strictObject({
  status: z.enum(RUN_STATUSES as [RunStatus, ...RunStatus[]]).optional(),
  limit: decimal.transform(Number).pipe(z.number().int().min(1).max(10_000)).optional(),
  before: z.string().min(1).max(512).optional(),
});

export const eventsQuery = z.strictObject({
  // Past 2^53 a number no longer names one event (and the store refuses it).
  last_event_id: decimal.transform(Number).pipe(z.number().int().min(0).max(Number.MAX_SAFE_INTEGER)).optional(),
});

/** A query with no parameters at all. */
/** `GET /insights?days=N`: the last N days of the audit trail (default 30, at most 366). */
export const insightsQuery = z.strictObject({ days: z.string().regex(/^[1-9]\d{0,2}$/, 'a whole number of days, 1 to 366').optional() });

export const emptyQuery = z.strictObject({});

/**
 * `value` checked against `schema`, or an ApiError 400 naming every problem:
 * unknown fields, and each field's expected type or values.
 *
 * @example
 * parseRequest({ schema: startRunBody, value: { input: 3 }, what: 'request body' })
 * // throws ApiError 400: field "input": expected a string, got a number
 */
export function parseRequest<Schema extends z.ZodType>(options: { schema: Schema; value: unknown; what: 'request body' | 'query' }): z.output<Schema> {
  const { value, what } = options;
  if (what === 'request body' && (value === null || typeof value !== 'object' || Array.isArray(value))) {
    throw new ApiError(400, `request body must be a JSON object, got ${describeValue(value)}`, { expected: 'object' });
  }
  const result = options.schema.safeParse(value);
  if (result.success) return result.data;
  const noun = what === 'query' ? 'query parameter' : 'field';
  const problems = result.error.issues.map((issue) => describeIssue({ issue, input: value, noun }));
  // Unknown fields first: they are the mistake most often behind the others.
  problems.sort((a, b) => Number(b.unknown) - Number(a.unknown));
  const first = problems[0]!;
  throw new ApiError(400, problems.map((problem) => problem.text).join('; '), {
    field: first.field,
    ...(first.expected === undefined ? {} : { expected: first.expected }),
    ...(problems.length > 1 ? { problems: problems.map((problem) => problem.text) } : {}),
  });
}

/**
 * Seed 004's exact 400 for a decision without `approved`; then the schema.
 *
 * @example
 * parseApproveBody({ reason: 'test' }) // throws ApiError 400: Missing required field: approved
 */
export function parseApproveBody(value: unknown): ApproveInput {
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && !Object.hasOwn(value, 'approved')) {
    throw new ApiError(400, 'Missing required field: approved', { field: 'approved', expected: 'boolean' });
  }
  return parseRequest({ schema: approveBody, value, what: 'request body' });
}

/**
 * A request's query as one value per name (a name given twice is a 400).
 *
 * @example
 * singleValuedQuery({ status: ['running'] }) // { status: 'running' }
 */
export function singleValuedQuery(queries: Record<string, string[]>): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, values] of Object.entries(queries)) {
    if (values.length !== 1) throw new ApiError(400, `query parameter ${JSON.stringify(name)} given ${values.length} times: give it once`, { field: name });
    Object.defineProperty(result, name, { value: values[0], enumerable: true, writable: true, configurable: true });
  }
  return result;
}

interface Problem {
  text: string;
  field: string;
  expected: string | undefined;
  unknown: boolean;
}

function describeIssue(options: { issue: z.core.$ZodIssue; input: unknown; noun: string }): Problem {
  const { issue, noun } = options;
  const field = issue.path.map(String).join('.');
  const named = `${noun} ${JSON.stringify(field)}`;
  const got = describeValue(valueAt(options.input, issue.path));
  switch (issue.code) {
    case 'unrecognized_keys': {
      const plural = issue.keys.length > 1;
      const where = field === '' ? '' : ` in ${named}`;
      return { text: `unknown ${noun}${plural ? 's' : ''} ${issue.keys.map((key) => JSON.stringify(key)).join(', ')}${where}`, field: issue.keys[0] ?? field, expected: undefined, unknown: true };
    }
    case 'invalid_type': {
      const missing = valueAt(options.input, issue.path) === undefined;
      const expected = article(issue.expected);
      return { text: missing ? `missing ${named}: expected ${expected}` : `${named}: expected ${expected}, got ${got}`, field, expected: issue.expected, unknown: false };
    }
    case 'invalid_value': {
      const expected = `one of ${issue.values.map((member) => JSON.stringify(member)).join(', ')}`;
      return { text: `${named}: expected ${expected}, got ${got}`, field, expected, unknown: false };
    }
    case 'too_small':
    case 'too_big': {
      const bound = issue.code === 'too_small' ? `at least ${String(issue.minimum)}` : `at most ${String(issue.maximum)}`;
      const expected = issue.origin === 'string' ? `${bound} characters` : issue.origin === 'array' ? `${bound} items` : bound;
      return { text: `${named}: expected ${expected}, got ${got}`, field, expected, unknown: false };
    }
    case 'invalid_format':
      return { text: `${named}: expected ${issue.message ?? issue.format}, got ${got}`, field, expected: issue.message ?? issue.format, unknown: false };
    default:
      return { text: `${named}: ${issue.message}`, field, expected: undefined, unknown: false };
  }
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let current = input;
  for (const key of path) {
    if (current === null || typeof current !== 'object' || !Object.hasOwn(current, key)) return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

/** What a client sent, for an error message: its JSON type, and short values themselves. */
function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return value.length <= 40 ? `the string ${JSON.stringify(value)}` : 'a longer string';
  if (typeof value === 'number' || typeof value === 'boolean') return `${typeof value === 'number' ? 'the number' : 'the boolean'} ${String(value)}`;
  if (value === undefined) return 'nothing';
  return `an ${typeof value}`;
}

function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}
