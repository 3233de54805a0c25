/**
 * Something in a simple command that can run other code, write files or
 * change what later commands do. A hazard makes an otherwise allowed command
 * ask, unless the allow rule that matched names the hazardous word itself.
 */
import type { ShellWord } from './shell-word.ts';

export type HazardKind = 'exec' | 'write' | 'read' | 'environment' | 'unknown';

export interface Hazard {
  /**
   * The word it sits on (0 is the command name). A rule whose words reach
   * this index covers it (`git -c` covers `git -c x=y status`); undefined
   * means no rule can cover it.
   */
  index: number | undefined;
  kind: HazardKind;
  reason: string;
}

/**
 * A hazard on one word.
 *
 * @example
 * hazardAt({ index: 1, kind: 'exec', reason: 'git -c can set core.pager' })
 */
export function hazardAt(options: { index: number | undefined; kind: HazardKind; reason: string }): Hazard {
  return { index: options.index, kind: options.kind, reason: options.reason };
}

/** What a program text (a sed script, an awk or jq program) does beyond its input, as its reader finds it. */
export interface ScriptHazard {
  kind: HazardKind;
  reason: string;
}

/**
 * The hazard of a program text at `index`: what its reader found there, or,
 * for a program only known at run time, that it cannot be read.
 *
 * @example
 * programTextHazards({ index: 1, found: { kind: 'exec', reason: 'runs a program' }, name: 'sed', words }) // [{ index: 1, kind: 'exec', reason: 'sed: runs a program' }]
 */
export function programTextHazards(options: { index: number; found: ScriptHazard | undefined; name: string; words: readonly ShellWord[] }): Hazard[] {
  const { index, found, name, words } = options;
  if (words[index]?.kind === 'dynamic') return [hazardAt({ index: undefined, kind: 'unknown', reason: `${name}: the program ${words[index]!.text} is only known at run time` })];
  if (found === undefined) return [];
  return [hazardAt({ index, kind: found.kind, reason: `${name}: ${found.reason}` })];
}
