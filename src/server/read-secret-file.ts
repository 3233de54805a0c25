/**
 * Reading a secret from a file is only as safe as the file: a symlink can
 * point the server at a value someone else chose, a file owned by another
 * user or open to group or others can be read (the admin token, the key that
 * signs approvals) or replaced by them. The file is opened once without
 * following a symlink, and the checks are made on what was opened, so the
 * file cannot be swapped between the check and the read.
 */
import { closeSync, constants, fstatSync, openSync, readFileSync, type Stats } from 'node:fs';
import { ToolgateError } from '../core/errors/toolgate-error.ts';

/** Undefined on platforms without them (Windows); 0 then adds nothing. */
const NO_FOLLOW = constants.O_NOFOLLOW ?? 0;
/** A FIFO planted in the file's place would otherwise block the open forever. */
const NON_BLOCKING = constants.O_NONBLOCK ?? 0;

/** Any permission bit for group or others. */
const SHARED_MODE_BITS = 0o077;

/**
 * The trimmed content of `file`, or `undefined` when there is no such file.
 * Throws a `USAGE` error naming the file, what is wrong and how to fix it
 * when the file is a symlink, not a regular file, not owned by the current
 * user, or open to group or others. `what` names the secret in messages.
 *
 * @example
 * readSecretFile({ file: '/srv/project/.toolgate/server-token', what: 'admin token' }) // 'tg_3q2-7wEj...'
 */
export function readSecretFile(options: { file: string; what: string }): string | undefined {
  const { file } = options;
  let descriptor: number;
  try {
    descriptor = openSync(file, constants.O_RDONLY | NO_FOLLOW | NON_BLOCKING);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    // O_NOFOLLOW on a symlink fails with ELOOP (EMLINK on FreeBSD).
    if (code === 'ELOOP' || code === 'EMLINK') {
      throw secretFileError({ ...options, problem: 'is a symlink, so the secret would be whatever it points to', fix: 'replace the link with a file of its own' });
    }
    throw error;
  }
  try {
    const unsafe = unsafeSecretFile(fstatSync(descriptor), file);
    if (unsafe !== undefined) throw secretFileError({ ...options, ...unsafe });
    return readFileSync(descriptor, 'utf8').trim();
  } finally {
    closeSync(descriptor);
  }
}

/** What makes an opened secret file unsafe to trust, and the fix that keeps the secret; `undefined` when it is safe. */
function unsafeSecretFile(stats: Stats, file: string): { problem: string; fix?: string } | undefined {
  if (!stats.isFile()) return { problem: `is ${kindOf(stats)}, not a regular file` };
  // Without user ids (Windows), ownership and modes cannot be checked this way.
  const user = process.getuid?.();
  if (user === undefined) return undefined;
  if (stats.uid !== user) {
    return { problem: `belongs to user id ${stats.uid}, not to the user running toolgate (${user}), so its owner could read or replace it` };
  }
  const mode = stats.mode & 0o777;
  if ((mode & SHARED_MODE_BITS) !== 0) {
    return { problem: `can be read or changed by group or others (mode 0${mode.toString(8)})`, fix: `run \`chmod 600 ${file}\`` };
  }
  return undefined;
}

function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a named pipe';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  return 'something else';
}

function secretFileError(options: { file: string; what: string; problem: string; fix?: string }): ToolgateError {
  const fixes = [options.fix, 'delete it to have a new one generated'].filter((fix) => fix !== undefined).join(', or ');
  return new ToolgateError({ code: 'USAGE', message: `${options.file} (the ${options.what}) ${options.problem}: ${fixes}` });
}
