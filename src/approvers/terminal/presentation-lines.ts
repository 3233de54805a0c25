/**
 * A request's presentation as the lines of the box, drawn from the one view
 * every approver shares (`src/presentation`): a command with its working
 * directory, a diff, a file with line numbers, structured data (short fields
 * first) or text, and binary content described rather than dumped. The view
 * has already made every string inert; here it only gets its styles. Masked
 * secrets are revealed only in the full view, from the call's own arguments.
 */
import type { PresentedRequest } from '../../core/approver.ts';
import { approvalView, type BinaryBlock, type CommandBlock, type DiffBlock, type DiffOp, type FileBlock, type TextBlock, type ViewBlock, type ViewLine } from '../../presentation/approval-view.ts';
import { fieldsAsJsonLines } from '../../presentation/fields-block.ts';
import type { TerminalSegment } from '../../core/sanitize-terminal-text.ts';
import { CONTINUATION, plainLine, recordHidden, styled, type LogicalLine, type Piece, type RenderContext, type StyleName } from './box-layout.ts';

/**
 * The presentation as lines, plus the label for the separator above it (the
 * payload as JSON when the request has no presentation).
 *
 * @example
 * const { label, lines } = presentationBody(context, request);
 */
export function presentationBody(context: RenderContext, request: PresentedRequest): { label: Piece[] | undefined; lines: LogicalLine[] } {
  // The full view shows the whole content where the tool kept it (seed 001's `metadata.full_content`),
  // and masked secrets as they are, from the call's own arguments: what the person approves is what runs.
  const view = approvalView(request, { fullContent: context.full, revealSecrets: context.full && maskedSecrets(request) > 0, redactKeys: new Set() });
  const label: Piece[] = [];
  const lines: LogicalLine[] = [];
  for (const block of view.blocks) {
    const body = blockBody(context, block);
    if (body.label !== undefined && label.length === 0) label.push(...body.label);
    lines.push(...body.lines);
  }
  return { label: label.length === 0 ? undefined : label, lines };
}

/**
 * How many values the presentation masked as secrets (`metadata.masked_secrets`), for the note and the reveal.
 *
 * @example
 * maskedSecrets({ ...request, presentation: { type: 'structured', content: '{}', metadata: { masked_secrets: 2 } } }) // 2
 */
export function maskedSecrets(request: PresentedRequest): number {
  const metadata = request.presentation?.metadata;
  if (typeof metadata !== 'object' || metadata === null || request.call === undefined) return 0;
  const count = (metadata as Record<string, unknown>).masked_secrets;
  return typeof count === 'number' && Number.isFinite(count) && count >= 0 ? Math.floor(count) : 0;
}

function blockBody(context: RenderContext, block: ViewBlock): { label: Piece[] | undefined; lines: LogicalLine[] } {
  switch (block.kind) {
    case 'command':
      return { label: undefined, lines: commandLines(context, block) };
    case 'diff':
      return { label: labelPieces(context, [block.path]), lines: diffLines(context, block) };
    case 'file':
      return { label: labelPieces(context, [block.path, block.language === null ? null : { text: block.language }]), lines: fileLines(context, block) };
    case 'binary':
      return { label: labelPieces(context, [block.path, block.language === null ? null : { text: block.language }]), lines: binaryLines(context, block) };
    case 'fields':
      return {
        label: undefined,
        lines: fieldsAsJsonLines(block).map((parts) => ({ pieces: parts.flatMap((part) => linePieces(context, part, [])), continuation: CONTINUATION, wordWrap: false })),
      };
    case 'text':
      return { label: undefined, lines: textLines(context, block) };
  }
}

function labelPieces(context: RenderContext, parts: readonly (ViewLine | null)[]): Piece[] | undefined {
  const present = parts.filter((part): part is ViewLine => part !== null);
  if (present.length === 0) return undefined;
  return present.flatMap((part, index) => [...(index === 0 ? [] : [{ text: ' · ', kind: 'text' as const, styles: ['bold' as const] }]), ...linePieces(context, part, ['bold'])]);
}

