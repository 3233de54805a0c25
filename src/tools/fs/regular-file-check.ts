/**
 * The file tools read and write regular files, and only ones that have a
 * single name. A FIFO, socket or device is refused when the call is
 * checked, before anything opens it (opening a FIFO blocks until a writer
 * comes; reading a device may never end). A file with more than one hard
 * link is the same file as a name that can lie anywhere on the filesystem
 * (outside every zone, in a read-only zone), so reading or writing it
 * through a zone needs a person, whatever the zone allows; the reason says
 * so. Both are checked again on the descriptor at execution, where a path
 * can have changed since.
 */
import { lstatSync } from '../../filesystem/file-lookups.ts';
import type { Decision } from '../../core/types.ts';
import type { ToolExecutionOptions } from '../builtin-tool.ts';
import { FsPathRejectedError } from './errors/fs-path-rejected-error.ts';

export type EntryConcern = { decision: 'block'; reason: string } | { decision: 'ask'; reason: string; links: number; file: string };

/**
 * What the entry at `absolute` (a real path) means for a read or a write:
 * a block for anything but a regular file or a missing one, an ask for a
 * regular file with more than one hard link, undefined otherwise.
 *
 * @example
 * regularFileConcern({ absolute: '/p/ws/pipe', shown: 'ws/pipe', operation: 'read' })
 * // { decision: 'block', reason: 'ws/pipe is a FIFO (named pipe); read_file, write_file and edit_file work on regular files only' }
 */
export function regularFileConcern(options: { absolute: string; shown: string; operation: 'read' | 'write' }): EntryConcern | undefined {
  const { absolute, shown } = options;
  let entry;
  try {
    entry = lstatSync(absolute, { throwIfNoEntry: false });
  } catch (error) {
    return { decision: 'block', reason: `${shown} cannot be examined (${(error as NodeJS.ErrnoException).code ?? 'error'}); nothing was opened` };
  }
  if (entry === undefined) return undefined;
  if (entry.isDirectory()) return { decision: 'block', reason: `${shown} is a directory; this tool works on files (use list_dir to see what it holds)` };
  if (!entry.isFile()) return { decision: 'block', reason: `${shown} is ${kindOf(entry)}; read_file, write_file and edit_file work on regular files only, and it was not opened` };
  if (entry.nlink > 1) return { decision: 'ask', reason: hardLinkReason({ shown, links: entry.nlink, operation: options.operation }), links: entry.nlink, file: fileIdentity(entry) };
  return undefined;
}

/**
 * A zone's decision made at least `ask` (a block stays a block).
 *
 * @example
 * atLeastAsk('allow') // 'ask'
 */
export function atLeastAsk(decision: Decision): Decision {
  return decision === 'allow' ? 'ask' : decision;
}

/**
 * A file's identity on this machine (device and inode), as the approval of
 * a hard-linked file names it.
 *
 * @example
 * fileIdentity(lstatSync('/p/ws/a.txt')) // '2049:1835012'
 */
export function fileIdentity(status: { dev: number; ino: number }): string {
  return `${status.dev}:${status.ino}`;
}

/**
 * At execution, on the file actually opened: refuses a file with more than
 * one hard link unless a person (or a remembered decision, or a mode)
 * approved this very file (its identity in the approved payload). A link
 * made after the check is caught here, and so is another hard-linked file
 * put under an approved name (an "approve for session" of one is not an
 * approval of the other).
 *
 * @example
 * assertSingleLinkOrApproved({ links: snapshot.links, identity: fileIdentity(snapshot), shown: 'ws/a.txt', operation: 'read', authorization: options?.authorization });
 */
export function assertSingleLinkOrApproved(options: { links: number; identity: string; shown: string; operation: 'read' | 'write'; authorization: ToolExecutionOptions['authorization'] }): void {
  if (options.links <= 1) return;
  const { authorization } = options;
  const approved = authorization?.decision === 'approved' ? (authorization.payload as { file?: unknown } | undefined)?.file : undefined;
  if (approved === options.identity) return;
  const why = approved === undefined ? 'call again so a person can decide' : 'it is not the file that was approved (another file has been given its name since), call again so a person can decide';
  throw new FsPathRejectedError({ path: options.shown, reason: `${hardLinkReason({ shown: options.shown, links: options.links, operation: options.operation })}; nothing was done, ${why}` });
}

function hardLinkReason(options: { shown: string; links: number; operation: 'read' | 'write' }): string {
  const verb = options.operation === 'read' ? 'reading it reads' : 'a change to it is built from, and shows,';
  return `${options.shown} has ${options.links} hard links: it is the same file as ${options.links - 1 === 1 ? 'another name' : `${options.links - 1} other names`} that may lie outside the zones or in a read-only zone, and ${verb} that file, so a person decides`;
}

function kindOf(entry: { isFIFO(): boolean; isSocket(): boolean; isCharacterDevice(): boolean; isBlockDevice(): boolean; isSymbolicLink(): boolean }): string {
  if (entry.isFIFO()) return 'a FIFO (named pipe)';
  if (entry.isSocket()) return 'a socket';
  if (entry.isCharacterDevice()) return 'a character device';
  if (entry.isBlockDevice()) return 'a block device';
  if (entry.isSymbolicLink()) return 'a symlink that appeared after it was resolved';
  return 'not a regular file';
}
