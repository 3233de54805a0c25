/**
 * The box's layout: pieces of sanitized text with their styles, logical
 * lines that wrap into rows of a given width (escapes and markers never
 * split, wide characters never straddling the edge), row budgets with a
 * "press [v]" marker, and the frame itself. Every piece of untrusted text
 * enters through `sanitizeInto`, which also counts what had to be escaped.
 */
import { styleText } from 'node:util';
import { codePointWidth, displayWidth, sanitizeTerminalSegments, type SanitizeTerminalTextOptions, type TerminalSegment } from '../../core/sanitize-terminal-text.ts';

export type StyleName = 'bold' | 'dim' | 'green' | 'red' | 'cyan' | 'yellow' | 'inverse';

/** A run of text with its styles; escapes and markers stay whole when wrapping. */
export interface Piece {
  text: string;
  kind: TerminalSegment['kind'];
  styles: readonly StyleName[];
  /** Kept on one row like an escape (a key and its label). */
  atomic?: boolean;
}

/** One source line: its pieces, what starts it, and what starts the rows it wraps onto. */
export interface LogicalLine {
  prefix?: Piece[];
  pieces: Piece[];
  continuation: Piece[];
  /** Break at spaces (prose) rather than at the last column (code, data). */
  wordWrap: boolean;
}

export type Row = Piece[];

export interface Section {
  label?: Piece[] | undefined;
  rows: Row[];
}

export interface RenderContext {
  color: boolean;
  boxWidth: number;
  innerWidth: number;
  maxLines: number;
  full: boolean;
  /** Hidden characters found in any field, even in parts truncated away. */
  hidden: { count: number; examples: string[] };
}

export const CONTINUATION: Piece[] = [{ text: '↪ ', kind: 'text', styles: ['dim'] }];
export const INDENT: Piece[] = [{ text: '    ', kind: 'text', styles: [] }];

/**
 * Sanitizes one field and records what had to be escaped, for the warning line.
 *
 * @example
 * sanitizeInto(context, 'a\x1bb', { collapse: true }) // [{ text: 'a', kind: 'text' }, { text: '\\x1b', kind: 'escape' }, { text: 'b', kind: 'text' }]
 */
export function sanitizeInto(context: RenderContext, text: string, options: SanitizeTerminalTextOptions): TerminalSegment[] {
  const segments = sanitizeTerminalSegments(text, options);
  recordHidden(context, segments);
  return segments;
}

/**
 * Records the hidden characters that already-sanitized segments show escaped, for the warning line.
 *
 * @example
 * recordHidden(context, [{ text: '\\x1b', kind: 'escape' }]) // context.hidden.count grows by 1
 */
export function recordHidden(context: RenderContext, segments: readonly TerminalSegment[]): void {
  for (const segment of segments) {
    if (segment.kind === 'text') continue;
    const hidden = hiddenIn(segment);
    if (hidden === undefined) continue;
    context.hidden.count += hidden.count;
    if (context.hidden.examples.length < 4 && !context.hidden.examples.includes(hidden.escape)) context.hidden.examples.push(hidden.escape);
  }
}

/** An escape stands for one hidden character; a marker like `⟨… 300 × \x00⟩` for many. */
function hiddenIn(segment: TerminalSegment): { count: number; escape: string } | undefined {
  if (segment.kind === 'escape') return { count: 1, escape: segment.text };
  const run = /^⟨… (\d+) × (.+)⟩$/u.exec(segment.text);
  return run === null ? undefined : { count: Number(run[1]), escape: run[2]! };
}

/**
 * Pieces for sanitized segments: escapes inverted, collapse markers dim.
 *
 * @example
 * styled(sanitizeInto(context, name, {}), ['bold'])
 */
export function styled(segments: readonly TerminalSegment[], styles: readonly StyleName[]): Piece[] {
  return segments.map((segment) => ({
    text: segment.text,
    kind: segment.kind,
    // Escapes are shown inverted so `\x1b` from the text and a literal backslash-x-1-b can be told apart on a colour terminal.
    styles: segment.kind === 'escape' ? [...styles, 'inverse'] : segment.kind === 'marker' ? ['dim'] : styles,
  }));
}

/**
 * One line of toolgate's own text (never untrusted), word-wrapped.
 *
 * @example
 * plainLine('(empty)', ['dim'])
 */
export function plainLine(text: string, styles: readonly StyleName[] = []): LogicalLine {
  return { pieces: [{ text, kind: 'text', styles }], continuation: [], wordWrap: true };
}

/**
 * Splits sanitized segments at kept newlines (only text segments contain them).
 *
 * @example
 * splitLines([{ text: 'a\nb', kind: 'text' }]) // [[{ text: 'a', kind: 'text' }], [{ text: 'b', kind: 'text' }]]
 */
export function splitLines(segments: readonly TerminalSegment[]): TerminalSegment[][] {
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

/**
 * Wraps lines into rows, keeping at most `budget` rows and a marker saying how many more there are.
 *
 * @example
 * limitRows({ context, lines, budget: 10 }) // { rows, truncated: true } when more than 10 rows
 */
export function limitRows(options: { context: RenderContext; lines: readonly LogicalLine[]; budget: number | undefined }): { rows: Row[]; truncated: boolean } {
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

/**
 * Every line wrapped into rows of at most `width` columns.
 *
 * @example
 * wrapLines([plainLine('keys')], 76)
 */
export function wrapLines(lines: readonly LogicalLine[], width: number): Row[] {
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
 *
 * @example
 * wrapLine({ pieces, continuation: CONTINUATION, wordWrap: false }, 76) // rows, the later ones starting with '↪ '
 */
export function wrapLine(line: LogicalLine, width: number): Row[] {
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

/**
 * The columns the pieces take on screen.
 *
 * @example
 * piecesWidth([{ text: '日本', kind: 'text', styles: [] }]) // 4
 */
export function piecesWidth(pieces: readonly Piece[]): number {
  return displayWidth(piecesText(pieces));
}

/**
 * The pieces' text without styles.
 *
 * @example
 * piecesText([{ text: 'a', kind: 'text', styles: ['bold'] }]) // 'a'
 */
export function piecesText(pieces: readonly Piece[]): string {
  return pieces.map((piece) => piece.text).join('');
}

/**
 * The pieces as terminal text: styled when colour is on, plain otherwise.
 *
 * @example
 * paint({ ...context, color: false }, pieces) // the plain text
 */
export function paint(context: RenderContext, pieces: readonly Piece[]): string {
  if (!context.color) return piecesText(pieces);
  return pieces.map((piece) => (piece.styles.length === 0 ? piece.text : styleText([...piece.styles], piece.text, { validateStream: false }))).join('');
}

/**
 * The frame around titled sections, every line exactly the box's width.
 *
 * @example
 * drawBox({ context, title, sections: [{ rows }] }) // '┌─ shell ─…┐\n│ … │\n└─…┘\n'
 */
export function drawBox(options: { context: RenderContext; title: Piece[]; sections: readonly Section[] }): string {
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
