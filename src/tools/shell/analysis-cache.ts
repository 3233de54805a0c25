/**
 * Command lines analysed once: an agent repeats `git status` and `npm
 * test`, and every command that runs is decided twice (by the gate, then
 * again by `execute`), so the analyses of the lines seen last are kept,
 * frozen, within bounds on how many, how long and how large.
 */
import { analyzeCommand } from './analyze-command.ts';
import type { CommandAnalysis } from './command-analysis.ts';

/**
 * How many analyses are kept, the longest command line kept, and the most
 * parts (commands, their words and hazards, redirections, concerns) a kept
 * analysis may have: together they bound what the cache holds whatever
 * lines an agent sends (measured: 11 MB for the heaviest lines found, such
 * as 240 redirections after nested substitutions; without the last two
 * bounds, 256 lines of `a;a;a;...` at 4 KB each took 241 MB).
 */
const CACHED_ANALYSES = 256;
const MAX_CACHED_LENGTH = 1024;
const MAX_CACHED_PARTS = 256;
const analyses = new Map<string, CommandAnalysis>();

/**
 * `analyzeCommand`, remembered for the command lines seen last. The analysis
 * is a pure function of the text (no filesystem, no policy), and the same
 * lines come back: an agent repeats `git status` and `npm test`, and every
 * command that runs is decided twice (by the gate, then again by `execute`).
 * What is kept is shared by every decision of that line, so none may change
 * it: every object in it is frozen. Its arrays are not, because V8 runs
 * `slice`, `filter`, `find` and `some` 10–15× slower on a non-extensible
 * array (measured: frozen arrays cost the shell decision more than the
 * analysis saved); no decision writes to them, which a test checks by
 * deciding a corpus of lines and comparing what is kept with a fresh analysis.
 *
 * @example
 * analyzeCommandOnce('git status') === analyzeCommandOnce('git status') // true
 */
export function analyzeCommandOnce(source: string): CommandAnalysis {
  if (source.length > MAX_CACHED_LENGTH) return analyzeCommand(source);
  const kept = analyses.get(source);
  if (kept !== undefined) {
    // Most recently used last: the first key is the one to drop.
    analyses.delete(source);
    analyses.set(source, kept);
    return kept;
  }
  const fresh = analyzeCommand(source);
  if (partsOf(fresh) > MAX_CACHED_PARTS) return fresh;
  const analysis = freezeAnalysis(fresh);
  if (analyses.size >= CACHED_ANALYSES) analyses.delete(analyses.keys().next().value!);
  analyses.set(source, analysis);
  return analysis;
}

function partsOf(analysis: CommandAnalysis): number {
  let parts = analysis.redirections.length + analysis.concerns.length;
  for (const command of analysis.commands) parts += 1 + command.words.length + command.hazards.length + command.inputs.length;
  return parts;
}

/**
 * Freezes every object of an analysis, field by field: a generic walk (a
 * `Set` of objects seen, `Reflect.ownKeys` of each) tripled the cost of a
 * line seen for the first time. Its arrays stay extensible (see above). A
 * test walks the analyses of many lines and finds every object frozen, so a
 * field added later cannot be missed here unnoticed.
 */
function freezeAnalysis(analysis: CommandAnalysis): CommandAnalysis {
  for (const command of analysis.commands) {
    freezeEach(command.words);
    freezeEach(command.hazards);
    freezeEach(command.inputs);
    Object.freeze(command.cwd);
    if (command.appendedNames !== undefined) Object.freeze(command.appendedNames);
    // appendedFrom is another command of this analysis (frozen by this loop) or a string.
    Object.freeze(command);
  }
  for (const redirection of analysis.redirections) {
    Object.freeze(redirection.target);
    Object.freeze(redirection.cwd);
    Object.freeze(redirection);
  }
  freezeEach(analysis.concerns);
  return Object.freeze(analysis);
}

function freezeEach(objects: readonly object[]): void {
  for (const object of objects) Object.freeze(object);
}
