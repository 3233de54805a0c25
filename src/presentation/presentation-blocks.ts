/**
 * A presentation (seed 001's `{type, content, language, metadata}`) as view
 * blocks: a command with its working directory, a diff with each line's
 * kind, a file with numbered lines, structured data as fields (short fields
 * first) or text; binary content is described, never dumped.
 */
import { formatPatch, OMIT_HEADERS, structuredPatch } from 'diff';
import type { Presentation } from '../core/types.ts';
import type { BinaryBlock, DiffBlock, DiffOp, FileBlock, ViewBlock } from './approval-view-types.ts';
import { fieldsFromJson } from './fields-block.ts';
import { blankMarker, groupBlankLines, inertLine, inertLines, LABEL_OPTIONS, looksBinary, rawLines } from './inert-lines.ts';
import { safeJson } from './json-for-reading.ts';

const BINARY_PREVIEW_CODE_POINTS = 48;

export interface PresentationBlockOptions {
  /** Use the whole content where the tool kept it (`metadata.full_content`). */
  fullContent: boolean;
  /** The call's own arguments, unmasked, to show instead of a structured presentation that masked secrets; undefined keeps them masked. */
  revealedArgs?: { value: unknown } | undefined;
}

/**
 * The blocks for one presentation.
 *
 * @example
 * presentationBlocks({ type: 'command', content: 'ls', metadata: { cwd: '/w' } }, { fullContent: true }) // [{ kind: 'command', command: [{ text: 'ls' }], cwd: { text: '/w' } }]
 */
export function presentationBlocks(presentation: Presentation, options: PresentationBlockOptions): ViewBlock[] {
  const metadata = isRecord(presentation.metadata) ? presentation.metadata : {};
  const kept = typeof metadata.full_content === 'string' ? metadata.full_content : undefined;
  const fullContent = options.revealedArgs !== undefined && presentation.type === 'structured' ? safeJson(options.revealedArgs.value) : options.fullContent ? kept : undefined;
  const content = fullContent ?? (typeof presentation.content === 'string' ? presentation.content : safeJson(presentation.content));
  const path = metadataString(metadata, ['path', 'filePath', 'file', 'filename']);
  const language = typeof presentation.language === 'string' && presentation.language !== '' ? presentation.language : undefined;
  switch (presentation.type) {
    case 'command': {
      // A command is never summarised as binary: the person must always see what will run.
      const cwd = metadataString(metadata, ['cwd', 'workingDirectory']);
      return [{ kind: 'command', command: inertLines(content), cwd: cwd === undefined ? null : inertLine(cwd, LABEL_OPTIONS) }];
    }
    case 'diff':
      if (looksBinary(content)) return [binaryBlock(content, metadata, { path, language: undefined })];
      return [diffBlock(diffText(content, metadata), path)];
    case 'file_content': {
      if (looksBinary(content)) return [binaryBlock(content, metadata, { path, language })];
      const truncated = fullContent === undefined && (kept !== undefined || metadata.truncated === true);
      return [fileBlock({ content, path, language, truncated })];
    }
    case 'structured':
      if (looksBinary(content)) return [binaryBlock(content, metadata, { path: undefined, language: undefined })];
      return [fieldsFromJson(content)];
    case 'text':
    default:
      if (looksBinary(content)) return [binaryBlock(content, metadata, { path: undefined, language: undefined })];
      return [{ kind: 'text', lines: inertLines(content), preformatted: false }];
  }
}

/** A diff given as text, or built from before/after contents in the metadata when the text is empty. */
function diffText(content: string, metadata: Record<string, unknown>): string {
  if (content.trim() !== '') return content;
  const before = metadataString(metadata, ['oldContent', 'before', 'original']);
  const after = metadataString(metadata, ['newContent', 'after', 'modified']);
  if (before === undefined || after === undefined) return content;
  return formatPatch(structuredPatch('a', 'b', before, after, undefined, undefined, { context: 3 }), OMIT_HEADERS);
}

