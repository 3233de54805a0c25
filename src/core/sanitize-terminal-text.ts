/**
 * Makes untrusted text safe to print on a terminal. Tool names and arguments
 * come from a model that may be adversarial, and the person approving must
 * see exactly what will run: anything a terminal would interpret (escape
 * sequences, carriage returns, backspaces), reorder (bidi controls) or not
 * draw at all (zero-width and invisible characters) is shown as a visible
 * escape such as `\x1b`, `\r` or `\u202e`. Nothing is dropped silently.
 */

import { displayWidth, isVariationSelector } from './terminal-width.ts';

export { codePointWidth, displayWidth } from './terminal-width.ts';

/** `text` is printed as is, `escape` is a visible stand-in for one hidden character, `marker` stands for collapsed padding. */
export type TerminalSegmentKind = 'text' | 'escape' | 'marker';

/** A piece of sanitized text; the kind lets a renderer style escapes and markers so they stand out. */
export interface TerminalSegment {
  text: string;
  kind: TerminalSegmentKind;
}

/** Limits for `collapse`: longer runs become a visible marker such as `⟨… 300 spaces⟩`. */
export interface CollapseOptions {
  /** Runs of blank characters wider than this many columns, or runs of one escaped character longer than this, collapse. Default 32. */
  maxRun?: number;
  /** More consecutive blank lines than this collapse into one marker line. Default 3. */
  maxBlankLines?: number;
}

export interface SanitizeTerminalTextOptions {
  /** Keep `\n` as a line break (otherwise it is shown as `\n`). */
  keepNewlines?: boolean;
  /** Expand `\t` to spaces up to the next tab stop (otherwise it is shown as `\t`). */
  keepTabs?: boolean;
  /** Columns between tab stops when `keepTabs`. Default 4. */
  tabWidth?: number;
  /** Also collapse long padding (see `collapsePadding`). Off unless asked for. */
  collapse?: boolean | CollapseOptions;
}

const DEFAULT_MAX_RUN = 32;
const DEFAULT_MAX_BLANK_LINES = 3;
const DEFAULT_TAB_WIDTH = 4;
/** Scripts stack up to three or four marks; more is "Zalgo" text that can paint over neighbouring lines. */
const MAX_COMBINING_MARKS = 4;

/**
 * Returns `text` with every character a terminal would interpret, reorder or
 * hide replaced by a visible escape, so the printed text is exactly what a
 * reader sees: C0 and C1 controls, DEL, ESC (so no CSI, OSC, DCS sequence can
 * run), carriage return, backspace, bidi controls, zero-width and other
 * invisible or format characters, unusual spaces, lone surrogates and floods
 * of combining marks.
 *
 * @example
 * sanitizeTerminalText('ok\r\x1b[2Kevil') // 'ok\\r\\x1b[2Kevil'
 * sanitizeTerminalText('a\nb', { keepNewlines: true }) // 'a\nb'
 * sanitizeTerminalText('abc\u202edef') // 'abc\\u202edef'
 */
export function sanitizeTerminalText(text: string, options: SanitizeTerminalTextOptions = {}): string {
  return joinSegments(sanitizeTerminalSegments(text, options));
}

/**
 * Like `sanitizeTerminalText`, but says which pieces are escapes or collapse
 * markers, so a renderer can highlight them and never split one across lines.
 *
 * @example
 * sanitizeTerminalSegments('a\x07b') // [{ text: 'a', kind: 'text' }, { text: '\\x07', kind: 'escape' }, { text: 'b', kind: 'text' }]
 */
export function sanitizeTerminalSegments(text: string, options: SanitizeTerminalTextOptions = {}): TerminalSegment[] {
  const collapse = options.collapse === undefined || options.collapse === false ? undefined : collapseLimits(options.collapse === true ? {} : options.collapse);
  return walk(String(text), {
    escape: true,
    keepNewlines: options.keepNewlines === true,
    keepTabs: options.keepTabs === true,
    tabWidth: positiveInteger(options.tabWidth, DEFAULT_TAB_WIDTH),
    collapse,
  });
}

/**
 * Collapses padding that could push text out of sight: runs of blank
 * characters (spaces, tabs, ideographic spaces) wider than `maxRun` columns
 * and more than `maxBlankLines` consecutive blank lines become a visible
 * marker. Escapes nothing; for printing, use `sanitizeTerminalText` with
 * `collapse`, which does both and keeps markers apart from the text.
 *
 * @example
 * collapsePadding(`echo hi${' '.repeat(300)}; rm -rf ~`) // 'echo hi⟨… 300 spaces⟩; rm -rf ~'
 * collapsePadding('a\n\n\n\n\n\nb', { maxBlankLines: 2 }) // 'a\n⟨… 5 blank lines⟩\nb'
 */
export function collapsePadding(text: string, options: CollapseOptions & { tabWidth?: number } = {}): string {
  return joinSegments(
    walk(String(text), {
      escape: false,
      keepNewlines: true,
      keepTabs: true,
      tabWidth: positiveInteger(options.tabWidth, DEFAULT_TAB_WIDTH),
      collapse: collapseLimits(options),
    }),
  );
}

