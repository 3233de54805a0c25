/**
 * Draws an approval request as a box for a terminal. Everything taken from
 * the request (tool name, description, presentation, metadata, payload) is
 * untrusted: it goes through `sanitizeTerminalSegments` before layout, so the
 * box shows exactly what will run and nothing in it can move the cursor,
 * recolour, hide or reorder text. Long lines wrap (marked `↪`), never cut.
 */
import type { PresentedRequest } from '../../core/approver.ts';
import { sessionApprovalScope } from '../../core/session-approval-scope.ts';
import { sanitizeTerminalSegments } from '../../core/sanitize-terminal-text.ts';
import {
  CONTINUATION,
  drawBox,
  INDENT,
  limitRows,
  piecesWidth,
  plainLine,
  sanitizeInto,
  splitLines,
  styled,
  wrapLine,
  wrapLines,
  type LogicalLine,
  type Piece,
  type RenderContext,
  type Row,
  type Section,
} from './box-layout.ts';
import { maskedSecrets, presentationBody } from './presentation-lines.ts';

/** The terminal prompt's keys: `toolgate check --show` prints a prompt exactly as the terminal asks it. */
export const DEFAULT_APPROVAL_KEYS = '[y] approve once  [s] approve for session  [a] approve always  [n] deny  [v] view full  [e] edit  [?] help';
/** The key line of a batch: one answer for every request in it. */
export const DEFAULT_GROUP_APPROVAL_KEYS = '[y] approve all once  [s] approve all for session  [n] deny all  [v] view full  [?] help';
export const DEFAULT_MAX_LINES = 30;

export interface RenderApprovalOptions {
  request: PresentedRequest;
  /** Whether to colour; false gives printable text and newlines only (NO_COLOR, pipes). */
  color: boolean;
  /** Terminal columns; the box takes all of them (at least 24). */
  width: number;
  /** Content lines shown before truncating (after wrapping). Default 30. */
  maxLines?: number;
  /** Show everything, ignoring `maxLines` (the [v] view). */
  full?: boolean;
  /** The key help line. */
  keys?: string;
}

export interface RenderApprovalGroupOptions extends Omit<RenderApprovalOptions, 'request'> {
  requests: readonly PresentedRequest[];
}

export interface RenderedApproval {
  text: string;
  /** Whether something was left out; `full: true` shows it. */
  truncated: boolean;
}

/**
 * Renders one approval request as a box: the tool name as title, the
 * description, the presentation (diff, file, command, structured data or
 * text; the payload as JSON when there is none) and the key help line.
 *
 * @example
 * const { text } = renderApproval({ request, color: process.stdout.isTTY && !process.env.NO_COLOR, width: process.stdout.columns ?? 80 });
 * process.stdout.write(text);
 */
export function renderApproval(options: RenderApprovalOptions): RenderedApproval {
  const context = createContext(options);
  const { request } = options;
  const head: Row[] = [];
  const title = titleLine({ context, title: request.tool, required: request.required !== false, overflowPrefix: 'tool: ' });
  if (title.overflow !== undefined) head.push(...wrapLines([title.overflow], context.innerWidth));

  const descriptionLines = descriptionToLines(context, request.description);
  const body = presentationBody(context, request);
  const keyText = options.keys ?? DEFAULT_APPROVAL_KEYS;
  const keys = [...keysToLines(context, keyText), ...sessionScopeLines(request, keyText)];

  // Warnings come last to build (they summarise every field) but print first, where they cannot be pushed out of view.
  head.unshift(...wrapLines(warningLines(context, mismatchWarnings([request])), context.innerWidth));
  const masked = maskedSecrets(request);
  if (masked > 0 && !context.full) {
    const how = keyText.includes('[v]') ? ': [v] view full shows them' : '';
    head.push(...wrapLines([plainLine(`🔒 ${masked} secret ${masked === 1 ? 'value is' : 'values are'} masked (redact.keys)${how}`, ['yellow'])], context.innerWidth));
  }
  const description = limitRows({ context, lines: descriptionLines, budget: descriptionBudget(context) });
  head.push(...description.rows);
  head.push(...wrapLines(askedByLines(context, request), context.innerWidth));
  const content = limitRows({ context, lines: body.lines, budget: context.full ? undefined : context.maxLines });

  const sections: Section[] = [];
  if (head.length > 0) sections.push({ rows: head });
  sections.push({ label: body.label, rows: content.rows });
  sections.push({ rows: wrapLines(keys, context.innerWidth) });
  return { text: drawBox({ context, title: title.pieces, sections }), truncated: description.truncated || content.truncated };
}

