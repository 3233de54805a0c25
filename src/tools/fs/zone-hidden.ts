/**
 * A zone's `hidden` patterns: files inside it that no tool reads, writes,
 * moves or deletes (`.env`, `*.pem`, `secrets/`), in gitignore syntax
 * relative to the zone root — the syntax people already keep their secrets
 * out of git with, matched by `ignore` (the matcher eslint and prettier use,
 * which follows git's rules: a pattern without a slash matches at any depth,
 * `dir/` only directories and what is below them, `!` takes a name back).
 * Matched case-insensitively, so `.ENV` on a case-insensitive disk is the
 * same file: on a case-sensitive one that only hides more.
 *
 * The file tools and the shell refuse a hidden path by name; a command that
 * reads every file below a directory (`grep -r`, `rg`, a host's search
 * tool) is checked with `findHiddenBelow`; the OS sandbox hides the matches
 * that exist when a command starts (`listHiddenEntries`).
 */
import { existsSync, readdirSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import ignore, { type Ignore } from 'ignore';

export interface ZoneHidden {
  readonly patterns: readonly string[];
  readonly matcher: Ignore;
}

/** The parts of a zone this module reads (a `Zone` has them). */
interface HidingZone {
  readonly name: string;
  readonly root: string;
  readonly hidden?: ZoneHidden | undefined;
}

/**
 * Directories a walk does not enter: installed dependencies and git's
 * object store, which hold tens of thousands of entries in an ordinary
 * project, and no file a person keeps a secret in. A walk that entered them
 * would exceed its bound in most JavaScript projects, and every search
 * would ask. A pattern still hides a path inside them by name.
 */
const NOT_WALKED = new Set(['node_modules', '.git']);

/** More entries than this below a searched directory, and it cannot be said that none is hidden: the search asks. */
export const HIDDEN_WALK_LIMIT = 20_000;

/**
 * @example
 * compileHidden(['.env', '.env.*', '!.env.example']) // { patterns, matcher }
 */
export function compileHidden(patterns: readonly string[] | undefined): ZoneHidden | undefined {
  if (patterns === undefined || patterns.length === 0) return undefined;
  return { patterns: [...patterns], matcher: ignore({ ignorecase: true }).add([...patterns]) };
}

/**
 * Why a `hidden` pattern can never match a path in the zone rooted at
 * `root`, or undefined: patterns are relative to the zone root, so `..`
 * never matches, an absolute path (`/home/me/app/.env`) is read as one
 * anchored at the root and matches nothing there, `~` is not expanded, and
 * a comment, a blank or a bare `!` names nothing.
 *
 * @example
 * hiddenPatternProblem('../secrets', '/p/ws') // 'it leaves the zone (..): a pattern only matches below the zone root'
 */
export function hiddenPatternProblem(pattern: string, root: string): string | undefined {
  const trimmed = pattern.trim();
  if (trimmed === '' || trimmed === '!') return 'it names nothing';
  if (trimmed.startsWith('#')) return 'a line starting with # is a comment in .gitignore syntax and names nothing (write \\# for a name that starts with #)';
  if (trimmed.split('/').includes('..')) return 'it leaves the zone (..): a pattern only matches below the zone root';
  if (trimmed.startsWith('~')) return 'it starts with ~, which is not expanded: write it relative to the zone root';
  const body = trimmed.replace(/^!/, '');
  // `/build/` is anchored at the zone root; `/home/me/app/.env` is a machine path: its first folder is the filesystem's, not the zone's.
  const first = body.split('/')[1] ?? '';
  const machinePath = body.startsWith('/') && first !== '' && !/[*?[\]]/.test(first) && existsSync(`/${first}`) && !existsSync(path.join(root, first));
  if (body === root || body.startsWith(`${root}/`) || machinePath) {
    return `it is an absolute path, which .gitignore syntax reads as anchored at the zone root (${root}); write it relative to the zone root${body.startsWith(`${root}/`) ? ` (${body.slice(root.length + 1)})` : ''}`;
  }
  return undefined;
}

/**
 * The pattern of `zone` that hides `absolute` (a real path inside it), or
 * undefined. `directory` says the path is a directory, which `dir/`
 * patterns need; a path below a hidden directory is hidden too. The zone
 * root itself is never hidden.
 *
 * @example
 * hiddenBy({ zone, absolute: '/p/ws/config/.env.local' }) // '.env.*'
 */
export function hiddenBy(options: { zone: HidingZone; absolute: string; directory?: boolean }): string | undefined {
  const { zone } = options;
  if (zone.hidden === undefined) return undefined;
  if (!contains(zone.root, options.absolute)) return undefined;
  const relative = path.relative(zone.root, options.absolute);
  if (relative === '') return undefined;
  return testRelative(zone.hidden, relative.split(path.sep).join('/'), options.directory === true);
}

/** `candidate` is `root` or below it (resolve-zone-path.ts's isInsideDirectory, which imports this module). */
function contains(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate);
  return relative === '' || (!relative.startsWith(`..${path.sep}`) && relative !== '..' && !path.isAbsolute(relative));
}

function testRelative(hidden: ZoneHidden, relative: string, directory: boolean): string | undefined {
  try {
    const result = hidden.matcher.test(directory ? `${relative}/` : relative);
    return result.ignored ? (result.rule?.pattern ?? hidden.patterns.join(', ')) : undefined;
  } catch {
    // A name the matcher refuses to judge: hidden, so a person never loses a secret to it.
    return hidden.patterns.join(', ');
  }
}

export type HiddenBelow =
  | { kind: 'none' }
  | { kind: 'found'; zone: HidingZone; absolute: string; pattern: string }
  /** More entries than the bound (outside node_modules and .git), or a directory that could not be listed. */
  | { kind: 'unknown'; reason: string };

