/**
 * A word of a command line toolgate prints for a person to paste, quoted for
 * the POSIX shell when it needs to be (a path with a space, a quote).
 *
 * @example
 * quoteShellWord('/tmp/demo/toolgate.yaml') // '/tmp/demo/toolgate.yaml'
 * quoteShellWord("/tmp/it's here")          // "'/tmp/it'\\''s here'"
 */
export function quoteShellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