/**
 * Renders several requests that share a `groupId` as one box: a compact
 * entry per request (name, description, the start of its presentation) and
 * one key line for the whole group.
 *
 * @example
 * const { text } = renderApprovalGroup({ requests, color: false, width: 80 });
 */
export function renderApprovalGroup(options: RenderApprovalGroupOptions): RenderedApproval {
  const context = createContext(options);
  const { requests } = options;
  const groupIds = [...new Set(requests.map((request) => request.groupId))];
  const groupId = groupIds.length === 1 ? groupIds[0] : undefined;
  const titleText = `${requests.length} ${requests.length === 1 ? 'request' : 'requests'}${groupId === undefined ? '' : ` · group ${groupId}`}`;
  const title = titleLine({ context, title: titleText, required: true, overflowPrefix: 'group: ' });
  const head: Row[] = [];
  if (title.overflow !== undefined) head.push(...wrapLines([title.overflow], context.innerWidth));

  // Each entry gets a share of the line budget, but always enough to see what it does.
  const entryBudget = context.full ? undefined : Math.max(3, Math.floor(context.maxLines / Math.max(1, requests.length)));
  let truncated = false;
  const entries: Section[] = requests.map((request, index) => {
    const rows: Row[] = [];
    const name = styled(sanitizeInto(context, String(request.tool), { collapse: true }), ['bold']);
    const header: Piece[] = [{ text: `[${index + 1}] `, kind: 'text', styles: ['bold'] }, ...name];
    if (piecesWidth(name) === 0) header.push({ text: '(no tool name)', kind: 'text', styles: ['dim'] });
    if (request.required === false) header.push({ text: ' (optional)', kind: 'text', styles: ['dim'] });
    rows.push(...wrapLines([{ pieces: header, continuation: INDENT, wordWrap: false }], context.innerWidth));
    const description = limitRows({ context, lines: descriptionToLines(context, request.description), budget: context.full ? undefined : 2 });
    const body = presentationBody(context, request);
    const labelLines: LogicalLine[] = body.label === undefined ? [] : [{ pieces: body.label.map((piece) => ({ ...piece, styles: ['dim'] })), continuation: INDENT, wordWrap: false }];
    const content = limitRows({ context, lines: [...labelLines, ...body.lines], budget: entryBudget });
    truncated ||= description.truncated || content.truncated;
    rows.push(...description.rows, ...content.rows);
    return { rows };
  });
  if (requests.length === 0) entries.push({ rows: wrapLines([plainLine('(no requests)', ['dim'])], context.innerWidth) });

  const warnings = mismatchWarnings(requests);
  if (groupIds.length > 1) warnings.push('these requests do not share one group id');
  head.unshift(...wrapLines(warningLines(context, warnings), context.innerWidth));
  const sections: Section[] = [];
  if (head.length > 0) sections.push({ rows: head });
  sections.push(...entries);
  const groupKeys = options.keys ?? DEFAULT_GROUP_APPROVAL_KEYS;
  const scopes = groupSessionScopeLines(context, requests, groupKeys);
  truncated ||= scopes.truncated;
  sections.push({ rows: wrapLines([...keysToLines(context, groupKeys), ...scopes.lines], context.innerWidth) });
  return { text: drawBox({ context, title: title.pieces, sections }), truncated };
}

