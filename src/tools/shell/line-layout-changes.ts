/**
 * Paths are judged against the filesystem as it is before the line runs.
 * A command that changes the layout of that filesystem (makes a symlink or
 * a hard link, renames, removes, extracts an archive, applies a patch,
 * checks out a tree, or is not modelled at all) makes what a path in
 * another command of the same line leads to unknown: `ln -s ../docs d;
 * tee d/x` writes into `docs` although `d/x` was judged as a new file in
 * the working directory. Such paths ask.
 *
 * "Another command", not only "a later one", unless the line is a plain
 * list whose order is certain (`sequential-commands.ts`): parts of a
 * pipeline and background jobs run at the same time, and a loop runs its
 * body again after it.
 * Creating regular files (`>`, `tee`, `touch`, plain `cp`) and real
 * directories (`mkdir`) changes nothing a path judgement relies on: a
 * path through a name that does not exist yet is already judged as if a
 * real directory stood there.
 */
import { lstatSync } from 'node:fs';
import path from 'node:path';
import type { AnalyzedCommand, CommandAnalysis } from './analyze-command.ts';
import type { EntryEffect } from './commands/command-model.ts';
import { commandModel } from './commands/command-models.ts';
import type { ShellFinding } from './shell-finding.ts';
import { gitSubcommand } from './git-subcommands.ts';
import { isAtOrBelow, walkKernelPath } from './kernel-walk.ts';
import type { PathArgument } from './path-argument.ts';
import { commandPaths, takesNoPaths } from './path-arguments.ts';
import { sequentialOrder } from './sequential-commands.ts';
import { effectiveCwd, wordPath } from './shell-paths.ts';
import type { ShellWord } from './shell-word.ts';

/**
 * Where a command changes the layout: the entry and everything below it.
 * A removal alone (`rm`, the source of `mv`) only matters to a path that
 * went through a symlink there: a real directory removed and made again
 * (`rm -rf dist && mkdir dist`) is where the judgement already put it.
 */
interface ChangedEntry {
  location: string;
  removal: boolean;
}

/** What one command does to the layout: nothing, changes at known entries, or anything. */
type LayoutChange = { kind: 'none' } | { kind: 'entries'; entries: ChangedEntry[] } | { kind: 'anything'; reason: string };

interface Changer {
  command: AnalyzedCommand;
  change: Exclude<LayoutChange, { kind: 'none' }>;
}

/**
 * Commands that read, or write only the contents of regular files (and
 * real directories): they cannot make a path lead somewhere else. Wrappers
 * are here for their own words; what they run is analysed on its own.
 */
const KEEPS_LAYOUT = new Set([
  'echo', 'printf', 'true', 'false', ':', 'test', '[', 'pwd', 'ls', 'cat', 'head', 'tail', 'wc',
  'sort', 'uniq', 'cut', 'paste', 'join', 'column', 'tr', 'diff', 'cmp', 'comm', 'stat', 'file', 'du', 'df', 'tree',
  'realpath', 'readlink', 'basename', 'dirname', 'date', 'md5sum', 'sha1sum', 'sha256sum', 'sha512sum', 'b2sum', 'cksum', 'base64', 'xxd', 'od', 'hexdump',
  'strings', 'nl', 'fold', 'fmt', 'rev', 'tac', 'expand', 'unexpand', 'seq', 'yes', 'sleep', 'printenv', 'whoami', 'id', 'uname', 'hostname', 'which',
  'type', 'nproc', 'numfmt', 'tee', 'touch', 'mkdir', 'chmod', 'truncate', 'shuf', 'split', 'csplit', 'env', 'nice', 'nohup', 'time',
  'timeout', 'command', 'xargs', 'stdbuf', 'cd', 'pushd', 'popd', 'exit', 'wait', 'dd',
]);

/** Commands whose written or deleted paths are where the layout changes: links, renames, removals, copies of trees, extractions. */
const MOVES_ENTRIES = new Set(['shred']);

