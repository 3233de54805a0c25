import { randomBytes } from 'node:crypto';
import { closeSync, fchmodSync, fsyncSync, linkSync, openSync, rmSync, writeSync } from 'node:fs';

/** What link(2) answers on a file system without hard links (vfat, exFAT, some SMB and FUSE mounts). */
const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS']);

/**
 * Creates `file` holding `content`, never over an existing file, and so
 * that it appears whole or not at all: the text is written and synced to a
 * private temporary file beside it, then linked into place (link(2) refuses
 * a name that exists, a symbolic link too). A second process starting at
 * the same moment reads either no file or the whole text, never an empty
 * one, which an open-with-O_EXCL-then-write leaves visible between the two
 * steps. Where the file system has no hard links, the file is made with
 * O_EXCL and written, as before. Returns false when the file already
 * existed (nothing is written then).
 *
 * @example
 * if (!createWholeFile('/p/.toolgate/server-secret', `${secret}\n`, 0o600)) secret = readItAgain();
 */
export function createWholeFile(
  file: string,
  content: string,
  mode: number,
  /** link(2); the tests give one that fails as a file system without hard links does. */
  link: (existing: string, created: string) => void = linkSync,
): boolean {
  const temporary = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  writeSynced(temporary, content, mode);
  try {
    link(temporary, file);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code !== undefined && NO_HARD_LINKS.has(code)) return createExclusive(file, content, mode);
    throw error;
  } finally {
    rmSync(temporary, { force: true });
  }
}

/** A new file (O_EXCL: never an existing one, nor through a link) with `content`, synced, at `mode` whatever the umask. */
function writeSynced(file: string, content: string, mode: number): void {
  const descriptor = openSync(file, 'wx', mode);
  try {
    if (content !== '') writeSync(descriptor, content);
    fchmodSync(descriptor, mode);
    fsyncSync(descriptor);
  } finally {
    closeSync(descriptor);
  }
}

function createExclusive(file: string, content: string, mode: number): boolean {
  try {
    writeSynced(file, content, mode);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}
