/**
 * What a person sees before a file changes: a unified diff for an existing
 * file, the content (with its language) for a new one, type and size only
 * for binary content. Long text is cut for the prompt; the whole of it goes
 * in `metadata.full_content` for a pager.
 */
import { FILE_HEADERS_ONLY, formatPatch, structuredPatch } from 'diff';
import type { Presentation } from '../../core/types.ts';
import type { FileSnapshot } from './file-operations.ts';
import { languageForPath } from './language-for-path.ts';

/** Lines and characters shown in the prompt before it is cut. */
export const DISPLAY_MAX_LINES = 200;
export const DISPLAY_MAX_CHARACTERS = 20_000;
/** Past this size (either side) a diff is not computed; the prompt gives sizes. */
const DIFF_MAX_BYTES = 2 * 1024 * 1024;
/** Diffing pathological inputs gives up after this long rather than stall the prompt. */
const DIFF_TIMEOUT_MS = 2_000;

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * True for content a terminal should not print: NUL bytes or invalid UTF-8.
 *
 * @example
 * isBinaryContent(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00])) // true
 */
export function isBinaryContent(content: Buffer): boolean {
  if (content.includes(0)) return true;
  try {
    strictUtf8.decode(content);
    return false;
  } catch {
    return true;
  }
}

/**
 * `2.3 KB`, `512 bytes`.
 *
 * @example
 * describeBytes(2355) // '2.3 KB'
 */
export function describeBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} byte${bytes === 1 ? '' : 's'}`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}

/**
 * Cuts text to what a prompt can show, saying how much was left out.
 *
 * @example
 * const { content, truncated } = truncateForDisplay(longText);
 */
export function truncateForDisplay(text: string): { content: string; truncated: boolean } {
  const lines = text.split('\n');
  if (lines.length <= DISPLAY_MAX_LINES && text.length <= DISPLAY_MAX_CHARACTERS) return { content: text, truncated: false };
  let kept = lines.slice(0, DISPLAY_MAX_LINES).join('\n');
  if (kept.length > DISPLAY_MAX_CHARACTERS) kept = kept.slice(0, DISPLAY_MAX_CHARACTERS);
  const hiddenLines = lines.length - kept.split('\n').length;
  const hidden = hiddenLines > 0 ? `${hiddenLines} more line${hiddenLines === 1 ? '' : 's'}` : `${text.length - kept.length} more characters`;
  return { content: `${kept}\n\n... [${hidden}; the full text is in metadata.full_content]`, truncated: true };
}

/**
 * The presentation of a write: a diff against the current file, or the new
 * content. `before` is the current state of the entry (missing for a new file).
 *
 * @example
 * renderFileChange({ shown: 'ws/a.ts', before: snapshot, after: Buffer.from(content) })
 */
export function renderFileChange(options: { shown: string; before: FileSnapshot; after: Buffer }): Presentation {
  const { shown, before, after } = options;
  const language = languageForPath(shown);
  if (before.kind !== 'file') {
    if (isBinaryContent(after)) {
      return { type: 'text', content: `New binary file ${shown}: ${describeBytes(after.length)}`, metadata: { binary: true, bytes: after.length } };
    }
    return withTruncation({ type: 'file_content', text: after.toString('utf8'), language, metadata: { bytes: after.length, new_file: true } });
  }
  const summary = `${shown}: ${describeBytes(before.size)} → ${describeBytes(after.length)}`;
  if (before.content === undefined || before.size > DIFF_MAX_BYTES || after.length > DIFF_MAX_BYTES) {
    return { type: 'text', content: `Replace large file ${summary} (too large to diff)`, metadata: { bytes: after.length } };
  }
  const beforeBinary = isBinaryContent(before.content);
  const afterBinary = isBinaryContent(after);
  if (beforeBinary || afterBinary) {
    const kinds = `${beforeBinary ? 'binary' : 'text'} → ${afterBinary ? 'binary' : 'text'}`;
    return { type: 'text', content: `Replace ${summary} (${kinds})`, metadata: { binary: true, bytes: after.length } };
  }
  const patch = structuredPatch(shown, shown, before.content.toString('utf8'), after.toString('utf8'), 'current', 'proposed', {
    context: 3,
    timeout: DIFF_TIMEOUT_MS,
  });
  if (patch === undefined) return { type: 'text', content: `Replace ${summary} (the diff took too long to compute)`, metadata: { bytes: after.length } };
  if (patch.hunks.length === 0) return { type: 'text', content: `${shown}: no changes (the new content is identical)`, metadata: { bytes: after.length } };
  return withTruncation({ type: 'diff', text: formatPatch(patch, FILE_HEADERS_ONLY), language, metadata: { bytes: after.length } });
}

/**
 * The presentation of a deletion: the lines that go away, or type and size.
 *
 * @example
 * renderFileRemoval({ shown: 'ws/a.txt', before: snapshot })
 */
export function renderFileRemoval(options: { shown: string; before: Extract<FileSnapshot, { kind: 'file' }> }): Presentation {
  const { shown, before } = options;
  if (before.content === undefined || before.size > DIFF_MAX_BYTES || isBinaryContent(before.content)) {
    const kind = before.content !== undefined && isBinaryContent(before.content) ? 'binary file' : 'file';
    return { type: 'text', content: `Delete ${kind} ${shown}: ${describeBytes(before.size)}`, metadata: { bytes: before.size } };
  }
  const patch = structuredPatch(shown, '/dev/null', before.content.toString('utf8'), '', 'current', 'deleted', { context: 0, timeout: DIFF_TIMEOUT_MS });
  if (patch === undefined) return { type: 'text', content: `Delete ${shown}: ${describeBytes(before.size)}`, metadata: { bytes: before.size } };
  return withTruncation({ type: 'diff', text: formatPatch(patch, FILE_HEADERS_ONLY), language: undefined, metadata: { bytes: before.size } });
}

function withTruncation(options: { type: 'diff' | 'file_content'; text: string; language: string | undefined; metadata: Record<string, unknown> }): Presentation {
  const { content, truncated } = truncateForDisplay(options.text);
  const presentation: Presentation = { type: options.type, content, metadata: { ...options.metadata, truncated } };
  if (options.language !== undefined) presentation.language = options.language;
  if (truncated) presentation.metadata!.full_content = options.text;
  return presentation;
}
