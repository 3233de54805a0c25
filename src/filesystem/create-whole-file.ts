import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, fsyncSync, linkSync, openSync, rmSync, writeSync } from 'node:fs';

/**
 * Creates `file` holding `content`, never over an existing file, and so
 * that it appears whole or not at all: the text is written and synced to a
 * private temporary file beside it, then linked into place (link(2) refuses
 * a name that exists). A second process starting at the same moment reads
 * either no file or the whole text, never an empty one, which an
 * open-with-O_EXCL-then-write leaves visible between the two steps.
 * Returns false when the file already existed (nothing is written then).
 *
 * @example
 * if (!createWholeFile('/p/.toolgate/server-secret', `${secret}\n`, 0o600)) secret = readItAgain();
 */
export function createWholeFile(file: string, content: string, mode: number): boolean {
  const temporary = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  const descriptor = openSync(temporary, 'wx', mode);
  try {
    try {
      if (content !== '') writeSync(descriptor, content);
      fsyncSync(descriptor);
    } finally {
      closeSync(descriptor);
    }
    // The umask may have taken bits the caller asked for.
    chmodSync(temporary, mode);
    linkSync(temporary, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    rmSync(temporary, { force: true });
  }
}
