/**
 * The terminal approver: seed 001's box on the person's terminal, answered
 * with one keypress. Everything shown from a request goes through the
 * renderer or `sanitizeTerminalText`; answers are only ever read from a
 * terminal, never from a pipe (a pipe could carry a model's own output).
 */
import { styleText } from 'node:util';
import { createNonInteractiveApprover, type Approver, type PresentedRequest } from '../../core/approver.ts';
import type { ApprovalDecision, ApprovalScope } from '../../core/types.ts';
import { editArguments, type EditText, type ValidateArguments } from './edit-arguments.ts';
import { editInEditor } from './edit-in-editor.ts';
import { openPromptInput, type KeyPress, type PromptInput, type TerminalInput, type TerminalOutput } from './prompt-input.ts';
import { DEFAULT_APPROVAL_KEYS, DEFAULT_GROUP_APPROVAL_KEYS, renderApproval, renderApprovalGroup } from './render-approval.ts';
import { renderDecisionLine } from './render-decision-line.ts';
import { sanitizeTerminalText } from '../../core/sanitize-terminal-text.ts';
import { alwaysApprovalScopeText, sessionApprovalScope } from '../../core/session-approval-scope.ts';
import { showInPager } from './show-in-pager.ts';
import { TerminalPromptError } from './terminal-prompt-error.ts';

export interface TerminalApproverOptions {
  /** Where answers come from; anything but a TTY makes every ask an automatic denial. */
  input: TerminalInput;
  output: TerminalOutput;
  /** Read for NO_COLOR, TERM, VISUAL/EDITOR and PAGER. */
  env: NodeJS.ProcessEnv;
  /** Checks edited arguments against the tool's schema. Without it, any valid JSON is accepted. */
  validateArgs?: ValidateArguments;
  /** Edits text; default: $VISUAL or $EDITOR on a temporary file, with the terminal handed over. */
  editor?: EditText;
  /** Called (after the terminal is restored) when the person presses Ctrl-C at a prompt; the denial still goes back to the gate. */
  onInterrupt?: () => void;
  /**
   * How long after a question is drawn keys are still dropped, so a key typed
   * ahead (a double `y`, a key pressed before the process started) never
   * answers a question nobody saw. Default 300.
   */
  settleMilliseconds?: number;
}

/** The key line of a single request. */
export const TERMINAL_APPROVAL_KEYS = DEFAULT_APPROVAL_KEYS;
/** The key line of a batch: one answer for every request in it. */
export const TERMINAL_GROUP_APPROVAL_KEYS = DEFAULT_GROUP_APPROVAL_KEYS;

/** The box never grows past this many columns: long lines are easier to read wrapped. */
const MAX_WIDTH = 120;
/** Rows kept for the box's frame, description, the rule that asked, key lines, what [s] covers, a dropped-keys notice and the prompt around the content. */
const ROWS_MARGIN = 15;
const MIN_CONTENT_LINES = 10;
const MAX_REASON_LENGTH = 1000;

type Action = 'once' | 'session' | 'always' | 'deny' | 'view' | 'edit' | 'help';

interface Layout {
  color: boolean;
  width: number;
  rows: number;
  maxLines: number;
}