interface WalkSettings {
  /** false only for `collapsePadding`, which collapses without escaping. */
  escape: boolean;
  keepNewlines: boolean;
  keepTabs: boolean;
  tabWidth: number;
  collapse: Required<CollapseOptions> | undefined;
}

/** One pass over the code points: escapes, tab expansion and collapsing together, so tab stops and markers see the same columns. */
function walk(text: string, settings: WalkSettings): TerminalSegment[] {
  const output = createOutput();
  const length = text.length;
  let markRun = 0;
  // Whether the last thing written was a visible base a variation selector may modify.
  let afterBase = false;
  let index = 0;
  while (index < length) {
    if (settings.collapse !== undefined && settings.keepNewlines && (index === 0 || text.charCodeAt(index - 1) === 0x0a)) {
      const blank = blankLinesAt(text, index, settings);
      if (blank.count > settings.collapse.maxBlankLines) {
        output.push({ text: `⟨… ${blank.count} blank lines⟩`, kind: 'marker' });
        // Resume at the newline ending the last blank line, so the marker keeps a line of its own.
        index = blank.resumeAt;
        markRun = 0;
        afterBase = false;
        continue;
      }
    }
    const codePoint = text.codePointAt(index)!;
    const size = codePoint > 0xffff ? 2 : 1;

    if (codePoint > 0x20 && codePoint < 0x7f) {
      // Fast path: printable ASCII other than space needs no decision, so take the whole run at once.
      let end = index + 1;
      while (end < length) {
        const next = text.charCodeAt(end);
        if (next <= 0x20 || next >= 0x7f) break;
        end += 1;
      }
      output.pushText(text.slice(index, end), end - index);
      index = end;
      markRun = 0;
      afterBase = true;
      continue;
    }

    if (isBlankCharacter(codePoint, settings)) {
      let end = index;
      let columns = 0;
      let count = 0;
      let homogeneous = true;
      while (end < length && isBlankCharacter(text.charCodeAt(end), settings)) {
        const member = text.charCodeAt(end);
        if (member !== codePoint) homogeneous = false;
        columns += member === 0x09 ? settings.tabWidth : member === 0x3000 ? 2 : 1;
        count += 1;
        end += 1;
      }
      if (settings.collapse !== undefined && columns > settings.collapse.maxRun) {
        output.push({ text: `⟨… ${count} ${homogeneous ? blankName(codePoint) : 'blank characters'}⟩`, kind: 'marker' });
      } else {
        for (let position = index; position < end; position += 1) {
          const member = text.charCodeAt(position);
          if (member === 0x09 && settings.escape) output.pushText(' '.repeat(settings.tabWidth - (output.column % settings.tabWidth)));
          else output.pushText(String.fromCharCode(member));
        }
      }
      index = end;
      markRun = 0;
      afterBase = false;
      continue;
    }

    if (codePoint === 0x0a && settings.keepNewlines) {
      output.pushText('\n');
      index += 1;
      markRun = 0;
      afterBase = false;
      continue;
    }

    const isMark = isCombiningMark(codePoint);
    if (settings.escape && mustEscape({ codePoint, afterBase, markRun, isMark })) {
      let end = index + size;
      let count = 1;
      while (end < length && text.codePointAt(end) === codePoint) {
        end += size;
        count += 1;
      }
      if (settings.collapse !== undefined && count > settings.collapse.maxRun) {
        output.push({ text: `⟨… ${count} × ${escapeCodePoint(codePoint)}⟩`, kind: 'marker' });
      } else {
        const escaped = escapeCodePoint(codePoint);
        for (let repeat = 0; repeat < count; repeat += 1) output.push({ text: escaped, kind: 'escape' });
      }
      index = end;
      // An escape is a visible base of its own: marks after it attach to it, not to the text before.
      markRun = 0;
      afterBase = false;
      continue;
    }

    output.pushText(text.slice(index, index + size));
    index += size;
    if (isMark) {
      markRun += 1;
    } else {
      markRun = 0;
    }
    afterBase = !isMark && !isVariationSelector(codePoint);
  }
  return output.finish();
}

function mustEscape(options: { codePoint: number; afterBase: boolean; markRun: number; isMark: boolean }): boolean {
  const { codePoint } = options;
  // Lone surrogates: the string is not valid text, and terminals show them inconsistently.
  if (codePoint >= 0xd800 && codePoint <= 0xdfff) return true;
  if (isVariationSelector(codePoint)) {
    // Text/emoji presentation selectors right after a visible character are ordinary emoji text; any other selector can smuggle data unseen.
    return !((codePoint === 0xfe0e || codePoint === 0xfe0f) && options.afterBase);
  }
  if (options.isMark) return options.markRun >= MAX_COMBINING_MARKS;
  if (INVISIBLE_CHARACTERS.has(codePoint)) return true;
  const character = String.fromCodePoint(codePoint);
  return HIDDEN_CATEGORIES.test(character) || (codePoint !== 0x20 && codePoint !== 0x3000 && SPACE_SEPARATOR.test(character));
}

