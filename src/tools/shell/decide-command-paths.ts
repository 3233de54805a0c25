/**
 * The policy layer's answer to "would the OS sandbox let this command do
 * that?" for one simple command: the network when the policy turns it off,
 * the program it runs by path, the directory it runs in, and every path its
 * arguments name (read, written, deleted; globs expanded; symlinks and `..`
 * followed), judged against the zones and the sandbox profile derived from
 * the same policy. What cannot be known from the words asks.
 */
import { lstatSync, statSync } from '../../filesystem/file-lookups.ts';
import path from 'node:path';
import type { Decision } from '../../core/types.ts';
import type { SandboxNetwork, SandboxProfile } from '../../sandbox/sandbox-profile.ts';
import type { Zone } from '../fs/zones.ts';
import { searchConcern } from '../fs/zone-hidden.ts';
import type { AnalyzedCommand } from './analyze-command.ts';
import type { AppendedNames } from './commands/command-model.ts';
import { commandModel } from './commands/command-models.ts';
import type { ShellFinding } from './shell-finding.ts';
import { codeLoadingFile } from '../fs/code-loading-files.ts';
import { expandGlob } from './expand-glob.ts';
import { sourceTreeEntries } from './source-tree-entries.ts';
import { gitCommandConcerns, runsGit } from './git-command-concerns.ts';
import { judgePath, type PathOperation } from './judge-path.ts';
import { networkUse } from './network-commands.ts';
import type { PathArgument } from './path-argument.ts';
import { commandPaths, takesNoPaths } from './path-arguments.ts';
import { unnamedWritesConcern } from './unnamed-writes.ts';
import { effectiveCwd, wordPath } from './shell-paths.ts';
import type { ShellWord } from './shell-word.ts';

export interface CommandPathContext {
  /** Where the command line starts. */
  cwd: string;
  home: string;
  zones: readonly Zone[];
  /** The sandbox profile derived from the same policy. */
  profile: SandboxProfile;
  /** The policy's `shell.network`, as the sandbox reads it. */
  network: SandboxNetwork;
  /** Real paths of working directories, for this decision only. */
  realDirectories?: Map<string, string | undefined>;
}

/** Producers whose output names only files under the paths they were given (which are judged themselves). */

/** Stands for the arguments xargs or find -exec will append, to see what the command would do with them. */
const APPENDED: ShellWord = { text: '<appended>', value: '\u0000appended', kind: 'static', tilde: false };

/**
 * The findings for one simple command's network use and paths: at most one
 * per decision (block, ask, allow), each listing its reasons. The command's
 * rules are decided elsewhere; these add to them (any block blocks).
 *
 * @example
 * await decideCommandPaths({ command: analyzeCommand('cat ../secret').commands[0], context })
 * // [{ decision: 'block', reason: 'cat reads "../secret" (/p/secret), outside every zone ...' }]
 */
