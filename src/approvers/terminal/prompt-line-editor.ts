/**
 * Typing a line at an approval prompt (a reason, an edited value): in raw
 * mode the prompt echoes what is typed itself, with backspace, Ctrl-U and Esc
 * and nothing more; in line mode the terminal did the editing and the line
 * only loses its control characters. Either way no more than `maxLength`
 * characters are kept.
 */
import { displayWidth, sanitizeTerminalText } from '../../core/sanitize-terminal-text.ts';
import { isControl, stripControls } from './prompt-keys.ts';
import type { TerminalOutput } from './prompt-input.ts';

/**
 * What takes the chunks (raw mode) or the lines (line mode) read while a
 * line is typed, and calls `done` with the line, or with undefined when the
 * person pressed Esc.
 *
 * @example
 * const feed = lineEditor({ raw: true, output, maxLength: 200, done: (line) => resolve(line) });
 * feed('no'); feed('\r'); // done('no')
 */
export function lineEditor(options: { raw: boolean; output: TerminalOutput; maxLength: number; done: (line: string | undefined) => void }): (chunk: string) => void {
  const { output, maxLength, done } = options;
  if (!options.raw) return (line) => done(Array.from(stripControls(line)).slice(0, maxLength).join(''));
  const erase = (width: number): void => {
    if (width > 0) output.write(`${'\b'.repeat(width)}${' '.repeat(width)}${'\b'.repeat(width)}`);
  };
  const characters: string[] = [];
  return (chunk) => {
    if (chunk === '\x1b') {
      output.write('\n');
      return done(undefined);
    }
    // Arrow and function keys: no line editing beyond backspace.
    if (chunk.startsWith('\x1b')) return;
    for (const character of chunk) {
      if (character === '\r' || character === '\n') {
        output.write('\n');
        return done(characters.join(''));
      }
      if (character === '\x7f' || character === '\b') {
        const last = characters.pop();
        if (last !== undefined) erase(echoWidth(last));
      } else if (character === '\x15') {
        while (characters.length > 0) erase(echoWidth(characters.pop()!));
      } else if (!isControl(character) && characters.length < maxLength) {
        characters.push(character);
        output.write(echoOf(character));
      }
    }
  };
}

/** What a typed character looks like on screen: escaped if hidden; combining marks are not echoed on their own. */
function echoOf(character: string): string {
  const shown = sanitizeTerminalText(character);
  return displayWidth(shown) === 0 ? '' : shown;
}

function echoWidth(character: string): number {
  return displayWidth(echoOf(character));
}