function diffBlock(diff: string, path: string | undefined): DiffBlock {
  const block: DiffBlock = { kind: 'diff', path: path === undefined ? null : inertLine(path, LABEL_OPTIONS), lines: [] };
  if (diff.trim() === '') return block;
  // Track hunk sizes so a removed line that starts with "--" reads as a removal, not as a file header.
  let oldRemaining = 0;
  let newRemaining = 0;
  for (const raw of rawLines(diff)) {
    let op: DiffOp = 'other';
    const inHunk = oldRemaining > 0 || newRemaining > 0;
    const hunk = /^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@/.exec(raw);
    if (!inHunk && hunk !== null) {
      oldRemaining = hunk[1] === undefined ? 1 : Number(hunk[1]);
      newRemaining = hunk[2] === undefined ? 1 : Number(hunk[2]);
      op = '@';
    } else if (inHunk && raw.startsWith('+')) {
      newRemaining -= 1;
      op = '+';
    } else if (inHunk && raw.startsWith('-')) {
      oldRemaining -= 1;
      op = '-';
    } else if (inHunk && (raw.startsWith(' ') || raw === '')) {
      oldRemaining -= 1;
      newRemaining -= 1;
      op = ' ';
    } else if (raw.startsWith('\\')) {
      op = 'note';
    } else if (raw.startsWith('+++') || raw.startsWith('---')) {
      op = 'header';
    } else if (raw.startsWith('@@')) {
      op = '@';
    } else if (raw.startsWith('+')) {
      // Outside a well-formed hunk (a hand-written or malformed diff): read by the sign anyway.
      op = '+';
    } else if (raw.startsWith('-')) {
      op = '-';
    }
    block.lines.push({ ...inertLine(raw), op });
  }
  return block;
}

function fileBlock(options: { content: string; path: string | undefined; language: string | undefined; truncated: boolean }): FileBlock {
  const { content, path, language } = options;
  const block: FileBlock = {
    kind: 'file',
    path: path === undefined ? null : inertLine(path, LABEL_OPTIONS),
    language: language === undefined ? null : inertLine(language, LABEL_OPTIONS).text,
    comment: commentMarker(language) ?? null,
    lines: [],
    truncated: options.truncated,
  };
  if (content === '') return block;
  let number = 1;
  for (const line of groupBlankLines(rawLines(content))) {
    if (line.blankRun !== undefined) {
      block.lines.push({ ...blankMarker(line.blankRun), number });
      number += line.blankRun;
      continue;
    }
    block.lines.push({ ...inertLine(line.text), number });
    number += 1;
  }
  return block;
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

function binaryBlock(content: string, metadata: Record<string, unknown>, where: { path: string | undefined; language: string | undefined }): BinaryBlock {
  const described = metadataString(metadata, ['description', 'summary']);
  const size = metadataNumber(metadata, ['size', 'bytes', 'byteLength']) ?? new TextEncoder().encode(content).length;
  const type = metadataString(metadata, ['mimeType', 'mediaType', 'contentType']);
  const summary = described ?? `binary content (${size} ${size === 1 ? 'byte' : 'bytes'}${type === undefined ? '' : `, ${type}`})`;
  const preview = Array.from(content.slice(0, BINARY_PREVIEW_CODE_POINTS * 2)).slice(0, BINARY_PREVIEW_CODE_POINTS).join('');
  // The preview is escaped like everything else, so a NUL cannot be used to hide readable text behind the summary.
  return {
    kind: 'binary',
    path: where.path === undefined ? null : inertLine(where.path, LABEL_OPTIONS),
    language: where.language === undefined ? null : inertLine(where.language, LABEL_OPTIONS).text,
    description: inertLine(summary, LABEL_OPTIONS), 
    preview: inertLine(preview, LABEL_OPTIONS),
    cut: preview.length < content.length,
  };
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

/**
 * The first usable non-negative number under one of `keys`.
 *
 * @example
 * metadataNumber({ masked_secrets: 2 }, ['masked_secrets']) // 2
 */
export function metadataNumber(metadata: Record<string, unknown>, keys: readonly string[]): number | undefined {
  for (const key of keys) {
    const value = Object.hasOwn(metadata, key) ? metadata[key] : undefined;
    if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return Math.floor(value);
  }
  return undefined;
}