/** What differs between asking about one request and about a batch. */
interface PromptPlan {
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
interface AlwaysChoice {
  id: string | undefined;
  text: string;
  rule?: string;
}

/**
 * Creates the approver for a person at a terminal. Single keys in raw mode
 * (whole lines when the terminal cannot go raw): `y` once, `s` session, `a`
 * always, `n` deny with an optional reason, `v` view all, `e` edit the
 * arguments, `?` help. Ctrl-C denies and stops the run. Prompts never
 * overlap: a second ask waits for the first. When `input` is not a TTY,
 * every ask is denied at once (`automatic: true`) with a message saying how
 * to approve.
 *
 * @example
 * const approver = createTerminalApprover({ input: process.stdin, output: process.stdout, env: process.env, onInterrupt: () => (process.exitCode = 130) });
 * const gate = createGate({ policy, approver });
 */
export function createTerminalApprover(options: TerminalApproverOptions): Approver {
  const { output } = options;
  const editor: EditText = options.editor ?? ((text, signal) => editInEditor({ text, env: options.env, signal }));
  const nonInteractive = createNonInteractiveApprover({
    hint: 'nobody who can approve it is reachable here: the input is not an interactive terminal (answers are never read from a pipe), so it did not run. To be asked, run toolgate in a terminal',
  });
  let queue: Promise<void> = Promise.resolve();
  // Keys pressed after one prompt's answer (the second `y` of a double press), reported by the next prompt.
  let strayKeys = 0;

  function layout(): Layout {
    const env = options.env;
    const color = output.isTTY === true && env.NO_COLOR === undefined && env.TERM !== 'dumb';
    const columns = positiveInteger(output.columns) ?? 80;
    const rows = positiveInteger(output.rows) ?? 24;
    return { color, width: Math.min(columns, MAX_WIDTH), rows, maxLines: Math.max(MIN_CONTENT_LINES, rows - ROWS_MARGIN) };
  }

  async function decide(plan: PromptPlan, first: PresentedRequest, signal: AbortSignal): Promise<ApprovalDecision> {
    if (options.input.isTTY !== true) {
      // Never read answers from a pipe: whatever feeds it may be the model's own output.
      // "the batch of 2 requests (write_file, shell) needs approval": the model reads it as the denial's reason.
      const subject = plan.actions === GROUP_ACTIONS ? `the batch of ${plan.subject}` : plan.subject;
      // A batch's requests may have been asked by different rules: the first one's would not speak for all.
      const decision = await nonInteractive.ask(plan.actions === GROUP_ACTIONS ? { ...first, tool: subject, askedBy: undefined } : { ...first, tool: subject }, { signal });
      output.write(renderDecisionLine({ outcome: decision, color: layout().color }));
      return decision;
    }
    return exclusive(signal, () => converseSafely(plan, signal));
  }

  /** One prompt at a time on one terminal; a later ask waits, and gives up waiting if its signal aborts. */
  async function exclusive<T>(signal: AbortSignal, run: () => Promise<T>): Promise<T> {
    const previous = queue;
    let finished!: () => void;
    const mine = new Promise<void>((resolve) => (finished = resolve));
    queue = previous.then(() => mine);
    try {
      await untilAborted(previous, signal);
      return await run();
    } finally {
      finished();
    }
  }

  async function converseSafely(plan: PromptPlan, signal: AbortSignal): Promise<ApprovalDecision> {
    const prompt = openPromptInput({ input: options.input, output, signal, settleMilliseconds: options.settleMilliseconds, droppedBefore: strayKeys });
    strayKeys = 0;
    try {
      return await converse(plan, prompt);
    } catch (error) {
      // The terminal comes back first: the interrupt handler may exit the process.
      prompt.close();
      const { color } = layout();
      if (error instanceof TerminalPromptError && error.code === 'TERMINAL_INTERRUPTED') {
        const decision: ApprovalDecision = { approved: false, scope: 'once', reason: 'interrupted', stop: true };
        output.write(`\n${renderDecisionLine({ outcome: decision, subject: plan.subject, color })}`);
        try {
          options.onInterrupt?.();
        } catch {
          // The denial stands whatever the handler does.
        }
        return decision;
      }
      if (signal.aborted) {
        output.write(`\n${renderDecisionLine({ outcome: isTimeout(signal.reason) ? 'timed out' : 'cancelled', subject: plan.subject, color })}`);
        throw new TerminalPromptError({ code: 'TERMINAL_ABORTED', message: 'the approval prompt was aborted before an answer', cause: signal.reason });
      }
      throw error;
    } finally {
      strayKeys += prompt.unreportedKeys;
      prompt.close();
    }
  }

  async function converse(plan: PromptPlan, prompt: PromptInput): Promise<ApprovalDecision> {
    const finish = (decision: ApprovalDecision): ApprovalDecision => {
      output.write(renderDecisionLine({ outcome: decision, subject: plan.subject, color: layout().color }));
      return decision;
    };
    const letters = [...plan.actions.keys()];
    const answers = letters.filter((letter) => plan.actions.get(letter) !== 'help');
    const choices = `${answers.slice(0, -1).join(', ')} or ${answers[answers.length - 1]}`;
    output.write(plan.render({ layout: layout(), full: false }));
    for (;;) {
      // Only keys pressed after the question is on screen answer it; the prompt says so when it dropped any.
      if (!prompt.settled) await prompt.settle();
      const { color } = layout();
      output.write(`${color ? styleText('bold', 'approve?', { validateStream: false }) : 'approve?'} [${letters.join('/')}] `);
      const key = await prompt.readKey();
      const letter = key.kind === 'character' ? key.character.toLowerCase() : undefined;
      const action = letter === undefined ? undefined : plan.actions.get(letter);
      // Raw mode echoes nothing; show the key that was taken (an unknown one is named in the hint).
      if (prompt.raw) output.write(action === undefined ? '\n' : `${letter}\n`);
      switch (action) {
        case 'once':
          return finish({ approved: true, scope: 'once' });
        case 'session':
        case 'always': {
          const confirmed = await confirmWide(plan, prompt, letter!, action);
          if (confirmed !== undefined) return finish({ approved: true, scope: action satisfies ApprovalScope, ...(confirmed.alwaysScope === undefined ? {} : { alwaysScope: confirmed.alwaysScope }) });
          break;
        }
        case 'deny': {
          const decision = await askReason(prompt);
          if (decision !== undefined) return finish(decision);
          break;
        }
        case 'view':
          await showInPager({ text: plan.render({ layout: layout(), full: true }), env: options.env, output, prompt, rows: layout().rows });
          output.write(plan.render({ layout: layout(), full: false }));
          break;
        case 'edit': {
          const edited = await plan.edit?.(prompt, layout());
          if (edited !== undefined) return finish({ approved: true, scope: 'once', args: edited.args });
          // An editor may have taken over the screen: show what is being decided again.
          output.write(plan.render({ layout: layout(), full: false }));
          break;
        }
        case 'help':
          output.write(`${plan.help.join('\n')}\n`);
          break;
        default:
          output.write(`${hint({ key, letter, raw: prompt.raw, choices })}\n`);
      }
    }
  }

  /**
   * The second step of a wide approval: what it covers, then the same key
   * again approves it; any other key takes it back, and is not taken as an
   * answer (as Esc does in the web inbox). Where "always" offers choices,
   * they are numbered, narrowest first: the same key again takes the first
   * (as the web inbox's first choice is checked), a number another.
   */
  async function confirmWide(plan: PromptPlan, prompt: PromptInput, letter: string, scope: 'session' | 'always'): Promise<{ alwaysScope?: string } | undefined> {
    const name = scope === 'session' ? '“For this session”' : '“Always”';
    const choices = scope === 'always' ? plan.alwaysChoices : [];
    if (choices.length === 0) {
      const covers = plan.covers[scope] ?? 'later calls with an equal approval payload';
      output.write(`${sanitizeTerminalText(`${name} lets these run without asking: ${covers}.`, { collapse: true })}\n`);
    } else {
      output.write(`${name} lets calls run without asking from now on, until revoked (toolgate approvals). Which calls?\n`);
      choices.forEach((choice, index) => {
        const line = `  ${index + 1}  ${choiceLabel(choice)}${choice.rule === undefined ? '' : ` — rule: ${choice.rule}`}`;
        output.write(`${sanitizeTerminalText(line, { collapse: true })}\n`);
      });
    }
    // A double press is not a second step: only a key pressed after this was on screen answers it.
    prompt.unsettle();
    await prompt.settle();
    const pick = choices.length === 0 ? '' : ` (the first), or 1-${choices.length}`;
    output.write(`press ${letter} again to approve ${scope === 'session' ? 'for this session' : 'always'}${pick}, any other key to choose again: `);
    const key = await prompt.readKey();
    const character = key.kind === 'character' ? key.character.toLowerCase() : undefined;
    const number = character !== undefined && /^[1-9]$/.test(character) ? Number(character) : undefined;
    const chosen = character === letter ? choices[0] : number !== undefined ? choices[number - 1] : undefined;
    const confirmed = character === letter || chosen !== undefined;
    if (prompt.raw) output.write(confirmed ? `${character}\n` : '\n');
    if (!confirmed) {
      output.write('not approved: choose again\n');
      return undefined;
    }
    return chosen?.id === undefined ? {} : { alwaysScope: chosen.id };
  }

  async function askReason(prompt: PromptInput): Promise<ApprovalDecision | undefined> {
    output.write(prompt.raw ? 'reason for the model (Enter for none, Esc to go back): ' : 'reason for the model (Enter for none): ');
    const typed = await prompt.readLine({ maxLength: MAX_REASON_LENGTH });
    if (typed === undefined) {
      output.write('not denied: choose again\n');
      return undefined;
    }
    const reason = typed.trim();
    return reason === '' ? { approved: false, scope: 'once' } : { approved: false, scope: 'once', reason };
  }

  return {
    ask: async (request, { signal }) => {
      const plan: PromptPlan = {
        subject: request.tool,
        actions: SINGLE_ACTIONS,
        render: ({ layout, full }) =>
          renderApproval({ request: full ? withFullContent(request) : request, color: layout.color, width: layout.width, maxLines: layout.maxLines, full, keys: TERMINAL_APPROVAL_KEYS }).text,
        help: SINGLE_HELP,
        edit: (prompt, layout) =>
          editArguments({ tool: request.call.tool, args: request.call.args, prompt, output, editor, validateArgs: options.validateArgs, color: layout.color }),
        covers: coversOf(request),
        alwaysChoices: alwaysChoicesOf(request),
      };
      return decide(plan, request, signal);
    },
    askGroup: async (requests, { signal }) => {
      if (requests.length === 0) return { approved: false, scope: 'once', reason: 'the batch had no requests to approve' };
      const plan: PromptPlan = {
        subject: `${requests.length} ${requests.length === 1 ? 'request' : 'requests'} (${requests.map((request) => request.tool).join(', ')})`,
        actions: GROUP_ACTIONS,
        render: ({ layout, full }) =>
          renderApprovalGroup({
            requests: full ? requests.map(withFullContent) : requests,
            color: layout.color,
            width: layout.width,
            maxLines: layout.maxLines,
            full,
            keys: TERMINAL_GROUP_APPROVAL_KEYS,
          }).text,
        help: GROUP_HELP,
        // Each request's own "[s] covers" line is in the box; the confirmation says they are all approved so.
        covers: { session: `all ${requests.length} of them, each as its "[s] covers" line above says` },
        alwaysChoices: [],
      };
      return decide(plan, requests[0]!, signal);
    },
  };
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

function choiceLabel(choice: AlwaysChoice): string {
  if (choice.id === 'exact') return `only this exact call: ${choice.text}`;
  if (choice.id === undefined) return `calls like this one: ${choice.text}`;
  return `wider: ${choice.text}`;
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

const GROUP_ACTIONS: ReadonlyMap<string, Action> = new Map([
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

function hint(options: { key: KeyPress; letter: string | undefined; raw: boolean; choices: string }): string {
  const { key, choices } = options;
  if (key.kind === 'text') return options.raw ? `pasted text is ignored: press a single key (${choices})` : `type one letter, then Enter (${choices})`;
  if (options.letter !== undefined) return `unknown key "${sanitizeTerminalText(options.letter)}": press ${choices} (? for help)`;
  return `press ${choices} (? for help)`;
}

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

async function untilAborted(promise: Promise<void>, signal: AbortSignal): Promise<void> {
  const aborted = (): TerminalPromptError =>
    new TerminalPromptError({ code: 'TERMINAL_ABORTED', message: 'the approval was aborted while another prompt was open', cause: signal.reason });
  if (signal.aborted) throw aborted();
  let onAbort: (() => void) | undefined;
  try {
    await Promise.race([
      promise,
      new Promise<never>((_resolve, reject) => {
        onAbort = () => reject(aborted());
        signal.addEventListener('abort', onAbort, { once: true });
      }),
    ]);
  } finally {
    if (onAbort !== undefined) signal.removeEventListener('abort', onAbort);
  }
}

function isTimeout(reason: unknown): boolean {
  return reason instanceof Error && (reason.name === 'TimeoutError' || /timed out|timeout/i.test(reason.message));
}

function positiveInteger(value: number | undefined): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 1 ? Math.floor(value) : undefined;
}
