/**
 * What the terminal approver asks: the plan of one prompt, for a single
 * request or a batch (the keys it takes, how its box is drawn, its help,
 * what "for this session" and "always" cover, how its arguments are edited),
 * and the layout of the box on the terminal it is drawn on.
 */
import type { PresentedRequest } from '../../core/approver.ts';
import { alwaysApprovalScopeText, sessionApprovalScope } from '../../core/session-approval-scope.ts';
import { editArguments, type EditText, type ValidateArguments } from './edit-arguments.ts';
import type { PromptInput, TerminalOutput } from './prompt-input.ts';
import { DEFAULT_APPROVAL_KEYS, DEFAULT_GROUP_APPROVAL_KEYS, renderApproval, renderApprovalGroup } from './render-approval.ts';

/** The box never grows past this many columns: long lines are easier to read wrapped. */
const MAX_WIDTH = 120;
/** Rows kept for the box's frame, description, the rule that asked, key lines, what [s] covers, a dropped-keys notice and the prompt around the content. */
const ROWS_MARGIN = 15;
const MIN_CONTENT_LINES = 10;

/** What a key does at the prompt. */
export type Action = 'once' | 'session' | 'always' | 'deny' | 'view' | 'edit' | 'help';

/** How the box is drawn on this terminal. */
export interface Layout {
  color: boolean;
  width: number;
  rows: number;
  maxLines: number;
}

/** What differs between asking about one request and about a batch. */
export interface PromptPlan {
  subject: string;
  actions: ReadonlyMap<string, Action>;
  render(options: { layout: Layout; full: boolean }): string;
  help: readonly string[];
  edit?: (prompt: PromptInput, layout: Layout) => Promise<{ args: unknown } | undefined>;
  /** What "for this session" and "always" cover, said before the same key again approves that widely (as in the web inbox). */
  covers: Partial<Record<'session' | 'always', string>>;
  /** What "always" may cover, narrowest first (the exact call, calls like this one, the tool's wider rule); empty when only the one. */
  alwaysChoices: ReadonlyArray<AlwaysChoice>;
}

/** One choice of what "always" covers; `id` undefined is the payload's own (calls like this one). */
export interface AlwaysChoice {
  id: string | undefined;
  text: string;
  rule?: string;
}

/**
 * How the box is drawn now: in color unless NO_COLOR or a dumb terminal, as
 * wide as the terminal up to 120 columns, as many content lines as its rows
 * leave room for.
 *
 * @example
 * const { color, width, maxLines } = terminalLayout({ output: process.stdout, env: process.env });
 */
export function terminalLayout(options: { output: TerminalOutput; env: NodeJS.ProcessEnv }): Layout {
  const { output, env } = options;
  const color = output.isTTY === true && env.NO_COLOR === undefined && env.TERM !== 'dumb';
  const columns = positiveInteger(output.columns) ?? 80;
  const rows = positiveInteger(output.rows) ?? 24;
  return { color, width: Math.min(columns, MAX_WIDTH), rows, maxLines: Math.max(MIN_CONTENT_LINES, rows - ROWS_MARGIN) };
}

/**
 * The plan of a prompt about one request: every key, its arguments
 * editable, "always" with the choices the request offers.
 *
 * @example
 * const plan = singleRequestPlan({ request, output, editor, validateArgs });
 */
export function singleRequestPlan(options: { request: PresentedRequest; output: TerminalOutput; editor: EditText; validateArgs: ValidateArguments | undefined }): PromptPlan {
  const { request, output, editor } = options;
  return {
    subject: request.tool,
    actions: SINGLE_ACTIONS,
    render: ({ layout, full }) =>
      renderApproval({ request: full ? withFullContent(request) : request, color: layout.color, width: layout.width, maxLines: layout.maxLines, full, keys: DEFAULT_APPROVAL_KEYS }).text,
    help: SINGLE_HELP,
    edit: (prompt, layout) =>
      editArguments({ tool: request.call.tool, args: request.call.args, prompt, output, editor, validateArgs: options.validateArgs, color: layout.color }),
    covers: coversOf(request),
    alwaysChoices: alwaysChoicesOf(request),
  };
}

/**
 * The plan of a prompt about a batch: one answer for every request in it,
 * no "always" and no editing.
 *
 * @example
 * const plan = groupPlan(requests);
 */
