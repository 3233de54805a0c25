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
import { commandModel } from './commands/command-models.ts';
import type { CommandLevel, Subcommand } from './commands/grammar.ts';

export const COMMAND_SCOPE_ID = 'command';

/** More distinct commands than this in one line get no wider scope: it would be a list, not a rule. */
const MAX_SCOPE_COMMANDS = 4;
/** Words a kept scope may hold: a program name and its subcommands, nothing an argument could carry. */
const SCOPE_WORD = /^[A-Za-z0-9][A-Za-z0-9._+-]{0,63}$/;
/** A word after a program toolgate has no grammar for that reads as a subcommand, not a file or a value. */
const BARE_WORD = /^[a-z][a-z0-9-]{0,63}$/;
/** A program, then at most two levels of subcommands. */
const MAX_SCOPE_WORDS = 3;
/**
 * Programs whose state lives outside every zone (a cluster, a cloud
 * account, a container daemon, a code host): "with every path inside the
 * zone" says nothing about what they change, so they get no wider scope
 * (and the models that say so: `remoteState`).
 */
const OUTSIDE_STATE = new Set(['kubectl', 'helm', 'terraform', 'tofu', 'aws', 'gcloud', 'az', 'docker', 'podman', 'gh', 'glab', 'heroku', 'fly', 'flyctl', 'vercel', 'netlify']);
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
 * wrapper, `xargs`), one with a hazard, a program whose state lives outside
 * the zone (a cluster, a cloud, a container daemon), or a program with
 * subcommands whose subcommand (to the last level the grammar has) is not a
 * plain word the analysis knows.
 *
 * @example
 * commandScopeOf({ analysis: analyzeCommandOnce('git log -n 3'), zone: 'workspace' })?.rule
 * // 'shell.rules: { match: "git log", decision: allow, paths_in: [workspace] }'
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
  return renderCommandScope({ commands: [...commands].sort(), zone });
}

/**
 * A kept scope's match, when it is one this module would offer and its
 * words and rule are the ones it would show for it; undefined for anything
 * else (it then covers nothing). A scope written by hand into the approvals
 * (an interpreter's name, a bare `git`, a rule that says one thing while
 * matching another) is refused here.
 */
export function keptCommandScope(scope: AlwaysScope, analyze: (words: string) => CommandAnalysis): CommandScopeMatch | undefined {
  if (scope.id !== COMMAND_SCOPE_ID) return undefined;
  const match = readCommandScope(scope.match);
  if (match === undefined) return undefined;
  const sorted = [...match.commands].sort();
  if (new Set(sorted).size !== sorted.length || sorted.some((words, index) => words !== match.commands[index])) return undefined;
  // Each kept command is what the offer makes of that command alone.
  for (const words of match.commands) {
    const analysis = analyze(words);
    if (analysis.concerns.length > 0 || analysis.commands.length !== 1 || scopeWords(analysis.commands[0]!) !== words) return undefined;
  }
  const shown = renderCommandScope(match);
  return shown.text === scope.text && shown.rule === scope.rule ? match : undefined;
}

/** The scope of a match, with the words and the rule it is shown with. */
function renderCommandScope(match: CommandScopeMatch): AlwaysScope {
  const quotedZone = /^[A-Za-z0-9_-]+$/.test(match.zone) ? match.zone : JSON.stringify(match.zone);
  const named = match.commands.map((words) => JSON.stringify(words));
  return {
    id: COMMAND_SCOPE_ID,
    text: `${joined(named)} with any arguments, run in zone ${quotedZone}, with every path inside it (each part of a later command must be one of these or allowed by the policy)`,
    rule: `shell.rules: ${match.commands.map((words) => `{ match: ${JSON.stringify(words)}, decision: allow, paths_in: [${quotedZone}] }`).join(', ')}`,
    match: { commands: [...match.commands], zone: match.zone },
  };
}

/** A kept match's shape, checked field by field. */
function readCommandScope(match: unknown): CommandScopeMatch | undefined {
  if (typeof match !== 'object' || match === null || Array.isArray(match)) return undefined;
  const keys = Object.keys(match).sort();
  if (keys.length !== 2 || keys[0] !== 'commands' || keys[1] !== 'zone') return undefined;
  const { commands, zone } = match as Record<string, unknown>;
  if (typeof zone !== 'string' || !ZONE_NAME.test(zone)) return undefined;
  if (!Array.isArray(commands) || commands.length === 0 || commands.length > MAX_SCOPE_COMMANDS) return undefined;
  const valid = commands.every((words) => typeof words === 'string' && words.split(' ').length <= MAX_SCOPE_WORDS && words.split(' ').every((word) => SCOPE_WORD.test(word)));
  return valid ? { commands: [...(commands as string[])], zone } : undefined;
}

/**
 * The words a scope keeps of one simple command: its program, and where the
 * program has subcommands, each level of them (`kubectl config view`, not
 * `kubectl config`, which would also cover `kubectl config delete-context`).
 * Then the plain words that follow, to three words in all, since they may
 * be subcommands toolgate has no grammar for (`mytool status`, not
 * `mytool`, which would cover `mytool delete`; `git stash list`).
 */
function scopeWords(command: AnalyzedCommand): string | undefined {
  if (command.name === undefined || command.role !== 'plain' || command.hazards.length > 0 || command.appendsArguments || command.explicitOnly || command.via !== undefined) return undefined;
  // A path-qualified program (./deploy.sh) is a file the agent may have written: no "any arguments" for it.
  if (command.written !== command.name || !SCOPE_WORD.test(command.name) || OUTSIDE_STATE.has(command.name) || commandModel(command.name)?.remoteState === true) return undefined;
  const words = [command.name];
  const spec = commandSpec(command.name);
  let level: CommandLevel | undefined = spec?.root;
  while (level !== undefined && level.subcommands.size > 0) {
    const word = command.words[words.length];
    if (word === undefined || word.kind !== 'static' || words.length >= MAX_SCOPE_WORDS || !SCOPE_WORD.test(word.value)) return undefined;
    const subcommand: Subcommand | undefined = level.subcommands.get(word.value);
    if (subcommand === undefined) return undefined;
    words.push(word.value);
    level = subcommand.level;
  }
  // Where the grammar toolgate knows ends (or it knows none), plain words that follow may still be subcommands
  // (`git stash list`, whose sibling is `git stash drop`): they are kept too, so the scope stays with them.
  for (const word of command.words.slice(words.length, MAX_SCOPE_WORDS)) {
    if (word.kind !== 'static' || !BARE_WORD.test(word.value)) break;
    words.push(word.value);
  }
  return words.join(' ');
}

function joined(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}