export async function decideCommandPaths(options: { command: AnalyzedCommand; context: CommandPathContext }): Promise<ShellFinding[]> {
  const { command, context } = options;
  const name = command.name;
  const collected: Record<Decision, string[]> = { block: [], ask: [], allow: [] };
  let network: ShellFinding | undefined;
  const findings = (): ShellFinding[] => [
    ...(network === undefined ? [] : [network]),
    ...(['block', 'ask', 'allow'] as const).filter((decision) => collected[decision].length > 0).map((decision) => ({ decision, subject: command.text, reason: [...new Set(collected[decision])].join('; '), rule: null, via: command.via })),
  ];
  if (name === undefined) return [];

  if (context.network.mode !== 'all') {
    const use = networkUse({ name, words: command.words });
    const domains = context.network.mode === 'domains' ? '; its allow_domains list is enforced only by an OS sandbox with a domain filter, so here it counts as off' : '';
    // A finding of its own, so that the verdict can say shell.network decided.
    if (use !== undefined) network = { decision: 'block', subject: command.text, reason: `${use}, and network is off in this policy (shell.network${domains}): no shell rule changes that (a rule that allows or asks cannot open the network); only the shell.network key does`, rule: 'shell.network', via: command.via };
  }
  if (takesNoPaths(name)) return findings();

  const cwd = effectiveCwd({ state: command.cwd, cwd: context.cwd });
  if (cwd === undefined) {
    collected.ask.push(`${name} runs in a directory only known at run time (after cd), so the files it touches cannot be checked`);
    return findings();
  }
  const judge = async (entry: { path: string; operation: PathOperation; into?: boolean; presumed?: string; action?: string; from?: string; quietAt?: Decision }): Promise<Decision> => {
    const judgement = await judgePath({ path: entry.path, cwd: entry.from ?? cwd, operation: entry.operation, subject: name, context, ...(entry.into === true ? { into: true } : {}), ...(entry.presumed === undefined ? {} : { presumed: entry.presumed }), ...(entry.action === undefined ? {} : { action: entry.action }) });
    // A read inside a zone that allows reads, or of a system path, says nothing worth showing.
    if (judgement.decision === 'allow' && entry.operation === 'read') return 'allow';
    // Git's metadata and other tools' code-loading configuration: a change asks in every zone (src/tools/fs/code-loading-files.ts).
    const loading = entry.operation === 'read' || judgement.decision === 'block' || judgement.absolute === undefined ? undefined : codeLoadingFile({ absolute: judgement.absolute, ...(judgement.zone === undefined ? {} : { root: judgement.zone.root }) });
    if (loading !== undefined) {
      collected.ask.push(`${judgement.reason}; it is ${loading}, so changing it asks in every zone`);
      return 'ask';
    }
    // `tar -x`, `unzip`, `curl -O`: names only known at run time could be such files (unnamed-writes.ts).
    const unnamed = entry.into === true && entry.operation === 'write' && judgement.decision === 'allow' ? unnamedWritesConcern({ name, words: command.words }) : undefined;
    if (unnamed !== undefined) {
      collected.ask.push(`${judgement.reason}; ${unnamed}`);
      return 'ask';
    }
    // A name inside a copied directory says something only when it is stricter than the copy itself.
    if (entry.quietAt !== undefined && STRICTNESS[judgement.decision] <= STRICTNESS[entry.quietAt]) return judgement.decision;
    collected[judgement.decision].push(judgement.reason);
    return judgement.decision;
  };

  if (command.cwd.kind === 'changed') await judge({ path: cwd, operation: 'read', action: 'runs in' });
  if (command.written!.includes('/')) {
    const program = wordPath(command.words[0]!, context.home);
    if (program === undefined) collected.ask.push(`the program ${command.words[0]!.text} is in a directory only known at run time`);
    else await judge({ path: program, operation: 'read', action: 'runs' });
  }
  const dynamic = command.words.slice(1).find((word) => word.kind === 'dynamic');
  if (dynamic !== undefined) collected.ask.push(`the argument ${dynamic.text} is only known at run time, so it could name a file outside the zones (or be an option that does)`);
  if (command.appendsArguments) await appended({ command, ask: collected.ask, judge, home: context.home });

  const { paths, unsure } = commandPaths({ name, words: command.words });
  collected.ask.push(...unsure.map((reason) => `${name}: ${reason}`));
  for (const entry of paths) {
    // find -exec's and xargs -I's `{}` stands for the appended arguments, judged above.
    if (command.appendsArguments && entry.word.value === '{}') continue;
    // `rg x` with no path searches what is piped into it, not the directory.
    if (entry.tree === 'unless-piped' && command.piped) continue;
    await judgeArgument({ entry, cwd, context, judge, ask: collected.ask, subject: name });
  }
  // What the repository makes git run (config keys, hooks), and the whole work tree a writing subcommand changes.
  if (runsGit(name)) collected.ask.push(...(await gitCommandConcerns({ name, words: command.words, cwd, home: context.home, judge: async (entry) => void (await judge(entry)), zoneRoots: context.zones.map((zone) => zone.root) })));
  return findings();
}

type Judge = (entry: { path: string; operation: PathOperation; into?: boolean; presumed?: string; action?: string; from?: string; quietAt?: Decision }) => Promise<Decision>;

const STRICTNESS: Record<Decision, number> = { allow: 0, ask: 1, block: 2 };

