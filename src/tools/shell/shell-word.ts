/**
 * One word of a command line as the analysis sees it: what bash will make of
 * it, if that can be known before it runs.
 */
import type { Word, WordPart } from 'unbash';

/**
 * `static`: its value is known (quotes removed). `pattern`: a glob, brace or
 * extglob that bash expands against the filesystem or into several words.
 * `dynamic`: an expansion or substitution decides it at run time.
 */
export type ShellWordKind = 'static' | 'pattern' | 'dynamic';

export interface ShellWord {
  /** As written in the command line. */
  text: string;
  /** After quote removal when static; the text with quotes removed for patterns; the text for dynamic words. */
  value: string;
  kind: ShellWordKind;
  /** Starts with an unquoted `~`, so bash applies tilde expansion. */
  tilde: boolean;
}

/**
 * Classifies an unbash word. Anything that is not plainly literal is at
 * least a pattern, and anything that expands is dynamic: the analysis never
 * treats a word as known unless bash could not change it.
 *
 * @example
 * shellWord(parse("r''m").commands[0].command.name) // { value: 'rm', kind: 'static', ... }
 */
export function shellWord(word: Word): ShellWord {
  const kind = word.parts === undefined ? 'static' : partsKind(word.parts);
  // Tilde expansion needs the `~` unquoted at the very start: `"~"` and `\~` stay literal.
  const tilde = word.text.startsWith('~') && (word.parts === undefined || word.parts[0]?.type === 'Literal');
  return { text: word.text, value: kind === 'dynamic' ? word.text : word.value, kind, tilde };
}

function partsKind(parts: readonly WordPart[]): ShellWordKind {
  let kind: ShellWordKind = 'static';
  for (const part of parts) {
    const partKind = kindOfPart(part);
    if (partKind === 'dynamic') return 'dynamic';
    if (partKind === 'pattern') kind = 'pattern';
  }
  return kind;
}

function kindOfPart(part: WordPart): ShellWordKind {
  switch (part.type) {
    case 'Literal':
    case 'SingleQuoted':
    case 'AnsiCQuoted':
      return 'static';
    case 'DoubleQuoted':
      return part.parts.every((child) => child.type === 'Literal') ? 'static' : 'dynamic';
    case 'Glob':
    case 'ExtendedGlob':
    case 'BraceExpansion':
      // A bracket glob can hold an expansion: `[$(cmd)]`.
      return part.parts === undefined ? 'pattern' : partsKind(part.parts) === 'dynamic' ? 'dynamic' : 'pattern';
    default:
      // Expansions, substitutions, and `$"..."` (translated through a message catalogue at run time).
      return 'dynamic';
  }
}
