/**
 * Draws an approval request as a box for a terminal. Everything taken from
 * the request (tool name, description, presentation, metadata, payload) is
 * untrusted: it goes through `sanitizeTerminalSegments` before layout, so the
 * box shows exactly what will run and nothing in it can move the cursor,
 * recolour, hide or reorder text. Long lines wrap (marked `↪`), never cut.
 */
import { styleText } from 'node:util';
import { formatPatch, OMIT_HEADERS, structuredPatch } from 'diff';
import type { PresentedRequest } from '../../core/approver.ts';
import { sessionApprovalScope } from '../../core/session-approval-scope.ts';
import { readingOrder, safeJson } from './json-for-reading.ts';
import { codePointWidth, displayWidth, sanitizeTerminalSegments, type SanitizeTerminalTextOptions, type TerminalSegment } from '../../core/sanitize-terminal-text.ts';

export const DEFAULT_APPROVAL_KEYS = '[y] approve once  [s] approve for session  [n] deny  [v] view full  [e] edit';
export const DEFAULT_GROUP_APPROVAL_KEYS = '[y] approve all once  [s] approve all for session  [n] deny all  [v] view full';
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

type StyleName = 'bold' | 'dim' | 'green' | 'red' | 'cyan' | 'yellow' | 'inverse';

/** A run of text with its styles; escapes and markers stay whole when wrapping. */
interface Piece {
  text: string;
  kind: TerminalSegment['kind'];
  styles: readonly StyleName[];
  /** Kept on one row like an escape (a key and its label). */
  atomic?: boolean;
}

/** One source line: its pieces, what starts it, and what starts the rows it wraps onto. */
interface LogicalLine {
  prefix?: Piece[];
  pieces: Piece[];
  continuation: Piece[];
  /** Break at spaces (prose) rather than at the last column (code, data). */
  wordWrap: boolean;
}

type Row = Piece[];

interface Section {
  label?: Piece[] | undefined;
  rows: Row[];
}

interface RenderContext {
  color: boolean;
  boxWidth: number;
  innerWidth: number;
  maxLines: number;
  full: boolean;
  /** Hidden characters found in any field, even in parts truncated away. */
  hidden: { count: number; examples: string[] };
}

const MIN_BOX_WIDTH = 24;
const MAX_BLANK_LINES = 3;
const BINARY_PREVIEW_CODE_POINTS = 48;
const CONTINUATION: Piece[] = [{ text: '↪ ', kind: 'text', styles: ['dim'] }];
const INDENT: Piece[] = [{ text: '    ', kind: 'text', styles: [] }];

function createContext(options: Omit<RenderApprovalOptions, 'request'>): RenderContext {
  const requested = Number.isFinite(options.width) && options.width > 0 ? Math.floor(options.width) : 80;
  const boxWidth = Math.max(MIN_BOX_WIDTH, requested);
  const maxLines = options.maxLines !== undefined && Number.isFinite(options.maxLines) && options.maxLines >= 1 ? Math.floor(options.maxLines) : DEFAULT_MAX_LINES;
  return { color: options.color, boxWidth, innerWidth: boxWidth - 4, maxLines, full: options.full === true, hidden: { count: 0, examples: [] } };
}

/** Sanitizes one field and records what had to be escaped, for the warning line. */
function sanitizeInto(context: RenderContext, text: string, options: SanitizeTerminalTextOptions): TerminalSegment[] {
  const segments = sanitizeTerminalSegments(text, options);
  for (const segment of segments) {
    if (segment.kind === 'text') continue;
    const hidden = hiddenIn(segment);
    if (hidden === undefined) continue;
    context.hidden.count += hidden.count;
    if (context.hidden.examples.length < 4 && !context.hidden.examples.includes(hidden.escape)) context.hidden.examples.push(hidden.escape);
  }
  return segments;
}

/** An escape stands for one hidden character; a marker like `⟨… 300 × \x00⟩` for many. */
function hiddenIn(segment: TerminalSegment): { count: number; escape: string } | undefined {
  if (segment.kind === 'escape') return { count: 1, escape: segment.text };
  const run = /^⟨… (\d+) × (.+)⟩$/u.exec(segment.text);
  return run === null ? undefined : { count: Number(run[1]), escape: run[2]! };
}

