/**
 * What a person is shown for one approval request, built once for every
 * approver (the terminal, MCP elicitation, the web inbox): the tool, its
 * description, why the gate asks, what "for this session" would cover, and
 * the presentation as blocks. Every string is untrusted (a model or a server
 * wrote it), so every string goes through the one sanitiser here and comes
 * out inert; secrets under `redact.keys` are masked with their size.
 */
import type { PresentedRequest } from '../core/approver.ts';
import { DEFAULT_REDACT_KEYS, maskSecrets } from '../core/redact.ts';
import { alwaysApprovalScopeText, sessionApprovalScope } from '../core/session-approval-scope.ts';
import type { ApprovalView, FieldsBlock, TextBlock, ViewBlock, ViewLine } from './approval-view-types.ts';
import { fieldsFromJson } from './fields-block.ts';
import { inertLine, inertText } from './inert-lines.ts';
import { safeJson } from './json-for-reading.ts';
import { metadataNumber, presentationBlocks } from './presentation-blocks.ts';

export type * from './approval-view-types.ts';

export interface ApprovalViewOptions {
  /** Why the gate asks (the rule's reason). */
  reason?: string | undefined;
  /** The question put to the person. */
  prompt?: string | undefined;
  /** Keys whose values are masked in the arguments (and in a payload shown for want of a presentation). Default: `DEFAULT_REDACT_KEYS`. */
  redactKeys?: ReadonlySet<string> | undefined;
  /** Show masked secrets as they are, from the call's own arguments (a person asked to see them; never for logs or streams). */
  revealSecrets?: boolean | undefined;
  /** Use the whole content where the tool kept it (`metadata.full_content`). Default true. */
  fullContent?: boolean | undefined;
}

const DESCRIPTION_OPTIONS = { keepNewlines: true, keepTabs: true, collapse: true } as const;
const SENTENCE_OPTIONS = { collapse: true } as const;
const DEFAULT_KEYS: ReadonlySet<string> = new Set(DEFAULT_REDACT_KEYS);

/**
 * The view of `request`: plain JSON, every string inert.
 *
 * @example
 * const view = approvalView(request, { reason: 'write_file requires approval', redactKeys: policy.redact.keys });
 * view.blocks[0] // { kind: 'diff', path: { text: 'notes.md' }, lines: [{ op: '@', text: '@@ -1 +1 @@' }, ...] }
 */
/** What an "always" choice's id may be: it goes into a form value and an API field. */
const SCOPE_ID = /^[a-z][a-z0-9_-]{0,31}$/;

export function approvalView(request: PresentedRequest, options: ApprovalViewOptions = {}): ApprovalView {
  const counter = { hidden: 0 };
  const inert = (text: unknown, sanitize: Parameters<typeof inertLine>[1]): string => counted(inertLine(typeof text === 'string' ? text : String(text ?? ''), sanitize), counter).text;
  const keys = options.revealSecrets === true ? new Set<string>() : (options.redactKeys ?? DEFAULT_KEYS);
  const presentationMasked = maskedSecretsOf(request);
  const blocks: ViewBlock[] =
    request.presentation !== undefined && request.presentation !== null && typeof request.presentation === 'object'
      ? presentationBlocks(request.presentation, {
          fullContent: options.fullContent !== false,
          revealedArgs: options.revealSecrets === true && presentationMasked > 0 && request.call !== undefined ? { value: request.call.args } : undefined,
        })
      : [maskedFields(request.payload, keys).block];
  const args = maskedFields(request.call?.args ?? {}, keys);
  // What the tool said of the call beside its presentation (the shell: the headline, the consequences, the reasons; a hook's run: who asks).
  const metadata: Record<string, unknown> = typeof request.presentation?.metadata === 'object' && request.presentation.metadata !== null ? request.presentation.metadata : {};
  const warnings: string[] = [];
  const called = request.call?.tool;
  if (called !== undefined && called !== request.tool) warnings.push(inert(`the request names ${JSON.stringify(request.tool)} but the call is to ${JSON.stringify(called)}`, SENTENCE_OPTIONS));
  const view: ApprovalView = {
    version: 1,
    tool: inert(request.tool, SENTENCE_OPTIONS),
    description: inert(request.description, DESCRIPTION_OPTIONS),
    summary: inertText(singleParagraph(typeof request.description === 'string' ? request.description : ''), SENTENCE_OPTIONS),
    reason: options.reason === undefined ? null : inert(options.reason, DESCRIPTION_OPTIONS),
    prompt: options.prompt === undefined ? null : inert(options.prompt, DESCRIPTION_OPTIONS),
    asked_by: request.askedBy === undefined ? null : inert(`${request.askedBy.rule}${request.askedBy.at === undefined ? '' : ` — ${request.askedBy.at}`}`, SENTENCE_OPTIONS),
    headline: typeof metadata.headline === 'string' && metadata.headline !== '' ? inert(metadata.headline, SENTENCE_OPTIONS) : null,
    consequences: texts(metadata.consequences).map((line) => inert(line, SENTENCE_OPTIONS)),
    reasons: texts(metadata.reasons).map((line) => inert(line, SENTENCE_OPTIONS)),
    asker: texts(metadata.asker).map((line) => inert(line, SENTENCE_OPTIONS)),
    risk: texts(metadata.consequences).length > 0 || metadata.risk === 'dangerous' ? 'dangerous' : metadata.risk === 'routine' ? 'routine' : 'notable',
    always_scope: inert(alwaysScopeText(request, keys), SENTENCE_OPTIONS),
    always_choices: (request.alwaysScopes ?? []).filter((scope) => SCOPE_ID.test(String(scope?.id))).slice(0, 8).map((scope) => ({ id: scope.id, text: inert(scope.text, SENTENCE_OPTIONS), rule: inert(scope.rule, SENTENCE_OPTIONS) })),
    required: request.required !== false,
    group_id: request.groupId === undefined ? null : inert(request.groupId, SENTENCE_OPTIONS),
    session_scope: inert(sessionScopeText(request, keys), SENTENCE_OPTIONS),
    masked_secrets: options.revealSecrets === true ? 0 : presentationMasked,
    arguments_masked_secrets: args.masked,
    hidden_characters: 0,
    warnings,
    blocks,
    arguments: args.block,
  };
  // What the blocks show (the arguments often repeat them, so they are not counted twice).
  for (const line of blocks.flatMap(blockLines)) counted(line, counter);
  view.hidden_characters = counter.hidden;
  return view;
}

