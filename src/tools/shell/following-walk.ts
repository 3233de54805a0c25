/**
 * A walk of directories that follows the symlinks it meets, any of which can
 * lead out of the zones: `diff -r` (GNU diff dereferences unless told not
 * to), `ls -RL`, `fd -L`, `tree -l`. Read by option-hazards.ts and by the
 * command models of walkers (commands/fd.ts).
 */
import { hazardAt, type Hazard } from './hazard.ts';
import { scanOptions } from './option-scan.ts';
import type { ShellWord } from './shell-word.ts';

/**
 * The hazard of a walk that follows symlinks: when the walk is recursive
 * (`recursive` given, or always when undefined), follows links (`follows`,
 * or always) and is not told otherwise (`unless`). Options are found as the
 * scanner finds them (clusters, abbreviations).
 *
 * @example
 * followingWalk(words('ls -RL .'), { recursive: ['R', 'recursive'], follows: ['L', 'dereference'], unless: undefined })
 * // [{ kind: 'read', reason: 'ls -RL follows symlinks while walking directories, ...' }]
 */
export function followingWalk(
  words: readonly ShellWord[],
  options: { recursive: [string, string] | undefined; follows: [string, string | undefined] | undefined; unless: string | undefined },
): Hazard[] {
  const has = ([short, long]: [string, string | undefined]) =>
    scanOptions({ command: '', words, rules: [{ short, long: long === undefined ? [] : [long], kind: 'read', what: '' }] }).some((hazard) => hazard.index !== undefined);
  if (options.recursive !== undefined && !has(options.recursive)) return [];
  if (options.follows !== undefined && !has(options.follows)) return [];
  if (options.unless !== undefined && scanOptions({ command: '', words, rules: [{ long: [options.unless], kind: 'read', what: '' }] }).some((hazard) => hazard.index !== undefined)) return [];
  const name = words[0]!.value;
  const flags = `${options.recursive === undefined ? '' : options.recursive[0]}${options.follows === undefined ? '' : options.follows[0]}`;
  return [hazardAt({ index: undefined, kind: 'read', reason: `${name} -${flags} follows symlinks while walking directories, and any of them can lead out of the zones` })];
}