export function groupPlan(requests: readonly PresentedRequest[]): PromptPlan {
  return {
    subject: `${requests.length} ${requests.length === 1 ? 'request' : 'requests'} (${requests.map((request) => request.tool).join(', ')})`,
    actions: GROUP_ACTIONS,
    render: ({ layout, full }) =>
      renderApprovalGroup({
        requests: full ? requests.map(withFullContent) : requests,
        color: layout.color,
        width: layout.width,
        maxLines: layout.maxLines,
        full,
        keys: DEFAULT_GROUP_APPROVAL_KEYS,
      }).text,
    help: GROUP_HELP,
    // Each request's own "[s] covers" line is in the box; the confirmation says they are all approved so.
    covers: { session: `all ${requests.length} of them, each as its "[s] covers" line above says` },
    alwaysChoices: [],
  };
}

/**
 * How a choice of what "always" covers is listed.
 *
 * @example
 * choiceLabel({ id: 'exact', text: 'ls -la' }) // 'only this exact call: ls -la'
 */
export function choiceLabel(choice: AlwaysChoice): string {
  if (choice.id === 'exact') return `only this exact call: ${choice.text}`;
  if (choice.id === undefined) return `calls like this one: ${choice.text}`;
  return `wider: ${choice.text}`;
}

/** What the wide approvals of one request cover, as the box and the web inbox say it. */
function coversOf(request: PresentedRequest): PromptPlan['covers'] {
  let session: string;
  try {
    session = sessionApprovalScope({ request, call: request.call }).text;
  } catch {
    session = 'later calls with an equal approval payload';
  }
  return { session, always: alwaysApprovalScopeText(request, session) };
}

/** The choices of what "always" covers, narrowest first; empty when the request offers none beyond its payload. */
function alwaysChoicesOf(request: PresentedRequest): AlwaysChoice[] {
  const offered = (request.alwaysScopes ?? []).filter((scope) => typeof scope?.id === 'string').slice(0, 8);
  if (offered.length === 0) return [];
  const like: AlwaysChoice = { id: undefined, text: coversOf(request).always ?? 'later calls like this one' };
  const exact = offered.filter((scope) => scope.id === 'exact');
  const wider = offered.filter((scope) => scope.id !== 'exact');
  return [...exact, like, ...wider].map((choice) => ({ id: choice.id, text: choice.text, ...(choice.rule === undefined || choice.id === 'exact' ? {} : { rule: choice.rule }) }));
}

const SINGLE_ACTIONS: ReadonlyMap<string, Action> = new Map([
  ['y', 'once'],
  ['s', 'session'],
  ['a', 'always'],
  ['n', 'deny'],
  ['v', 'view'],
  ['e', 'edit'],
  ['?', 'help'],
]);

/** The keys of a batch's prompt; a plan with these is a batch's. */
export const GROUP_ACTIONS: ReadonlyMap<string, Action> = new Map([
  ['y', 'once'],
  ['s', 'session'],
  ['n', 'deny'],
  ['v', 'view'],
  ['?', 'help'],
]);

const SINGLE_HELP = [
  'keys:',
  '  y       approve this call once',
  '  s       approve for this session: later calls the box names under "[s] covers" are not asked again (says what it covers; s again approves)',
  '  a       approve always: remembered across sessions (says what it covers; a again approves)',
  '  n       deny; then type a reason the model will see (Enter for none, Esc to go back)',
  '  v       view the whole request, masked secrets included (in $PAGER, or here: space/Enter next page, q return)',
  '  e       edit the arguments in $VISUAL/$EDITOR, then approve them once',
  '  ?       this help',
  '  Ctrl-C  deny and stop the run',
];

const GROUP_HELP = [
  'keys (one answer for every request in the batch):',
  '  y       approve them all once',
  '  s       approve them all for this session (s again approves)',
  '  n       deny them all; then type a reason the model will see (Enter for none, Esc to go back)',
  '  v       view every request in full (in $PAGER, or here: space/Enter next page, q return)',
  '  ?       this help',
  '  Ctrl-C  deny and stop the run',
];

/**
 * The request with `metadata.full_content` (seed 001's convention for text
 * cut from the prompt) as its content, for the full view. It is rendered,
 * and so sanitized, like any other content.
 */
function withFullContent(request: PresentedRequest): PresentedRequest {
  const presentation = request.presentation;
  const metadata = presentation?.metadata;
  const full = typeof metadata === 'object' && metadata !== null ? (metadata as Record<string, unknown>).full_content : undefined;
  if (presentation === undefined || typeof full !== 'string' || full === presentation.content) return request;
  return { ...request, presentation: { ...presentation, content: full } };
}

function positiveInteger(value: number | undefined): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 1 ? Math.floor(value) : undefined;
}
