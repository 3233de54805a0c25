/**
 * `mkdir -p` without Node's `{ recursive: true }`, which never returns when
 * an existing ancestor refuses children with ENOENT: `mkdirSync('/proc/x/y',
 * { recursive: true })` loops forever (Node 24), and an audit log configured
 * there left every call of the gateway waiting instead of denied. Here the
 * missing directories are found from the nearest existing ancestor and
 * made one at a time; any refusal is thrown at once.
 */
import { mkdirSync, statSync } from 'node:fs';
import { mkdir, stat } from 'node:fs/promises';
import path from 'node:path';

/**
 * Makes `directory` and its missing parents (each with `mode`).
 *
 * @example
 * makeDirectoriesSync('/p/.toolgate/state', 0o700);
 */
export function makeDirectoriesSync(directory: string, mode: number): void {
  for (const missing of missingDirectories(directory, (candidate) => statSync(candidate, { throwIfNoEntry: false }))) {
    try {
      mkdirSync(missing, { mode });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}

/**
 * Makes `directory` and its missing parents (each with `mode`).
 *
 * @example
 * await makeDirectories('/p/.toolgate', 0o700);
 */
export async function makeDirectories(directory: string, mode: number): Promise<void> {
  const missing: string[] = [];
  for (let current = path.resolve(directory); ; current = path.dirname(current)) {
    const status = await stat(current).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    });
    if (status !== undefined) {
      if (!status.isDirectory()) throw notADirectory(current);
      break;
    }
    missing.unshift(current);
    if (path.dirname(current) === current) break;
  }
  for (const entry of missing) {
    await mkdir(entry, { mode }).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
    });
  }
}

/** From the nearest existing ancestor down: the directories to make, in order. */
function missingDirectories(directory: string, statOf: (candidate: string) => { isDirectory(): boolean } | undefined): string[] {
  const missing: string[] = [];
  for (let current = path.resolve(directory); ; current = path.dirname(current)) {
    const status = statOf(current);
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
