/**
 * A request's presentation as the lines of the box: a command with its
 * working directory, a diff, a file with line numbers, structured data
 * (short fields first) or text, and binary content described rather than
 * dumped. Masked secrets are revealed only in the full view, from the call's
 * own arguments.
 */
import { formatPatch, OMIT_HEADERS, structuredPatch } from 'diff';
import type { PresentedRequest } from '../../core/approver.ts';
import { sanitizeTerminalSegments, type TerminalSegment } from '../../core/sanitize-terminal-text.ts';
import { CONTINUATION, plainLine, sanitizeInto, styled, type LogicalLine, type Piece, type RenderContext, type StyleName } from './box-layout.ts';
import { readingOrder, safeJson } from './json-for-reading.ts';

const MAX_BLANK_LINES = 3;
const BINARY_PREVIEW_CODE_POINTS = 48;

/**
 * The presentation as lines, plus the label for the separator above it (the
 * payload as JSON when the request has no presentation).
 *
 * @example
 * const { label, lines } = presentationBody(context, request);
 */
export function presentationBody(context: RenderContext, request: PresentedRequest): { label: Piece[] | undefined; lines: LogicalLine[] } {
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

/**
 * How many values the presentation masked as secrets (`metadata.masked_secrets`), for the note and the reveal.
 *
 * @example
 * maskedSecrets({ ...request, presentation: { type: 'structured', content: '{}', metadata: { masked_secrets: 2 } } }) // 2
 */
export function maskedSecrets(request: PresentedRequest): number {
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