function styled(segments: readonly TerminalSegment[], styles: readonly StyleName[]): Piece[] {
  return segments.map((segment) => ({
    text: segment.text,
    kind: segment.kind,
    // Escapes are shown inverted so `\x1b` from the text and a literal backslash-x-1-b can be told apart on a colour terminal.
    styles: segment.kind === 'escape' ? [...styles, 'inverse'] : segment.kind === 'marker' ? ['dim'] : styles,
  }));
}

function plainLine(text: string, styles: readonly StyleName[] = []): LogicalLine {
  return { pieces: [{ text, kind: 'text', styles }], continuation: [], wordWrap: true };
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

/** The presentation as lines, plus the label for the separator above it. */
function presentationBody(context: RenderContext, request: PresentedRequest): { label: Piece[] | undefined; lines: LogicalLine[] } {
  const presentation = request.presentation;
  if (presentation === undefined || presentation === null || typeof presentation !== 'object') {
    return { label: undefined, lines: structuredLines(context, readingOrder(safeJson(request.payload))) };
  }
  const metadata = isRecord(presentation.metadata) ? presentation.metadata : {};
  // The full view shows the whole content where the tool kept it (seed 001's `metadata.full_content`),
  // and masked secrets as they are, from the call's own arguments: what the person approves is what runs.
  const revealed = context.full && presentation.type === 'structured' && maskedSecrets(request) > 0 ? safeJson(request.call.args) : undefined;
  const fullContent = revealed ?? (context.full && typeof metadata.full_content === 'string' ? metadata.full_content : undefined);
  const content = fullContent ?? (typeof presentation.content === 'string' ? presentation.content : safeJson(presentation.content));
  const path = metadataString(metadata, ['path', 'filePath', 'file', 'filename']);
  const language = typeof presentation.language === 'string' && presentation.language !== '' ? presentation.language : undefined;
  switch (presentation.type) {
    case 'command': {
      // A command is never summarised as binary: the person must always see what will run.
      const cwd = metadataString(metadata, ['cwd', 'workingDirectory']);
      return { label: undefined, lines: commandLines(context, content, cwd) };
    }
    case 'diff': {
      const label = path === undefined ? undefined : labelPieces(context, [path]);
      if (looksBinary(content)) return { label, lines: binaryLines(context, content, metadata) };
      return { label, lines: diffLines(context, diffText(content, metadata)) };
    }
    case 'file_content': {
      const label = path === undefined && language === undefined ? undefined : labelPieces(context, [path, language]);
      if (looksBinary(content)) return { label, lines: binaryLines(context, content, metadata) };
      return { label, lines: fileLines(context, content, language) };
    }
    case 'structured':
      if (looksBinary(content)) return { label: undefined, lines: binaryLines(context, content, metadata) };
      return { label: undefined, lines: structuredLines(context, readingOrder(content)) };
    case 'text':
    default:
      if (looksBinary(content)) return { label: undefined, lines: binaryLines(context, content, metadata) };
      return { label: undefined, lines: textLines(context, content, { wordWrap: true }) };
  }
}

/** How many values the presentation masked as secrets (`metadata.masked_secrets`), for the note and the reveal. */
function maskedSecrets(request: PresentedRequest): number {
  const metadata = request.presentation?.metadata;
  if (!isRecord(metadata) || request.call === undefined) return 0;
  return metadataNumber(metadata, ['masked_secrets']) ?? 0;
}

function labelPieces(context: RenderContext, parts: readonly (string | undefined)[]): Piece[] {
  const text = parts.filter((part): part is string => part !== undefined).join(' · ');
  return styled(sanitizeInto(context, text, { collapse: true }), ['bold']);
}

function textLines(context: RenderContext, content: string, options: { wordWrap: boolean }): LogicalLine[] {
  if (content === '') return [plainLine('(empty)', ['dim'])];
  return groupBlankLines(rawLines(content)).map((line) =>
    line.blankRun !== undefined
      ? { pieces: [blankMarker(line.blankRun)], continuation: CONTINUATION, wordWrap: false }
      : { pieces: styled(lineSegments(context, line.text), []), continuation: CONTINUATION, wordWrap: options.wordWrap },
  );
}

function structuredLines(context: RenderContext, content: string): LogicalLine[] {
  return textLines(context, content, { wordWrap: false });
}

function commandLines(context: RenderContext, command: string, cwd: string | undefined): LogicalLine[] {
  const lines: LogicalLine[] = groupBlankLines(rawLines(command)).map((line, index) => {
    // `$` opens the command and `>` marks each further line, as a shell does: a newline in a command is a separator the person must see.
    const prefix: Piece[] = [{ text: index === 0 ? '$ ' : '> ', kind: 'text', styles: ['dim'] }];
    if (line.blankRun !== undefined) return { prefix, pieces: [blankMarker(line.blankRun)], continuation: CONTINUATION, wordWrap: false };
    return { prefix, pieces: styled(lineSegments(context, line.text), ['bold']), continuation: CONTINUATION, wordWrap: false };
  });
  if (cwd !== undefined) {
    lines.push({
      prefix: [{ text: 'in ', kind: 'text', styles: ['dim'] }],
      pieces: styled(sanitizeInto(context, cwd, { collapse: true }), []),
      continuation: CONTINUATION,
      wordWrap: false,
    });
  }
  return lines;
}

/** A diff given as text, or built from before/after contents in the metadata when the text is empty. */
function diffText(content: string, metadata: Record<string, unknown>): string {
  if (content.trim() !== '') return content;
  const before = metadataString(metadata, ['oldContent', 'before', 'original']);
  const after = metadataString(metadata, ['newContent', 'after', 'modified']);
  if (before === undefined || after === undefined) return content;
  return formatPatch(structuredPatch('a', 'b', before, after, undefined, undefined, { context: 3 }), OMIT_HEADERS);
}

function diffLines(context: RenderContext, diff: string): LogicalLine[] {
  if (diff.trim() === '') return [plainLine('(no changes)', ['dim'])];
  // Track hunk sizes so a removed line that starts with "--" is coloured as a removal, not as a file header.
  let oldRemaining = 0;
  let newRemaining = 0;
  return rawLines(diff).map((raw) => {
    let styles: StyleName[] = [];
    const inHunk = oldRemaining > 0 || newRemaining > 0;
    const hunk = /^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@/.exec(raw);
    if (!inHunk && hunk !== null) {
      oldRemaining = hunk[1] === undefined ? 1 : Number(hunk[1]);
      newRemaining = hunk[2] === undefined ? 1 : Number(hunk[2]);
      styles = ['cyan'];
    } else if (inHunk && raw.startsWith('+')) {
      newRemaining -= 1;
      styles = ['green'];
    } else if (inHunk && raw.startsWith('-')) {
      oldRemaining -= 1;
      styles = ['red'];
    } else if (inHunk && (raw.startsWith(' ') || raw === '')) {
      oldRemaining -= 1;
      newRemaining -= 1;
    } else if (raw.startsWith('\\')) {
      styles = ['dim'];
    } else if (raw.startsWith('+++') || raw.startsWith('---')) {
      styles = ['bold'];
    } else if (raw.startsWith('@@')) {
      styles = ['cyan'];
    } else if (raw.startsWith('+')) {
      // Outside a well-formed hunk (a hand-written or malformed diff): colour by the sign anyway.
      styles = ['green'];
    } else if (raw.startsWith('-')) {
      styles = ['red'];
    }
    return { pieces: styled(lineSegments(context, raw), styles), continuation: CONTINUATION.map((piece) => ({ ...piece, styles })), wordWrap: false };
  });
}

function fileLines(context: RenderContext, content: string, language: string | undefined): LogicalLine[] {
  if (content === '') return [plainLine('(empty file)', ['dim'])];
  const lines = rawLines(content);
  const digits = String(lines.length).length;
  const comment = commentMarker(language);
  const gutter = (text: string): Piece[] => [{ text: `${text.padStart(digits)}  `, kind: 'text', styles: ['dim'] }];
  const result: LogicalLine[] = [];
  let number = 1;
  for (const line of groupBlankLines(lines)) {
    if (line.blankRun !== undefined) {
      result.push({ prefix: gutter(''), pieces: [blankMarker(line.blankRun)], continuation: gutter('↪'), wordWrap: false });
      number += line.blankRun;
      continue;
    }
    // Only whole-line comments are dimmed: telling strings from code needs a real lexer, and a wrong guess would misrepresent the file.
    const styles: StyleName[] = comment !== undefined && line.text.trimStart().startsWith(comment) ? ['dim'] : [];
    result.push({ prefix: gutter(String(number)), pieces: styled(lineSegments(context, line.text), styles), continuation: gutter('↪'), wordWrap: false });
    number += 1;
  }
  return result;
}

function commentMarker(language: string | undefined): string | undefined {
  if (language === undefined) return undefined;
  const name = language.toLowerCase();
  if (HASH_COMMENT_LANGUAGES.has(name)) return '#';
  if (SLASH_COMMENT_LANGUAGES.has(name)) return '//';
  if (DASH_COMMENT_LANGUAGES.has(name)) return '--';
  return undefined;
}

const HASH_COMMENT_LANGUAGES = new Set(['python', 'py', 'sh', 'bash', 'shell', 'zsh', 'fish', 'yaml', 'yml', 'toml', 'ruby', 'rb', 'perl', 'r', 'dockerfile', 'makefile', 'make', 'powershell', 'ps1']);
const SLASH_COMMENT_LANGUAGES = new Set(['javascript', 'js', 'mjs', 'cjs', 'typescript', 'ts', 'tsx', 'jsx', 'c', 'h', 'cpp', 'c++', 'cc', 'hpp', 'java', 'go', 'rust', 'rs', 'kotlin', 'kt', 'swift', 'csharp', 'cs', 'scala', 'php', 'dart', 'jsonc', 'json5']);
const DASH_COMMENT_LANGUAGES = new Set(['sql', 'lua', 'haskell', 'hs']);

function binaryLines(context: RenderContext, content: string, metadata: Record<string, unknown>): LogicalLine[] {
  const described = metadataString(metadata, ['description', 'summary']);
  const size = metadataNumber(metadata, ['size', 'bytes', 'byteLength']) ?? Buffer.byteLength(content, 'utf8');
  const type = metadataString(metadata, ['mimeType', 'mediaType', 'contentType']);
  const summary = described ?? `binary content (${size} ${size === 1 ? 'byte' : 'bytes'}${type === undefined ? '' : `, ${type}`})`;
  const preview = Array.from(content.slice(0, BINARY_PREVIEW_CODE_POINTS * 2)).slice(0, BINARY_PREVIEW_CODE_POINTS).join('');
  // The preview is escaped like everything else, so a NUL cannot be used to hide readable text behind the summary.
  const previewSegments = sanitizeTerminalSegments(preview, { collapse: true });
  return [
    { pieces: styled(sanitizeInto(context, summary, { collapse: true }), ['bold']), continuation: CONTINUATION, wordWrap: true },
    {
      prefix: [{ text: 'starts with: ', kind: 'text', styles: ['dim'] }],
      pieces: [...styled(previewSegments, []), ...(preview.length < content.length ? [{ text: '…', kind: 'text' as const, styles: ['dim' as const] }] : [])],
      continuation: CONTINUATION,
      wordWrap: false,
    },
  ];
}

/**
 * Binary when it has a NUL, or when more than a tenth of its start is
 * replacement characters, lone surrogates or control characters that text
 * does not use.
 */
function looksBinary(content: string): boolean {
  if (content.includes('\u0000')) return true;
  const sample = content.slice(0, 8192);
  if (sample.length === 0) return false;
  let suspicious = 0;
  for (let index = 0; index < sample.length; index += 1) {
    const code = sample.charCodeAt(index);
    if (code === 0xfffd || (code < 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0d && code !== 0x0c && code !== 0x1b)) suspicious += 1;
    else if (code >= 0xd800 && code <= 0xdbff && index + 1 < sample.length && isLowSurrogate(sample.charCodeAt(index + 1))) index += 1;
    else if (code >= 0xd800 && code <= 0xdfff) suspicious += 1;
  }
  return suspicious / sample.length > 0.1;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** Source lines; a final newline ends the last line rather than starting an empty one. */
function rawLines(content: string): string[] {
  const lines = content.split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** Runs of more than a few blank lines become one marker, so nothing can be pushed below the fold with empty lines. */
function groupBlankLines(lines: readonly string[]): Array<{ text: string; blankRun?: number }> {
  const result: Array<{ text: string; blankRun?: number }> = [];
  let index = 0;
  while (index < lines.length) {
    let end = index;
    while (end < lines.length && /^[ \t\u3000]*$/.test(lines[end]!)) end += 1;
    if (end - index > MAX_BLANK_LINES) {
      result.push({ text: '', blankRun: end - index });
      index = end;
    } else {
      result.push({ text: lines[index]! });
      index += 1;
    }
  }
  return result;
}

function blankMarker(count: number): Piece {
  return { text: `⟨… ${count} blank lines⟩`, kind: 'marker', styles: ['dim'] };
}

function lineSegments(context: RenderContext, line: string): TerminalSegment[] {
  return sanitizeInto(context, line, { keepTabs: true, collapse: true });
}

/** Splits sanitized segments at kept newlines (only text segments contain them). */
function splitLines(segments: readonly TerminalSegment[]): TerminalSegment[][] {
  const lines: TerminalSegment[][] = [[]];
  for (const segment of segments) {
    if (segment.kind !== 'text' || !segment.text.includes('\n')) {
      lines[lines.length - 1]!.push(segment);
      continue;
    }
    segment.text.split('\n').forEach((part, index) => {
      if (index > 0) lines.push([]);
      if (part !== '') lines[lines.length - 1]!.push({ text: part, kind: 'text' });
    });
  }
  return lines;
}

/** Wraps lines into rows, keeping at most `budget` rows and a marker saying how many more there are. */
function limitRows(options: { context: RenderContext; lines: readonly LogicalLine[]; budget: number | undefined }): { rows: Row[]; truncated: boolean } {
  const { context, lines, budget } = options;
  const rows: Row[] = [];
  let hidden = 0;
  for (const line of lines) {
    const wrapped = wrapLine(line, context.innerWidth);
    if (budget === undefined) {
      rows.push(...wrapped);
      continue;
    }
    const room = Math.max(0, budget - rows.length);
    rows.push(...wrapped.slice(0, room));
    hidden += Math.max(0, wrapped.length - room);
  }
  if (hidden === 0) return { rows, truncated: false };
  const marker = plainLine(`… ${hidden} more ${hidden === 1 ? 'line' : 'lines'} — press [v] to view all`, ['yellow']);
  rows.push(...wrapLine(marker, context.innerWidth));
  return { rows, truncated: true };
}

function wrapLines(lines: readonly LogicalLine[], width: number): Row[] {
  return lines.flatMap((line) => wrapLine(line, width));
}

interface Atom {
  text: string;
  width: number;
  kind: Piece['kind'];
  styles: readonly StyleName[];
}

/**
 * Breaks one line into rows of at most `width` columns. Escapes and markers
 * are never split (unless wider than a row); wide characters never straddle
 * the edge; continuation rows start with the line's continuation prefix.
 */
function wrapLine(line: LogicalLine, width: number): Row[] {
  const continuationAtoms = toAtoms(line.continuation, Infinity);
  const continuationWidth = sumWidth(continuationAtoms);
  let row: Atom[] = toAtoms(line.prefix ?? [], Infinity);
  let rowWidth = sumWidth(row);
  // An escape or marker must fit on a row after either prefix, or it is split rather than overflowing the box.
  const atoms = toAtoms(line.pieces, Math.max(2, width - Math.max(continuationWidth, rowWidth)));
  const rows: Atom[][] = [];
  let contentStart = row.length;
  for (const atom of atoms) {
    if (rowWidth + atom.width > width && row.length > contentStart) {
      let carry: Atom[] = [];
      if (line.wordWrap) {
        const lastSpace = findLastSpace(row, contentStart);
        if (lastSpace !== -1 && lastSpace > contentStart) {
          const candidate = row.slice(lastSpace + 1);
          if (continuationWidth + sumWidth(candidate) + atom.width <= width) carry = candidate;
        }
      }
      rows.push(row.slice(0, row.length - carry.length));
      row = [...continuationAtoms, ...carry];
      contentStart = continuationAtoms.length;
      rowWidth = sumWidth(row);
    }
    row.push(atom);
    rowWidth += atom.width;
  }
  rows.push(row);
  return rows.map(mergeAtoms);
}

function findLastSpace(row: readonly Atom[], from: number): number {
  for (let index = row.length - 1; index >= from; index -= 1) {
    if (row[index]!.kind === 'text' && row[index]!.text === ' ') return index;
  }
  return -1;
}

/** Code points (with their combining marks) of text pieces; escapes and markers whole unless wider than `limit`. */
function toAtoms(pieces: readonly Piece[], limit: number): Atom[] {
  const atoms: Atom[] = [];
  for (const piece of pieces) {
    const whole = piece.kind !== 'text' || piece.atomic === true ? displayWidth(piece.text) : undefined;
    if (whole !== undefined && whole <= limit) {
      atoms.push({ text: piece.text, width: whole, kind: piece.kind, styles: piece.styles });
      continue;
    }
    let previous: Atom | undefined;
    for (const character of piece.text) {
      const width = codePointWidth(character.codePointAt(0)!);
      if (width === 0 && previous !== undefined) {
        // A zero-width code point belongs to the character before it; splitting them would move a mark onto the next row.
        previous.text += character;
        continue;
      }
      previous = { text: character, width, kind: piece.kind, styles: piece.styles };
      atoms.push(previous);
    }
  }
  return atoms;
}

function mergeAtoms(atoms: readonly Atom[]): Row {
  const row: Row = [];
  for (const atom of atoms) {
    const last = row[row.length - 1];
    if (last !== undefined && last.kind === 'text' && atom.kind === 'text' && sameStyles(last.styles, atom.styles)) last.text += atom.text;
    else row.push({ text: atom.text, kind: atom.kind, styles: atom.styles });
  }
  return row;
}

function sameStyles(left: readonly StyleName[], right: readonly StyleName[]): boolean {
  return left.length === right.length && left.every((style, index) => style === right[index]);
}

function sumWidth(atoms: readonly Atom[]): number {
  let width = 0;
  for (const atom of atoms) width += atom.width;
  return width;
}

function piecesWidth(pieces: readonly Piece[]): number {
  return displayWidth(piecesText(pieces));
}

function piecesText(pieces: readonly Piece[]): string {
  return pieces.map((piece) => piece.text).join('');
}

function paint(context: RenderContext, pieces: readonly Piece[]): string {
  if (!context.color) return piecesText(pieces);
  return pieces.map((piece) => (piece.styles.length === 0 ? piece.text : styleText([...piece.styles], piece.text, { validateStream: false }))).join('');
}

function drawBox(options: { context: RenderContext; title: Piece[]; sections: readonly Section[] }): string {
  const { context, sections } = options;
  const { boxWidth, innerWidth } = context;
  const border = (text: string): string => (context.color ? styleText('dim', text, { validateStream: false }) : text);
  const labelled = (left: string, label: Piece[] | undefined, right: string): string => {
    if (label === undefined || label.length === 0) return border(`${left}${'─'.repeat(boxWidth - 2)}${right}`);
    let fitted = label;
    if (piecesWidth(label) > boxWidth - 6) fitted = [...(wrapLine({ pieces: label, continuation: [], wordWrap: false }, boxWidth - 7)[0] ?? []), { text: '…', kind: 'text', styles: ['dim'] }];
    return `${border(`${left}─ `)}${paint(context, fitted)}${border(` ${'─'.repeat(boxWidth - 5 - piecesWidth(fitted))}${right}`)}`;
  };
  const lines: string[] = [labelled('┌', options.title, '┐')];
  sections.forEach((section, index) => {
    if (index > 0) lines.push(labelled('├', section.label, '┤'));
    for (const row of section.rows) {
      const padding = ' '.repeat(Math.max(0, innerWidth - piecesWidth(row)));
      lines.push(`${border('│')} ${paint(context, row)}${padding} ${border('│')}`);
    }
  });
  lines.push(border(`└${'─'.repeat(boxWidth - 2)}┘`));
  return `${lines.join('\n')}\n`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function metadataString(metadata: Record<string, unknown>, keys: readonly string[]): string | undefined {
  for (const key of keys) {
    const value = Object.hasOwn(metadata, key) ? metadata[key] : undefined;
    if (typeof value === 'string' && value !== '') return value;
  }
  return undefined;
}

function metadataNumber(metadata: Record<string, unknown>, keys: readonly string[]): number | undefined {
  for (const key of keys) {
    const value = Object.hasOwn(metadata, key) ? metadata[key] : undefined;
    if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return Math.floor(value);
  }
  return undefined;
}