/** One path argument: its base directory, a glob's matches, a directory destination's files, a symlink's target. */
async function judgeArgument(options: { entry: PathArgument; cwd: string; context: CommandPathContext; judge: Judge; ask: string[]; subject: string }): Promise<void> {
  const { entry, context, judge, ask } = options;
  // A search through every file below a directory reads the files a zone hides there too.
  const searched = async (target: string, from: string): Promise<void> => {
    const decided = await judge({ ...common, path: target, from });
    if (entry.tree === undefined || decided === 'block') return;
    const concern = searchConcern({ target, cwd: from, subject: options.subject, zones: context.zones });
    if (concern !== undefined) ask.push(concern);
  };
  const word = entry.word;
  if (word.kind === 'dynamic' || word.value === '' || word.value === '-') return;
  let cwd = options.cwd;
  if (entry.base !== undefined) {
    const base = entry.base.kind === 'static' ? wordPath(entry.base, context.home) : undefined;
    if (base === undefined) {
      ask.push(`${word.text} is relative to ${entry.base.text}, which is only known at run time`);
      return;
    }
    cwd = path.isAbsolute(base) ? base : `${cwd}${path.sep}${base}`;
  }
  const common = { operation: entry.use, from: cwd, ...(entry.into === true ? { into: true } : {}), ...(entry.presumed === undefined ? {} : { presumed: entry.presumed }) };
  if (word.kind === 'pattern') {
    const expansion = await expandGlob({ word, cwd, home: context.home });
    if (expansion.kind === 'unsure') {
      ask.push(expansion.reason);
      return;
    }
    await judge({ path: expansion.directory, operation: 'read', from: cwd });
    for (const match of expansion.matches) await searched(match, cwd);
    return;
  }
  const target = wordPath(word, context.home);
  if (target === undefined) {
    ask.push(`${word.text} expands to a directory only known at run time`);
    return;
  }
  if (entry.onlyIfExists === true && !exists(target, cwd)) return;
  const sources = entry.sources ?? [];
  if (entry.use !== 'read' && sources.length > 0) {
    await judgeCopies({ target, sources, layout: entry.layout ?? 'directory', links: entry.links === true, cwd, common, context, judge, ask });
    return;
  }
  if (entry.linkedFrom === undefined) {
    await searched(target, cwd);
    return;
  }
  if (path.isAbsolute(target)) {
    await judge({ ...common, path: target, action: 'links to' });
    return;
  }
  // The kernel resolves a relative symlink target from the link's directory, not from here.
  const link = entry.linkedFrom.kind === 'static' ? wordPath(entry.linkedFrom, context.home) : undefined;
  if (link === undefined) ask.push(`the symlink ${entry.linkedFrom.text} is only known at run time, and its target ${word.text} is relative to it`);
  else await judge({ ...common, path: `${isDirectory(link, cwd) ? link : path.dirname(link)}/${target}`, action: 'links to' });
}

/**
 * Where each source of a copy, move or link lands, judged as a write: `cp a
 * b dir/` writes dir/a and dir/b, `cp -T a b` writes b, `rsync -a src/ dst`
 * writes dst. A source that is a directory writes every name inside it
 * there too, so each is judged (a `.envrc`, `.vscode/tasks.json` or
 * toolgate's own file among them asks or blocks); past a bounded walk the
 * names are unknown, and it asks. Judged as a delete (`ln -f`, `mv` over a
 * file), only the names that already exist there are: the files replaced.
 */