/**
 * Whether a command that reads every file below `directory` (real,
 * absolute) would read one a zone hides: the first such entry found, walking
 * each zone with hidden patterns that overlaps it (symlinks listed, not
 * followed, as `grep -r` and `rg` walk), or why that cannot be said.
 *
 * @example
 * findHiddenBelow({ zones, directory: '/p/ws' }) // { kind: 'found', absolute: '/p/ws/.env', pattern: '.env', zone }
 */
export function findHiddenBelow(options: { zones: readonly HidingZone[]; directory: string; limit?: number }): HiddenBelow {
  const limit = options.limit ?? HIDDEN_WALK_LIMIT;
  for (const zone of options.zones) {
    if (zone.hidden === undefined) continue;
    // The directory inside the zone: walk from it; the zone inside the directory: walk the whole zone.
    const start = contains(zone.root, options.directory) ? options.directory : contains(options.directory, zone.root) ? zone.root : undefined;
    if (start === undefined) continue;
    const pattern = hiddenBy({ zone, absolute: start, directory: true });
    if (pattern !== undefined) return { kind: 'found', zone, absolute: start, pattern };
    const found = walk({ zone, start, limit, stopAtFirst: true });
    if (found.kind === 'unknown') return found;
    if (found.entries.length > 0) return { kind: 'found', zone, absolute: found.entries[0]!.absolute, pattern: found.entries[0]!.pattern };
  }
  return { kind: 'none' };
}

/**
 * Every entry of `zone` its patterns hide, as it is now (a hidden directory
 * once, not what is in it), for the OS sandbox to hide; or why they cannot
 * all be listed.
 *
 * @example
 * listHiddenEntries({ zone }) // { kind: 'entries', entries: ['/p/ws/.env', '/p/ws/certs'] }
 */
export function listHiddenEntries(options: { zone: HidingZone; limit?: number }): { kind: 'entries'; entries: string[] } | { kind: 'unknown'; reason: string } {
  if (options.zone.hidden === undefined) return { kind: 'entries', entries: [] };
  const found = walk({ zone: options.zone, start: options.zone.root, limit: options.limit ?? HIDDEN_WALK_LIMIT, stopAtFirst: false });
  return found.kind === 'unknown' ? found : { kind: 'entries', entries: found.entries.map((entry) => entry.absolute) };
}

function walk(options: { zone: HidingZone; start: string; limit: number; stopAtFirst: boolean }): { kind: 'walked'; entries: { absolute: string; pattern: string }[] } | { kind: 'unknown'; reason: string } {
  const { zone, limit } = options;
  const hidden = zone.hidden!;
  const entries: { absolute: string; pattern: string }[] = [];
  const pending = [options.start];
  let seen = 0;
  while (pending.length > 0) {
    const directory = pending.pop()!;
    let children;
    try {
      children = readdirSync(directory, { withFileTypes: true });
    } catch (error) {
      return { kind: 'unknown', reason: `${directory} cannot be listed (${(error as NodeJS.ErrnoException).code ?? 'error'}), so whether it holds a file zone ${zone.name} hides is not known` };
    }
    const relativeDirectory = path.relative(zone.root, directory).split(path.sep).join('/');
    for (const child of children) {
      seen += 1;
      if (seen > limit) return { kind: 'unknown', reason: `it holds more than ${limit.toLocaleString('en')} entries (not counting node_modules and .git), too many to check for files zone ${zone.name} hides` };
      const relative = relativeDirectory === '' ? child.name : `${relativeDirectory}/${child.name}`;
      const isDirectory = child.isDirectory();
      const pattern = testRelative(hidden, relative, isDirectory);
      if (pattern !== undefined) {
        entries.push({ absolute: path.join(directory, child.name), pattern });
        if (options.stopAtFirst) return { kind: 'walked', entries };
        continue;
      }
      if (isDirectory && !NOT_WALKED.has(child.name)) pending.push(path.join(directory, child.name));
    }
  }
  return { kind: 'walked', entries };
}

/**
 * Why a search through every file below `target` needs a person: it
 * would read a file a zone hides there (`grep -r KEY .` reads `.env`), or
 * the tree is too large to tell. Undefined when no zone hides anything, or
 * `target` is not a directory (a file is judged by its own name).
 *
 * @example
 * searchConcern({ target: '.', cwd: '/p/ws', subject: 'grep', zones })
 * // 'grep searches every file below ".", which holds ".env", a file zone ws hides (hidden: .env), so a person decides'
 */
export function searchConcern(options: { target: string; cwd: string; subject: string; zones: readonly HidingZone[] }): string | undefined {
  if (!options.zones.some((zone) => zone.hidden !== undefined)) return undefined;
  let directory: string;
  try {
    directory = realpathSync.native(path.resolve(options.cwd, options.target));
    if (!statSync(directory).isDirectory()) return undefined;
  } catch (error) {
    // Nothing there, nothing read; any other failure (a loop, no permission) cannot say what is below it.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR') return undefined;
    return `${options.subject} searches every file below ${JSON.stringify(options.target)}, which cannot be resolved (${(error as NodeJS.ErrnoException).code ?? 'error'}), so whether it holds a file a zone hides is not known, and a person decides`;
  }
  const found = findHiddenBelow({ zones: options.zones, directory });
  const searched = `${options.subject} searches every file below ${JSON.stringify(options.target)}`;
  if (found.kind === 'none') return undefined;
  if (found.kind === 'unknown') return `${searched}, and ${found.reason}, so a person decides`;
  return `${searched}, which holds ${JSON.stringify(path.relative(found.zone.root, found.absolute))}, a file zone ${found.zone.name} hides (hidden: ${found.pattern}), so a person decides`;
}