const MIN_BOX_WIDTH = 24;

function createContext(options: Omit<RenderApprovalOptions, 'request'>): RenderContext {
  const requested = Number.isFinite(options.width) && options.width > 0 ? Math.floor(options.width) : 80;
  const boxWidth = Math.max(MIN_BOX_WIDTH, requested);
  const maxLines = options.maxLines !== undefined && Number.isFinite(options.maxLines) && options.maxLines >= 1 ? Math.floor(options.maxLines) : DEFAULT_MAX_LINES;
  return { color: options.color, boxWidth, innerWidth: boxWidth - 4, maxLines, full: options.full === true, hidden: { count: 0, examples: [] } };
}

function titleLine(options: { context: RenderContext; title: string; required: boolean; overflowPrefix: string }): { pieces: Piece[]; overflow: LogicalLine | undefined } {
  const { context } = options;
  const name = styled(sanitizeInto(context, String(options.title), { collapse: true }), ['bold']);
  const pieces: Piece[] = piecesWidth(name) === 0 ? [{ text: '(no tool name)', kind: 'text', styles: ['dim'] }] : name;
  if (!options.required) pieces.push({ text: ' (optional)', kind: 'text', styles: ['dim'] });
  const room = context.boxWidth - 6;
  if (piecesWidth(pieces) <= room) return { pieces, overflow: undefined };
  // Too long for the border: cut it there with an ellipsis, and print the whole name inside the box.
  const first = wrapLine({ pieces, continuation: [], wordWrap: false }, room - 1)[0] ?? [];
  return {
    pieces: [...first, { text: '…', kind: 'text', styles: ['dim'] }],
    overflow: { prefix: [{ text: options.overflowPrefix, kind: 'text', styles: ['dim'] }], pieces, continuation: CONTINUATION, wordWrap: false },
  };
}

/**
 * The description as a person first sees it: one paragraph (line breaks and
 * runs of blanks folded into one space), so a tool description from a server
 * cannot fill the screen with empty lines; the full view keeps its lines.
 */
/** `asked by shell.default (ask) — toolgate.yaml:6`: the rule's label and path quote policy text, so they go through the sanitiser. */
function askedByLines(context: RenderContext, request: PresentedRequest): LogicalLine[] {
  if (request.askedBy === undefined) return [];
  const text = `asked by ${request.askedBy.rule}${request.askedBy.at === undefined ? '' : ` — ${request.askedBy.at}`}`;
  return splitLines(sanitizeInto(context, text, { keepNewlines: false, keepTabs: false, collapse: true })).map((segments) => ({ pieces: styled(segments, ['dim']), continuation: [], wordWrap: true }));
}

function descriptionToLines(context: RenderContext, description: string): LogicalLine[] {
  if (typeof description !== 'string' || description === '') return [];
  const text = context.full ? description : singleParagraph(description);
  return splitLines(sanitizeInto(context, text, { keepNewlines: context.full, keepTabs: true, collapse: true })).map((segments) => ({
    pieces: styled(segments, []),
    continuation: [],
    wordWrap: true,
  }));
}

/** Folds newlines (a lone `\r` stays, to be shown escaped), tabs and spaces into single spaces. */
function singleParagraph(text: string): string {
  return text.replace(/(?:\r?\n|[ \t])+/g, ' ').trim();
}

/** Rows the description may take before the arguments: a bounded summary, the rest behind [v]. */
const DESCRIPTION_ROWS = 4;

function descriptionBudget(context: RenderContext): number | undefined {
  return context.full ? undefined : Math.min(DESCRIPTION_ROWS, Math.max(2, Math.floor(context.maxLines / 3)));
}

/**
 * Where `[s]` is offered, what it covers (for a file write: any later
 * content for the same path). Built from the request by the one function
 * every approver uses; its values come from the request, so they are
 * sanitized like the rest of the box.
 */
