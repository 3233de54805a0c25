/**
 * `mkdir -p` without Node's `{ recursive: true }`, which never returns when
 * an existing ancestor refuses children with ENOENT: `mkdirSync('/proc/x/y',
 * { recursive: true })` loops forever (Node 24), and an audit log configured
 * there left every call of the gateway waiting instead of denied. Here the
 * missing directories are found from the nearest existing ancestor and
 * made one at a time; any refusal is thrown at once.
 */
import { mkdirSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * Makes `directory` and its missing parents (each with `mode`).
 *
 * @example
 * makeDirectoriesSync('/p/.toolgate/state', 0o700);
 */
export function makeDirectoriesSync(directory: string, mode: number): void {
  for (const missing of missingDirectories(directory)) {
    try {
      mkdirSync(missing, { mode });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}

/** From the nearest existing ancestor down: the directories to make, in order. */
function missingDirectories(directory: string): string[] {
  const missing: string[] = [];
  for (let current = path.resolve(directory); ; current = path.dirname(current)) {
    const status = statSync(current, { throwIfNoEntry: false });
    if (status !== undefined) {
      if (!status.isDirectory()) throw notADirectory(current);
      break;
    }
    missing.unshift(current);
    if (path.dirname(current) === current) break;
  }
  return missing;
}

function notADirectory(where: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${where}'`), { code: 'ENOTDIR', path: where });
}