/**
 * Asks for every path of one command (or redirection) that goes through
 * something another command of the line changes: at most one finding per
 * subject. Nothing when no command of the line changes the layout.
 *
 * @example
 * await decideLayoutChanges({ analysis: analyzeCommand('ln -s ../docs d; tee d/x'), cwd: '/p/ws', home })
 * // [{ decision: 'ask', subject: 'tee d/x', reason: 'd/x goes through what ln -s ../docs d changes ...' }]
 */
export async function decideLayoutChanges(options: {
  analysis: CommandAnalysis;
  cwd: string;
  home: string;
  /** The command line analysed: when it is a plain list, a change only reaches the commands written after it. */
  source?: string;
}): Promise<ShellFinding[]> {
  const { analysis, cwd, home } = options;
  const changers: Changer[] = [];
  for (const command of analysis.commands) {
    const change = layoutChangeOf({ command, cwd, home });
    if (change.kind !== 'none') changers.push({ command, change });
  }
  if (changers.length === 0) return [];
  // Parsed again only now: most lines change no layout.
  const order = options.source === undefined ? undefined : sequentialOrder(options.source);
  // Without a known order (pipelines, loops, background jobs, substitutions), any other command may run after a change.
  // Only top-level commands are numbered: one a wrapper runs can have the same text as a top-level one elsewhere in the line.
  const placeOf = (text: string, via: string | undefined) => (via === undefined ? order?.get(text) : undefined);
  const runsAfter = (changer: Changer, used: { text: string; via: string | undefined }): boolean => {
    const changedAt = placeOf(changer.command.text, changer.command.via);
    const usedAt = placeOf(used.text, used.via);
    return changedAt === undefined || usedAt === undefined || changedAt < usedAt;
  };
  const findings: ShellFinding[] = [];
  for (const command of analysis.commands) {
    const others = changers.filter((changer) => changer.command !== command && runsAfter(changer, command));
    if (others.length === 0) continue;
    const reason = affectedReason({ targets: targetsOf({ command, cwd, home }), others });
    if (reason !== undefined) findings.push({ decision: 'ask', subject: command.text, reason, rule: null, via: command.via });
  }
  for (const redirection of analysis.redirections) {
    // A command's own redirections are opened before it runs.
    const others = changers.filter((changer) => changer.command.text !== redirection.command && runsAfter(changer, { text: redirection.command, via: redirection.via }));
    if (others.length === 0) continue;
    const from = effectiveCwd({ state: redirection.cwd, cwd });
    const file = redirection.target.kind === 'static' ? wordPath(redirection.target, home) : undefined;
    // Unknown targets and directories ask on their own already.
    if (from === undefined || file === undefined || /^\/dev\//.test(file)) continue;
    const reason = affectedReason({ targets: [{ path: file, cwd: from, tree: false }], others });
    if (reason !== undefined) findings.push({ decision: 'ask', subject: redirection.text, reason, rule: null, via: redirection.via });
  }
  return findings;
}

/** A path a command uses; `tree` when it works on everything below it (a glob's directory, an extraction directory). */
interface Target {
  path: string;
  cwd: string;
  tree: boolean;
}

function affectedReason(options: { targets: Target[] | 'unknown'; others: Changer[] }): string | undefined {
  const { targets, others } = options;
  const anything = others.find((changer) => changer.change.kind === 'anything');
  if (targets === 'unknown') return `it works on files only known at run time, and ${describe(others[0]!)} in the same line changes what paths lead to`;
  if (targets.length === 0) return undefined;
  if (anything !== undefined) return `${describe(anything)} in the same line can change where ${shownPath(targets[0]!.path)} leads before this runs, so its paths cannot be judged now`;
  for (const target of targets) {
    const walk = walkKernelPath({ input: target.path, cwd: target.cwd });
    for (const changer of others) {
      const entries = (changer.change as { entries: ChangedEntry[] }).entries;
      if (!walk.ok) return `${shownPath(target.path)} cannot be followed now (${walk.reason}), and ${describe(changer)} in the same line changes the filesystem`;
      const reaches = (candidate: string, changed: ChangedEntry) => isAtOrBelow({ candidate, location: changed.location });
      // A removal matters where the path took a symlink at or below it; anything else, wherever the path goes through it.
      const through = walk.entries.find((entry) => entries.some((changed) => reaches(entry, changed) && (!changed.removal || walk.links.some((link) => reaches(link, changed)))));
      const below = target.tree ? entries.find((changed) => !changed.removal && isAtOrBelow({ candidate: changed.location, location: walk.end }))?.location : undefined;
      if (through !== undefined || below !== undefined) {
        const relation = through !== undefined ? `goes through ${through}` : `holds ${below}`;
        return `${shownPath(target.path)} ${relation}, which ${describe(changer)} in the same line changes (a link, a rename, a removal or an extraction), so where it leads cannot be judged before the line runs`;
      }
    }
  }
  return undefined;
}

/** What `command` does to the layout, with the entries it changes as real locations (the last component not followed). */
function layoutChangeOf(options: { command: AnalyzedCommand; cwd: string; home: string }): LayoutChange {
  const { command, home } = options;
  const name = command.name;
  if (name === undefined) return { kind: 'anything', reason: 'its name is only known at run time' };
  const declared = commandModel(name)?.entries;
  const entriesOf: EntryEffect | undefined = typeof declared === 'function' ? declared(command.words) : declared ?? (MOVES_ENTRIES.has(name) ? 'moves' : KEEPS_LAYOUT.has(name) ? 'keeps' : undefined);
  if (command.role === 'code') return { kind: 'anything', reason: 'it runs other code' };
  // Builtins and commands that take no paths (`read`, `shift`, `kill`); eval, trap, watch and literal shell scripts are analysed as commands of their own.
  if (command.role === 'wrapper' || command.role === 'script' || entriesOf === 'keeps' || takesNoPaths(name)) return { kind: 'none' };
  if (name === 'git') {
    // The table's `keepsLayout` is by name: `git --help` or a subcommand known only at run time changes anything.
    return gitSubcommand(command.words).traits?.keepsLayout === true ? { kind: 'none' } : { kind: 'anything', reason: 'it can check out, apply, move or remove files anywhere in the work tree' };
  }
  if (entriesOf === undefined) return { kind: 'anything', reason: 'what it does to files is not modelled' };
  const cwd = effectiveCwd({ state: command.cwd, cwd: options.cwd });
  if (cwd === undefined || command.appendsArguments) return { kind: 'anything', reason: 'it works on paths only known at run time' };
  const { paths, unsure } = commandPaths({ name, words: command.words });
  if (unsure.length > 0) return { kind: 'anything', reason: unsure.join('; ') };
  // A rename of plain files (`mv`: one name each, no links, no directories) puts a plain file where it lands: like a removal there.
  // (The destination's own delete, of whatever the move replaces, is not a source.)
  const plainMove = entriesOf === 'renames' && paths.filter((entry) => entry.use === 'delete' && entry.sources === undefined).every((entry) => isPlainFile({ entry, cwd, home }));
  const entries: ChangedEntry[] = [];
  for (const entry of paths) {
    const moves = entry.use === 'delete' || entry.into === true || (entry.use === 'write' && (entriesOf === 'replaces' || entriesOf === 'renames'));
    if (!moves) continue;
    const locations = entryLocations({ entry, cwd, home });
    if (locations === undefined) return { kind: 'anything', reason: `where ${entry.word.text} leads cannot be known now` };
    entries.push(...locations.map((location) => ({ location, removal: entry.use === 'delete' || plainMove })));
  }
  return entries.length === 0 ? { kind: 'none' } : { kind: 'entries', entries };
}

/** Whether a path names, now, a regular file with a single name (not a symlink, not a directory). */
function isPlainFile(options: { entry: PathArgument; cwd: string; home: string }): boolean {
  const { entry } = options;
  if (entry.word.kind !== 'static' || entry.base !== undefined) return false;
  const value = wordPath(entry.word, options.home);
  if (value === undefined) return false;
  const walk = walkKernelPath({ input: value, cwd: options.cwd, keepLast: true });
  if (!walk.ok) return false;
  try {
    const status = lstatSync(walk.end, { throwIfNoEntry: false });
    return status !== undefined && status.isFile() && status.nlink === 1;
  } catch {
    return false;
  }
}

/**
 * Where an entry a command changes lies: its directory followed and its
 * own name not (`rm link` removes the link), and also with its name
 * followed, since a symlink to a directory as a destination is followed
 * (`ln -s x dirlink` makes `dir/x`).
 */
function entryLocations(options: { entry: PathArgument; cwd: string; home: string }): string[] | undefined {
  const { entry, home } = options;
  let cwd = options.cwd;
  if (entry.base !== undefined) {
    const base = entry.base.kind === 'static' ? wordPath(entry.base, home) : undefined;
    if (base === undefined) return undefined;
    cwd = path.isAbsolute(base) ? base : `${cwd}${path.sep}${base}`;
  }
  const word = entry.word;
  if (word.kind === 'dynamic') return undefined;
  // A glob changes entries of the directory before its first pattern: that directory counts whole.
  const value = word.kind === 'pattern' ? literalDirectory(word.value) : wordPath(word, home);
  if (value === undefined) return undefined;
  const itself = walkKernelPath({ input: value, cwd, keepLast: true });
  const followed = walkKernelPath({ input: value, cwd });
  if (!itself.ok || !followed.ok) return undefined;
  return itself.end === followed.end ? [itself.end] : [itself.end, followed.end];
}

/** The paths `command` uses, each with the directory it is relative to; 'unknown' when its words do not say. */
function targetsOf(options: { command: AnalyzedCommand; cwd: string; home: string }): Target[] | 'unknown' {
  const { command, home } = options;
  const cwd = effectiveCwd({ state: command.cwd, cwd: options.cwd });
  if (cwd === undefined) return 'unknown';
  const targets: Target[] = [];
  if (command.cwd.kind === 'changed') targets.push({ path: cwd, cwd: options.cwd, tree: false });
  if (command.name === undefined) return targets.length === 0 ? 'unknown' : targets;
  if (command.written?.includes('/') === true) {
    const program = wordPath(command.words[0]!, home);
    if (program === undefined) return 'unknown';
    targets.push({ path: program, cwd, tree: false });
  }
  if (command.appendsArguments && command.appendedFrom !== 'empty-input') return 'unknown';
  const words: PathArgument[] = [...commandPaths({ name: command.name, words: command.words }).paths, ...command.inputs.map((word): PathArgument => ({ word, use: 'read' }))];
  for (const entry of words) {
    const word: ShellWord = entry.word;
    if (word.kind === 'dynamic' || word.value === '' || word.value === '-' || word.value === '\u0000appended') continue;
    let from = cwd;
    if (entry.base !== undefined) {
      const base = entry.base.kind === 'static' ? wordPath(entry.base, home) : undefined;
      if (base === undefined) return 'unknown';
      from = path.isAbsolute(base) ? base : `${cwd}${path.sep}${base}`;
    }
    const value = word.kind === 'pattern' ? literalDirectory(word.value) : wordPath(word, home);
    if (value === undefined) return 'unknown';
    targets.push({ path: value, cwd: from, tree: word.kind === 'pattern' || entry.into === true });
  }
  return targets;
}


/** `src/*.ts` → `src`, `*` → `.`, `a/b*c/d` → `a`: the directory a glob starts listing in. */
function literalDirectory(value: string): string | undefined {
  const segments = value.split('/');
  const first = segments.findIndex((segment) => /[*?[]/.test(segment));
  if (first === -1) return value;
  if (first === 0) return value.startsWith('/') ? '/' : '.';
  const directory = segments.slice(0, first).join('/');
  return directory === '' ? '/' : directory;
}

function describe(changer: Changer): string {
  const { command, change } = changer;
  const shown = command.text.length > 60 ? `${command.text.slice(0, 57)}...` : command.text;
  return change.kind === 'anything' ? `${JSON.stringify(shown)} (${change.reason})` : JSON.stringify(shown);
}

function shownPath(value: string): string {
  return JSON.stringify(value);
}
