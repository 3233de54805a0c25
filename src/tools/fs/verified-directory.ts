/**
 * A directory opened once and proven to be the one that was checked, so the
 * operations that follow cannot be redirected by swapping a parent directory
 * for a symlink between the check and the use.
 *
 * On Linux the proof is exact and the window is closed: the kernel reports
 * the path of an open descriptor (`/proc/self/fd/N`), and every later
 * operation names its entry through that descriptor
 * (`/proc/self/fd/N/name`), which resolves to the opened directory whatever
 * happens to its path meanwhile (Node has no `openat`; this is the same
 * thing). Elsewhere the proof compares device and inode numbers and the
 * real path, and entries are named by path: a narrow window remains there,
 * which the OS sandbox is for.
 *
 * The system calls are made directly, not through the thread pool, for the
 * reason file-operations.ts gives.
 */
import { closeSync, constants, existsSync, fstatSync, lstatSync, openSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { FsPathRejectedError } from './errors/fs-path-rejected-error.ts';

/** Undefined on platforms without them (Windows); 0 then adds nothing. */
export const NO_FOLLOW = constants.O_NOFOLLOW ?? 0;
const DIRECTORY = constants.O_DIRECTORY ?? 0;

export interface VerifiedDirectory {
  /** The real path the directory was verified at. */
  readonly absolute: string;
  /** A path that names `name` inside exactly this directory; open it with `NO_FOLLOW`. */
  entry(name: string): string;
  /** A path for `readdir` of exactly this directory. */
  readonly listing: string;
  close(): Promise<void>;
}

let procAvailable: boolean | undefined;

/**
 * Whether `/proc/self/fd` can name open descriptors (Linux). Checked once.
 *
 * @example
 * const exact = descriptorPathsAvailable(); // true on Linux
 */
export function descriptorPathsAvailable(): boolean {
  procAvailable ??= process.platform === 'linux' && existsSync('/proc/self/fd');
  return procAvailable;
}

/**
 * Opens `absolute` (a real path, already checked to lie in a zone) without
 * following a symlink at its last component, and verifies that the opened
 * directory is the one at `absolute`. Throws `FsPathRejectedError` when it
 * is not (something was swapped), and the underlying error (ENOENT,
 * ENOTDIR) when it cannot be opened.
 *
 * @example
 * const directory = await openVerifiedDirectory({ absolute: '/p/ws/sub', shown: 'ws/sub' });
 * try { await open(directory.entry('a.txt'), O_RDONLY | NO_FOLLOW) } finally { await directory.close() }
 */
export async function openVerifiedDirectory(options: { absolute: string; shown: string }): Promise<VerifiedDirectory> {
  const { absolute, shown } = options;
  let descriptor: number;
  try {
    descriptor = openSync(absolute, constants.O_RDONLY | DIRECTORY | NO_FOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // With O_DIRECTORY, Linux reports a symlink at the last component as ENOTDIR rather than ELOOP.
    if (code === 'ELOOP' || (code === 'ENOTDIR' && isSymlink(absolute))) {
      throw new FsPathRejectedError({ path: shown, reason: `${shown} became a symlink after it was checked; nothing was changed` });
    }
    throw error;
  }
  try {
    verifyDescriptorAt({ descriptor, absolute, shown });
  } catch (error) {
    closeSync(descriptor);
    throw error;
  }
  const byDescriptor = descriptorPathsAvailable();
  const base = byDescriptor ? `/proc/self/fd/${descriptor}` : absolute;
  let closed = false;
  return {
    absolute,
    listing: base,
    entry: (name) => {
      if (name === '' || name === '.' || name === '..' || name.includes('/') || name.includes(path.sep) || name.includes('\0')) {
        throw new FsPathRejectedError({ path: shown, reason: `${JSON.stringify(name)} is not a single file name` });
      }
      return `${base}/${name}`;
    },
    close: async () => {
      // Once only: a descriptor number closed twice may by then name another file.
      if (closed) return;
      closed = true;
      closeSync(descriptor);
    },
  };
}

/**
 * Proves that an open descriptor is the file or directory at `absolute`.
 * Throws `FsPathRejectedError` when it is somewhere else.
 *
 * @example
 * verifyDescriptorAt({ descriptor, absolute: '/p/ws/a.txt', shown: 'ws/a.txt' });
 */
export function verifyDescriptorAt(options: { descriptor: number; absolute: string; shown: string }): void {
  const { descriptor, absolute, shown } = options;
  const moved = () => new FsPathRejectedError({ path: shown, reason: `${shown} was moved or swapped for a symlink after it was checked; nothing was changed` });
  if (descriptorPathsAvailable()) {
    let actual: string;
    try {
      actual = readlinkSync(`/proc/self/fd/${descriptor}`);
    } catch {
      throw moved();
    }
    if (actual !== absolute) throw moved();
    return;
  }
  const opened = fstatSync(descriptor);
  const current = orUndefined(() => statSync(absolute));
  const real = orUndefined(() => realpathSync.native(absolute));
  if (current === undefined || real !== absolute || current.dev !== opened.dev || current.ino !== opened.ino) throw moved();
}

/** What `read` returns, or undefined when it throws (the path is gone, or unreadable: either way not what was checked). */
function orUndefined<Value>(read: () => Value): Value | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}

function isSymlink(absolute: string): boolean {
  try {
    return lstatSync(absolute).isSymbolicLink();
  } catch {
    return false;
  }
}
