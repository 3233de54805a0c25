/**
 * Commands that show other processes' environments. The shell tool clears
 * the environment of what it runs, but the process running toolgate (and
 * the agent around it) keeps its own, API keys included; without an OS
 * sandbox (whose PID namespace hides every other process) `ps e` prints
 * them. A rule that allows `ps` does not allow this; a rule must name it.
 */
import { hazardAt, type Hazard } from './hazard.ts';
import type { ShellWord } from './shell-word.ts';

/**
 * `ps e`, `ps auxe`, `ps eww` (BSD-style options, no dash: `e` shows the
 * environment) and `ps -E` (BSD ps): a hazard on that word. The UNIX-style
 * `-e` means "every process" and shows no environment.
 *
 * @example
 * processEnvironmentHazards(words('ps eww')) // [{ index: 1, kind: 'read', reason: 'ps e shows ...' }]
 */
export function processEnvironmentHazards(words: readonly ShellWord[]): Hazard[] {
  const hazards: Hazard[] = [];
  for (const [index, word] of words.entries()) {
    if (index === 0) continue;
    // A word known only at run time asks on its own already.
    if (word.kind === 'dynamic') continue;
    const value = word.value;
    const bsd = /^[A-Za-z]+$/.test(value) && value.includes('e');
    if (bsd || /^-[A-Za-z]*E/.test(value)) {
      hazards.push(hazardAt({ index, kind: 'read', reason: `ps ${word.text} shows the environment of every process it lists (toolgate's own included, with any API key in it)` }));
    }
  }
  return hazards;
}
