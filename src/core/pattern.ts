import { RE2JS } from 're2js';

/**
 * A compiled name or argument pattern. Patterns use RE2 syntax and must match
 * the whole input (`read_.*` matches `read_file`, not `unread_file`).
 *
 * Why RE2 (through re2js) rather than JavaScript's RegExp: patterns run
 * against model-controlled input, and RE2 matches in time linear in the input
 * with no backtracking, so no pattern can be turned into a denial of service
 * (`(a+)+$` is as cheap as `a`). RE2 has no look-around or back-references,
 * which keeps policies readable anyway. `.` matches any character, newlines
 * included; patterns are case-sensitive unless they start with `(?i)`.
 */
export interface Pattern {
  readonly source: string;
  test(input: string): boolean;
}

const META = /[\\.+*?()|[\]{}^$]/;

/**
 * Compiles `source` as a full-match RE2 pattern. Throws a `SyntaxError` whose
 * message names the problem when the pattern is invalid.
 *
 * @example
 * compilePattern('read_.*').test('read_file') // true
 * compilePattern('git').test('gitx')          // false: whole input only
 */
export function compilePattern(source: string): Pattern {
  if (!META.test(source)) {
    return { source, test: (input) => input === source };
  }
  let compiled: ReturnType<typeof RE2JS.compile>;
  try {
    // DOTALL: `.` matches every character, newlines included, so `.*delete.*`
    // cannot be dodged with a newline in a name or an argument.
    compiled = RE2JS.compile(source, RE2JS.DOTALL);
  } catch (error) {
    throw new SyntaxError(`invalid pattern ${JSON.stringify(source)}: ${(error as Error).message}`);
  }
  return { source, test: (input) => compiled.matches(input) };
}

/** The index of the first entry whose pattern matches `input`, or -1. */
export function firstMatch(entries: readonly { readonly pattern: Pattern }[], input: string): number {
  for (let index = 0; index < entries.length; index++) {
    if (entries[index]!.pattern.test(input)) return index;
  }
  return -1;
}