async function judgeCopies(options: { target: string; sources: readonly ShellWord[]; layout: 'directory' | 'target' | 'rsync'; links: boolean; cwd: string; common: Omit<Parameters<Judge>[0], 'path'>; context: CommandPathContext; judge: Judge; ask: string[] }): Promise<void> {
  const { target, sources, layout, links, cwd, common, context, judge, ask } = options;
  const trimmed = target.replace(/\/+$/, '') || '/';
  const targetIsDirectory = isDirectory(target, cwd);
  for (const source of sources) {
    const sourcePath = source.kind === 'static' ? wordPath(source, context.home) : undefined;
    const name = sourcePath === undefined ? undefined : path.basename(sourcePath);
    const named = name !== undefined && name !== '' && name !== '.' && name !== '..';
    const sourceIsDirectory = sourcePath !== undefined && isDirectory(sourcePath, cwd);
    let landing: string | undefined;
    if (layout === 'target') landing = target;
    else if (layout === 'rsync') {
      // rsync: `src/` copies the contents into the destination, `src` (a directory) goes in under its name.
      if (sourcePath !== undefined && (sourcePath.endsWith('/') || name === '.')) landing = target;
      else if (sources.length > 1 || target.endsWith('/') || targetIsDirectory || sourceIsDirectory) landing = named ? `${trimmed}/${name}` : undefined;
      else landing = target;
    } else if (sources.length > 1 || target.endsWith('/') || targetIsDirectory) landing = named ? `${trimmed}/${name}` : undefined;
    else landing = target;
    if (landing === undefined) {
      await judge({ ...common, path: target, into: true });
      continue;
    }
    const replacing = common.operation === 'delete';
    if (replacing && !exists(landing, cwd)) continue;
    const landed = await judge({ ...common, path: landing });
    if (!sourceIsDirectory || links) continue;
    const tree = sourceTreeEntries({ directory: path.isAbsolute(sourcePath!) ? sourcePath! : `${cwd}${path.sep}${sourcePath!}` });
    if (tree.kind === 'unknown') ask.push(`the directory ${source.text} is copied or moved as a whole and ${tree.reason}, so the names it writes under ${quoteWord(landing)} cannot all be checked`);
    else if (tree.kind === 'entries') {
      for (const entry of tree.entries) {
        const inside = `${landing.replace(/\/+$/, '')}/${entry}`;
        if (!replacing || exists(inside, cwd)) await judge({ ...common, path: inside, quietAt: landed });
      }
    }
  }
}

function quoteWord(value: string): string {
  return JSON.stringify(value);
}

/**
 * xargs and find -exec add arguments that are not in the command line. A
 * command that reads them asks unless they come whole from a lister of
 * paths that are judged themselves (`find . -exec grep x {} +`,
 * `find . -print0 | xargs -0 grep x`) or from nothing at all. One that
 * writes or deletes them is judged on find's start points, under which they
 * all lie (`find ../docs -exec rm {} +` blocks on a read-only zone), and
 * asks when they come from anything else. Names cut by xargs at blanks
 * (`find . | xargs cat`) are not whole: a file named `x /etc/passwd` under
 * the workspace makes the argument /etc/passwd.
 */
async function appended(options: { command: AnalyzedCommand; ask: string[]; judge: Judge; home: string }): Promise<void> {
  const { command, ask } = options;
  // The tool runs commands with an empty standard input: a bare `xargs cmd` appends nothing.
  if (command.appendedFrom === 'empty-input') return;
  const name = command.name!;
  const use = commandPaths({ name, words: [...command.words, APPENDED] }).paths.find((entry) => entry.word === APPENDED)?.use;
  if (use === undefined) return;
  const lister = command.appendedFrom;
  const names = command.appendedNames;
  const listed = listing(lister);
  const whole = names?.cut === 'whole' || (names?.cut === 'nul' && listed === 'nul');
  if (use !== 'read') {
    const under = lister === undefined ? undefined : commandModel(lister.name)?.lists?.under;
    if (lister === undefined || under === undefined) {
      ask.push(`${name} ${use === 'write' ? 'writes' : 'deletes'} files named by its input (xargs or find -exec), which this check cannot see`);
      return;
    }
    // Cut names can be anything, but find's own are still judged: a delete under a zone that blocks them is blocked.
    if (!whole) ask.push(cutNames(name, lister, names));
    // `find . -exec chmod 777 {} +` changes where a symlink it is given leads (rm removes the link itself).
    if (use === 'write' && maySymlink(lister)) ask.push(followedLinks(name, lister));
    for (const start of under(lister.words)) {
      const directory = start.kind === 'static' ? wordPath(start, options.home) : undefined;
      if (directory === undefined) ask.push(`${name} ${use === 'write' ? 'writes' : 'deletes'} files ${lister.name} finds under ${start.text}, which is only known at run time`);
      else await options.judge({ path: directory, operation: use, into: true });
    }
    return;
  }
  if (lister === undefined || listed === undefined) {
    ask.push(`${name} reads files named by its input, which this check cannot see (only find, fd, ls, rg, grep and git ls-files are followed)`);
    return;
  }
  if (!whole) ask.push(cutNames(name, lister, names));
  else if (mayPrintOptions(lister) && !(names?.atEnd === true && command.words.at(-1)?.value === '--')) {
    // `ls --zero | xargs -0 wc` with a file named `--files0-from=list` counts the files that list names.
    ask.push(
      `${lister.name} prints names as they are, so a file named like an option (--files0-from=list) would be an option of ${name}; ` +
        `end ${name}'s words with -- (xargs -0 ${name} … --), or list with find, whose names start with where it looks`,
    );
  }
  // `find . -exec cat {} +` with `ws/notes -> /etc/shadow` in the zone printed it: the lister's paths are judged, not where its links lead.
  if (maySymlink(lister)) ask.push(followedLinks(name, lister));
}