/** A view line's pieces with their styles; its escapes are counted for the warning line. */
function linePieces(context: RenderContext, line: ViewLine, styles: readonly StyleName[]): Piece[] {
  const segments: TerminalSegment[] = line.spans ?? (line.text === '' ? [] : [{ text: line.text, kind: 'text' }]);
  recordHidden(context, segments);
  return styled(segments, styles);
}

function textLines(context: RenderContext, block: TextBlock): LogicalLine[] {
  if (block.lines.length === 0) return [plainLine('(empty)', ['dim'])];
  return block.lines.map((line) => ({ pieces: linePieces(context, line, []), continuation: CONTINUATION, wordWrap: !block.preformatted && line.blank_run === undefined }));
}

function commandLines(context: RenderContext, block: CommandBlock): LogicalLine[] {
  const command = block.command.length === 0 ? [{ text: '' }] : block.command;
  const lines: LogicalLine[] = command.map((line, index) => {
    // `$` opens the command and `>` marks each further line, as a shell does: a newline in a command is a separator the person must see.
    const prefix: Piece[] = [{ text: index === 0 ? '$ ' : '> ', kind: 'text', styles: ['dim'] }];
    return { prefix, pieces: linePieces(context, line, line.blank_run === undefined ? ['bold'] : []), continuation: CONTINUATION, wordWrap: false };
  });
  if (block.cwd !== null) {
    lines.push({ prefix: [{ text: 'in ', kind: 'text', styles: ['dim'] }], pieces: linePieces(context, block.cwd, []), continuation: CONTINUATION, wordWrap: false });
  }
  return lines;
}

const DIFF_STYLES: Record<DiffOp, StyleName[]> = { '@': ['cyan'], '+': ['green'], '-': ['red'], ' ': [], note: ['dim'], header: ['bold'], other: [] };

function diffLines(context: RenderContext, block: DiffBlock): LogicalLine[] {
  if (block.lines.length === 0) return [plainLine('(no changes)', ['dim'])];
  return block.lines.map((line) => {
    const styles = DIFF_STYLES[line.op];
    return { pieces: linePieces(context, line, styles), continuation: CONTINUATION.map((piece) => ({ ...piece, styles })), wordWrap: false };
  });
}

function fileLines(context: RenderContext, block: FileBlock): LogicalLine[] {
  const last = block.lines[block.lines.length - 1];
  if (last === undefined) return [plainLine('(empty file)', ['dim'])];
  const digits = String(last.number + (last.blank_run ?? 1) - 1).length;
  const gutter = (text: string): Piece[] => [{ text: `${text.padStart(digits)}  `, kind: 'text', styles: ['dim'] }];
  return block.lines.map((line) => {
    if (line.blank_run !== undefined) return { prefix: gutter(''), pieces: linePieces(context, line, []), continuation: gutter('↪'), wordWrap: false };
    // Only whole-line comments are dimmed: telling strings from code needs a real lexer, and a wrong guess would misrepresent the file.
    const styles: StyleName[] = block.comment !== null && line.text.trimStart().startsWith(block.comment) ? ['dim'] : [];
    return { prefix: gutter(String(line.number)), pieces: linePieces(context, line, styles), continuation: gutter('↪'), wordWrap: false };
  });
}

function binaryLines(context: RenderContext, block: BinaryBlock): LogicalLine[] {
  return [
    { pieces: linePieces(context, block.description, ['bold']), continuation: CONTINUATION, wordWrap: true },
    {
      prefix: [{ text: 'starts with: ', kind: 'text', styles: ['dim'] }],
      // The preview of binary content is all escapes by nature: shown, but not counted as hidden characters in text.
      pieces: [...styled(block.preview.spans ?? (block.preview.text === '' ? [] : [{ text: block.preview.text, kind: 'text' }]), []), ...(block.cut ? [{ text: '…', kind: 'text' as const, styles: ['dim' as const] }] : [])],
      continuation: CONTINUATION,
      wordWrap: false,
    },
  ];
}
