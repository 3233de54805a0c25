/**
 * Finds what lets an awk program leave its stream: `system()`, `getline`
 * (from commands or files), pipes (`print | "sh"`, gawk's `|&`), output to
 * files (`print > "file"`), and gawk's `@` forms (indirect calls, `@load`,
 * `@include`).
 *
 * Everything is searched in the raw text, strings and regexes included: a
 * lexer would have to agree with awk's on every string, regex and division,
 * and any disagreement would hide a redirection. Raw search cannot be
 * fooled that way; its false alarms ask, they never allow.
 */
import type { ScriptHazard } from './hazard.ts';

/** Output to the terminal's own streams, ending its statement: harmless. */
const TERMINAL_OUTPUT = />>?\s*"\/dev\/std(?:err|out)"(?=\s*(?:[;}\n]|$))/g;

/**
 * The first hazard in an awk program, or undefined.
 *
 * @example
 * awkProgramHazard('$3 > 100 { print $1 }')      // undefined: the comparison comes before any print
 * awkProgramHazard('{ print $1 > "out.txt" }')   // { kind: 'write', ... }
 * awkProgramHazard('BEGIN { system("id") }')     // { kind: 'exec', ... }
 */
export function awkProgramHazard(program: string): ScriptHazard | undefined {
  if (program.includes('system')) return { kind: 'exec', reason: 'the awk program calls system()' };
  // ARGV names the files awk reads next: BEGIN { ARGV[1] = "/etc/secret"; ARGC = 2 } reads a file the command line never names.
  if (/ARG[VC]/.test(program)) return { kind: 'read', reason: 'the awk program uses ARGV or ARGC, which decide the files it reads' };
  if (program.includes('@')) return { kind: 'exec', reason: 'the awk program uses gawk @ syntax (indirect calls, @load, @include)' };
  if (program.includes('|&')) return { kind: 'exec', reason: 'the awk program runs a coprocess (|&)' };
  if (program.includes('getline')) {
    return /(?<!\|)\|(?!\|)\s*getline/.test(program)
      ? { kind: 'exec', reason: 'the awk program reads from a command ("cmd" | getline)' }
      : { kind: 'read', reason: 'the awk program reads input with getline (possibly from any file)' };
  }
  const firstPrint = program.search(/print/);
  if (firstPrint === -1) return undefined;
  // Comparisons before the first print (`$3 > 100 { print }`) cannot be redirections.
  const rest = program.slice(firstPrint).replace(TERMINAL_OUTPUT, '');
  if (/(?<!\|)\|(?!\|)/.test(rest)) return { kind: 'exec', reason: 'the awk program may pipe output to a command (print | "cmd")' };
  if (rest.includes('>')) return { kind: 'write', reason: 'the awk program may write output to a file (print > file)' };
  return undefined;
}