/** Why names a lister prints may lead out of the zones, and how to list only what cannot. */
function followedLinks(name: string, lister: AnalyzedCommand): string {
  return `${lister.name} lists symlinks too, and ${name} follows one it is given wherever it leads (a link in the zone to /etc/shadow); list regular files only (find -type f, fd -t f)`;
}

/**
 * Whether a lister can print a symlink's name, as its model says (rg and
 * grep -r skip the symlinks they meet; find and fd list them unless limited
 * to regular files or directories); ls and git ls-files list them.
 */
function maySymlink(lister: AnalyzedCommand): boolean {
  const model = commandModel(lister.name)?.lists;
  return model === undefined ? true : model.maySymlink(lister.words);
}

/** Why names that xargs cuts are not the names the lister printed, and how to pass them whole. */
function cutNames(name: string, producer: AnalyzedCommand, names: AppendedNames | undefined): string {
  const how =
    names?.cut === 'nul'
      ? `xargs -0 cuts its input at NUL bytes, but ${producer.name} prints one name per line`
      : `xargs cuts the names ${producer.name} prints at blanks and newlines (or at its -d character)`;
  return (
    `${how}, so a file named "x /etc/passwd" would give ${name} the path /etc/passwd; ` +
    'pass whole names with find -exec … {} +, or with NUL-separated output (find -print0, fd -0, git ls-files -z, rg -0, grep -Z, ls --zero) into xargs -0'
  );
}

/**
 * Whether a lister can print a name that starts with `-`, as its model says
 * (find's names start with its start points, fd's with `./` when whole);
 * ls and git ls-files print names as they are.
 */
function mayPrintOptions(lister: AnalyzedCommand): boolean {
  const model = commandModel(lister.name)?.lists;
  return model === undefined ? true : model.mayPrintOptions(lister.words);
}

/**
 * What a producer prints for xargs: `nul` when each name ends with a NUL
 * byte (find -print0, fd -0, git ls-files -z, rg -0, grep -Z, ls --zero),
 * `lines` for one name per line, undefined when it is not a lister of paths
 * this check follows.
 */
function listing(producer: AnalyzedCommand | undefined): 'nul' | 'lines' | undefined {
  if (producer === undefined || producer.name === undefined) return undefined;
  const model = commandModel(producer.name)?.lists;
  if (model !== undefined) return model.output(producer.words);
  const values = producer.words.slice(1).map((word) => word.value);
  const nul = (test: (value: string) => boolean) => (values.some(test) ? 'nul' : 'lines');
  switch (producer.name) {
    case 'ls':
      return nul((value) => value === '--zero');
    case 'git':
      return values.includes('ls-files') ? nul((value) => value === '-z') : undefined;
    default:
      return undefined;
  }
}

function exists(target: string, cwd: string): boolean {
  try {
    return lstatSync(path.isAbsolute(target) ? target : `${cwd}${path.sep}${target}`, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return true;
  }
}

function isDirectory(target: string, cwd: string): boolean {
  try {
    return statSync(path.isAbsolute(target) ? target : `${cwd}${path.sep}${target}`, { throwIfNoEntry: false })?.isDirectory() === true;
  } catch {
    return false;
  }
}