function sessionScopeLines(request: PresentedRequest, keys: string): LogicalLine[] {
  if (!keys.includes('[s]')) return [];
  return [sessionScopeLine(request, '[s] covers ')];
}

/** Entries whose `[s]` coverage is spelled out before the rest is left to the full view. */
const GROUP_SCOPE_LINES = 4;

/** For a batch, what `[s]` covers for each request (the first few; all of them in the full view). */
function groupSessionScopeLines(context: RenderContext, requests: readonly PresentedRequest[], keys: string): { lines: LogicalLine[]; truncated: boolean } {
  if (!keys.includes('[s]') || requests.length === 0) return { lines: [], truncated: false };
  const shown = context.full ? requests.length : Math.min(requests.length, GROUP_SCOPE_LINES);
  const lines = requests.slice(0, shown).map((request, index) => sessionScopeLine(request, `[s] covers for [${index + 1}] `));
  if (shown < requests.length) lines.push(plainLine(`… and for ${requests.length - shown} more — press [v] to view all`, ['dim']));
  return { lines, truncated: shown < requests.length };
}

function sessionScopeLine(request: PresentedRequest, prefix: string): LogicalLine {
  let text: string;
  try {
    text = sessionApprovalScope({ request, call: request.call }).text;
  } catch {
    text = 'later calls with an equal approval payload';
  }
  const segments = sanitizeTerminalSegments(`${prefix}${text}`, { collapse: true });
  return { pieces: styled(segments, ['dim']), continuation: [{ text: '    ', kind: 'text', styles: [] }], wordWrap: true };
}

function keysToLines(context: RenderContext, keys: string): LogicalLine[] {
  const segments = sanitizeInto(context, String(keys), { collapse: true });
  if (segments.length !== 1 || segments[0]!.kind !== 'text') return [{ pieces: styled(segments, []), continuation: [], wordWrap: true }];
  // Items are separated by two or more spaces; wrapping between them keeps "[v] view full" together.
  const pieces: Piece[] = [];
  for (const part of segments[0]!.text.split(/( {2,})/)) {
    if (part === '') continue;
    pieces.push({ text: part, kind: 'text', styles: [], atomic: !part.startsWith(' ') });
  }
  return [{ pieces, continuation: [], wordWrap: true }];
}

function mismatchWarnings(requests: readonly PresentedRequest[]): string[] {
  const warnings: string[] = [];
  for (const request of requests) {
    const called = request.call?.tool;
    if (called !== undefined && called !== request.tool) warnings.push(`the request names ${JSON.stringify(request.tool)} but the call is to ${JSON.stringify(called)}`);
  }
  return warnings;
}

function warningLines(context: RenderContext, warnings: readonly string[]): LogicalLine[] {
  const lines: LogicalLine[] = [];
  if (context.hidden.count > 0) {
    const count = context.hidden.count;
    lines.push({
      pieces: [
        { text: `⚠ ${count} hidden or control ${count === 1 ? 'character is' : 'characters are'} shown escaped, e.g. `, kind: 'text', styles: ['yellow', 'bold'] },
        ...context.hidden.examples.flatMap((example, index): Piece[] => [
          ...(index === 0 ? [] : [{ text: ' ', kind: 'text' as const, styles: [] }]),
          { text: example, kind: 'escape', styles: ['inverse'] },
        ]),
      ],
      continuation: [{ text: '  ', kind: 'text', styles: [] }],
      wordWrap: true,
    });
  }
  for (const warning of warnings) {
    // Warnings quote request fields, so they are sanitized like everything else (and not counted again).
    const segments = sanitizeTerminalSegments(`⚠ ${warning}`, { collapse: true });
    lines.push({ pieces: styled(segments, ['yellow', 'bold']), continuation: [{ text: '  ', kind: 'text', styles: [] }], wordWrap: true });
  }
  return lines;
}