/**
 * Controls (C0, DEL, C1), format characters (bidi controls, zero-width
 * characters, soft hyphen, tags...), line and paragraph separators and
 * unassigned code points: none of them draws as itself.
 */
const HIDDEN_CATEGORIES = /^[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}\p{Cn}]$/u;
const SPACE_SEPARATOR = /^\p{Zs}$/u;
const COMBINING_MARK = /^[\p{Mn}\p{Me}]$/u;

/** Letters and marks that draw nothing although their category says they should (used to fake "empty" names). */
const INVISIBLE_CHARACTERS = new Set([
  0x034f, // combining grapheme joiner
  0x115f, // hangul choseong filler
  0x1160, // hangul jungseong filler
  0x17b4, // khmer vowel inherent aq
  0x17b5, // khmer vowel inherent aa
  0x2800, // braille pattern blank
  0x3164, // hangul filler
  0xffa0, // halfwidth hangul filler
]);

function isCombiningMark(codePoint: number): boolean {
  if (codePoint < 0x300) return false;
  return COMBINING_MARK.test(String.fromCodePoint(codePoint)) && !isVariationSelector(codePoint) && !INVISIBLE_CHARACTERS.has(codePoint);
}

/** Blank characters are the padding `collapse` watches; a tab counts only when it is kept (otherwise it is escaped). */
function isBlankCharacter(codePoint: number, settings: WalkSettings): boolean {
  return codePoint === 0x20 || codePoint === 0x3000 || (codePoint === 0x09 && settings.keepTabs);
}

function blankName(codePoint: number): string {
  if (codePoint === 0x09) return 'tabs';
  if (codePoint === 0x3000) return 'ideographic spaces';
  return 'spaces';
}

/** Counts the blank lines (only blank characters, ended by a newline) starting at `start`. */
function blankLinesAt(text: string, start: number, settings: WalkSettings): { count: number; resumeAt: number } {
  let count = 0;
  let resumeAt = start;
  let position = start;
  while (position < text.length) {
    let end = position;
    while (end < text.length && isBlankCharacter(text.charCodeAt(end), settings)) end += 1;
    if (end >= text.length || text.charCodeAt(end) !== 0x0a) break;
    count += 1;
    resumeAt = end;
    position = end + 1;
  }
  return { count, resumeAt };
}

/**
 * The visible stand-in for a hidden character, in JavaScript string escape
 * notation so it reads as what it is.
 *
 * @example
 * escapeCodePoint(0x1b) // '\\x1b'
 * escapeCodePoint(0x202e) // '\\u202e'
 */
export function escapeCodePoint(codePoint: number): string {
  const named = NAMED_ESCAPES.get(codePoint);
  if (named !== undefined) return named;
  const hex = codePoint.toString(16);
  if (codePoint <= 0xff) return `\\x${hex.padStart(2, '0')}`;
  if (codePoint <= 0xffff) return `\\u${hex.padStart(4, '0')}`;
  return `\\u{${hex}}`;
}

const NAMED_ESCAPES = new Map([
  [0x08, '\\b'],
  [0x09, '\\t'],
  [0x0a, '\\n'],
  [0x0b, '\\v'],
  [0x0c, '\\f'],
  [0x0d, '\\r'],
]);

function collapseLimits(options: CollapseOptions): Required<CollapseOptions> {
  return {
    maxRun: positiveInteger(options.maxRun, DEFAULT_MAX_RUN),
    maxBlankLines: positiveInteger(options.maxBlankLines, DEFAULT_MAX_BLANK_LINES),
  };
}

function positiveInteger(value: number | undefined, fallback: number): number {
  return value !== undefined && Number.isFinite(value) && value >= 1 ? Math.floor(value) : fallback;
}

function joinSegments(segments: readonly TerminalSegment[]): string {
  let result = '';
  for (const segment of segments) result += segment.text;
  return result;
}

/** Collects segments, merging adjacent text, and tracks the column for tab stops. */
function createOutput() {
  const segments: TerminalSegment[] = [];
  let pending: string[] = [];
  const state = {
    column: 0,
    /** `width` when the caller knows it (ASCII runs), to skip measuring. */
    pushText(text: string, width?: number): void {
      pending.push(text);
      if (width === undefined) advance(text);
      else state.column += width;
    },
    push(segment: TerminalSegment): void {
      flush();
      segments.push(segment);
      advance(segment.text);
    },
    finish(): TerminalSegment[] {
      flush();
      return segments;
    },
  };
  function advance(text: string): void {
    const newline = text.lastIndexOf('\n');
    state.column = newline === -1 ? state.column + displayWidth(text) : displayWidth(text.slice(newline + 1));
  }
  function flush(): void {
    if (pending.length === 0) return;
    segments.push({ text: pending.join(''), kind: 'text' });
    pending = [];
  }
  return state;
}
