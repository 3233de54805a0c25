/**
 * A command line's words as a POSIX shell splits them, quotes and
 * backslashes taken off, no expansions: a best reading (an unclosed quote
 * runs to the end), enough to name a program and its arguments.
 *
 * @example
 * shellSplit(`node "/a b/toolgate.js" hook x`) // ['node', '/a b/toolgate.js', 'hook', 'x']
 */
export function shellSplit(text: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  let quote: string | undefined;
  for (let index = 0; index < text.length; index++) {
    const character = text[index]!;
    if (quote !== undefined) {
      if (character === quote) quote = undefined;
      else word = (word ?? '') + character;
    } else if (character === "'" || character === '"') {
      quote = character;
      word ??= '';
    } else if (character === '\\' && index + 1 < text.length) {
      word = (word ?? '') + text[++index];
    } else if (/\s/.test(character)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else {
      word = (word ?? '') + character;
    }
  }
  if (word !== undefined) words.push(word);
  return words;
}