/**
 * Every line of a block, for counting or searching.
 *
 * @example
 * blockLines({ kind: 'text', lines: [{ text: 'a' }], preformatted: false }) // [{ text: 'a' }]
 */
export function blockLines(block: ViewBlock): ViewLine[] {
  switch (block.kind) {
    case 'command':
      return block.cwd === null ? block.command : [...block.command, block.cwd];
    case 'diff':
      return block.path === null ? block.lines : [block.path, ...block.lines];
    case 'file':
      return block.path === null ? block.lines : [block.path, ...block.lines];
    case 'fields':
      return block.fields.flatMap((field) => [field.key, ...field.value]);
    case 'text':
      return block.lines;
    case 'binary':
      return block.path === null ? [block.description, block.preview] : [block.path, block.description, block.preview];
  }
}

/**
 * How many hidden characters a line shows escaped (a marker like `⟨… 300 × \x00⟩` counts them all).
 *
 * @example
 * hiddenIn({ text: 'a\\x1b', spans: [{ text: 'a', kind: 'text' }, { text: '\\x1b', kind: 'escape' }] }) // 1
 */
export function hiddenIn(line: ViewLine): number {
  let count = 0;
  for (const span of line.spans ?? []) {
    if (span.kind === 'escape') count += 1;
    else if (span.kind === 'marker') count += Number(/^⟨… (\d+) × /u.exec(span.text)?.[1] ?? 0);
  }
  return count;
}

function counted(line: ViewLine, counter: { hidden: number }): ViewLine {
  counter.hidden += hiddenIn(line);
  return line;
}

function maskedFields(value: unknown, keys: ReadonlySet<string>): { block: FieldsBlock | TextBlock; masked: number } {
  try {
    const masked = maskSecrets(value, keys);
    return { block: fieldsFromJson(safeJson(masked.value)), masked: masked.masked };
  } catch {
    return { block: { kind: 'text', lines: [{ text: '[a value that cannot be shown as JSON]' }], preformatted: false }, masked: 0 };
  }
}

/** How many values the presentation masked as secrets (`metadata.masked_secrets`). */
function maskedSecretsOf(request: PresentedRequest): number {
  const metadata = request.presentation?.metadata;
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata) || request.call === undefined) return 0;
  return metadataNumber(metadata, ['masked_secrets']) ?? 0;
}

/** What "for this session" covers; the sentence quotes payload values, so secrets in them are masked first. */
function sessionScopeText(request: PresentedRequest, keys: ReadonlySet<string>): string {
  try {
    const payload = maskSecrets(request.payload, keys).value;
    const call = request.call === undefined ? undefined : { args: maskSecrets(request.call.args, keys).value };
    return sessionApprovalScope({ request: { tool: request.tool, payload }, call }).text;
  } catch {
    return 'later calls with an equal approval payload';
  }
}

/**
 * Folds line breaks and runs of blanks into single spaces (a lone `\r` stays, to be shown escaped).
 *
 * @example
 * singleParagraph('a\n\n  b') // 'a b'
 */
export function singleParagraph(text: string): string {
  return text.replace(/(?:\r?\n|[ \t])+/g, ' ').trim();
}

/** What "Always" covers: the approvals file remembers the tool and its approval payload exactly (src/approvals). */
function alwaysScopeText(request: PresentedRequest, redactKeys: ReadonlySet<string>): string {
  return alwaysApprovalScopeText(request, sessionScopeText(request, redactKeys));
}

/** The strings of a metadata list (anything else in it is left out). */
function texts(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string' && item !== '').slice(0, 20) : [];
}
