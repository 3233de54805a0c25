/**
 * The shell's wider "approve always" (issue 38): "git push with any
 * arguments, run in zone workspace". It is kept as the words of each simple
 * command and a zone, and means exactly the policy line it is shown as,
 * `shell.rules: { match: "git push", decision: allow, paths_in: [workspace] }`:
 * a later command is judged again with those rules added, so every part of
 * it must be covered (by these rules or the policy's), its paths must lie in
 * the zone, and every hazard the analysis finds still asks.
 */
import type { AlwaysScope } from '../../core/types.ts';
import type { AnalyzedCommand, CommandAnalysis } from './analyze-command.ts';
import { commandSpec } from './command-forms.ts';

export const COMMAND_SCOPE_ID = 'command';

/** More distinct commands than this in one line get no wider scope: it would be a list, not a rule. */
const MAX_SCOPE_COMMANDS = 4;
/** Words a kept scope may hold: a program name and a subcommand, nothing an argument could carry. */
const SCOPE_WORD = /^[A-Za-z0-9][A-Za-z0-9._+-]{0,63}$/;
const ZONE_NAME = /^[^\u0000-\u001f\u007f]{1,128}$/;

/** What a command scope keeps. */
export interface CommandScopeMatch {
  /** Each simple command's program and, for a program with subcommands, its subcommand: `git push`. */
  commands: string[];
  /** The zone the command runs in, and every path of it must lie in. */
  zone: string;
}

/**
 * The scope for a command line, or undefined where none is sensible: a
 * part computed at run time, one that runs other code (an interpreter, a
 * wrapper, `xargs`), one with a hazard, or a program with subcommands
 * whose subcommand is not a plain word the analysis knows.
 *
 * @example
 * commandScopeOf({ analysis: analyzeCommandOnce('git push origin main'), zone: 'workspace' })?.rule
 * // 'shell.rules: { match: "git push", decision: allow, paths_in: [workspace] }'
 */
export function commandScopeOf(options: { analysis: CommandAnalysis; zone: string }): AlwaysScope | undefined {
  const { analysis, zone } = options;
  if (analysis.concerns.length > 0 || analysis.commands.length === 0 || !ZONE_NAME.test(zone)) return undefined;
  const commands = new Set<string>();
  for (const command of analysis.commands) {
    const words = scopeWords(command);
    if (words === undefined) return undefined;
    commands.add(words);
  }
  if (commands.size > MAX_SCOPE_COMMANDS) return undefined;
  const match: CommandScopeMatch = { commands: [...commands].sort(), zone };
  const quotedZone = /^[A-Za-z0-9_-]+$/.test(zone) ? zone : JSON.stringify(zone);
  const named = match.commands.map((words) => JSON.stringify(words));
  return {
    id: COMMAND_SCOPE_ID,
    text: `${joined(named)} with any arguments, run in zone ${quotedZone}, with every path inside it (each part of a later command must be one of these or allowed by the policy)`,
    rule: `shell.rules: ${match.commands.map((words) => `{ match: ${JSON.stringify(words)}, decision: allow, paths_in: [${quotedZone}] }`).join(', ')}`,
    match,
  };
}

/** A kept match, checked field by field; undefined for anything else (it then covers nothing). */
export function readCommandScope(match: unknown): CommandScopeMatch | undefined {
  if (typeof match !== 'object' || match === null || Array.isArray(match)) return undefined;
  const keys = Object.keys(match).sort();
  if (keys.length !== 2 || keys[0] !== 'commands' || keys[1] !== 'zone') return undefined;
  const { commands, zone } = match as Record<string, unknown>;
  if (typeof zone !== 'string' || !ZONE_NAME.test(zone)) return undefined;
  if (!Array.isArray(commands) || commands.length === 0 || commands.length > MAX_SCOPE_COMMANDS) return undefined;
  const valid = commands.every((words) => typeof words === 'string' && words.split(' ').length <= 2 && words.split(' ').every((word) => SCOPE_WORD.test(word)));
  return valid ? { commands: [...(commands as string[])], zone } : undefined;
}

function scopeWords(command: AnalyzedCommand): string | undefined {
  if (command.name === undefined || command.role !== 'plain' || command.hazards.length > 0 || command.appendsArguments || command.explicitOnly) return undefined;
  // A path-qualified program (./deploy.sh) is a file the agent may have written: no "any arguments" for it.
  if (command.written !== command.name || !SCOPE_WORD.test(command.name)) return undefined;
  const spec = commandSpec(command.name);
  if (spec === undefined || spec.root.subcommands.size === 0) return command.name;
  const next = command.words[1];
  if (next === undefined || next.kind !== 'static' || !spec.root.subcommands.has(next.value) || !SCOPE_WORD.test(next.value)) return undefined;
  return `${command.name} ${next.value}`;
}

function joined(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}
