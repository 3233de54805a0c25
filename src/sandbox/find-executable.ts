import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';

/**
 * The first executable file called `name` on `searchPath` (a PATH string), or
 * undefined. A name with a slash is checked as it is.
 *
 * @example
 * findExecutable({ name: 'bwrap', searchPath: process.env.PATH }) // '/usr/bin/bwrap'
 */
export function findExecutable(options: { name: string; searchPath: string | undefined }): string | undefined {
  if (options.name.includes('/')) return isExecutableFile(options.name) ? path.resolve(options.name) : undefined;
  for (const directory of (options.searchPath ?? '').split(path.delimiter)) {
    if (directory === '' || !path.isAbsolute(directory)) continue; // A relative PATH entry would depend on the cwd.
    const candidate = path.join(directory, options.name);
    if (isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

function isExecutableFile(candidate: string): boolean {
  try {
    accessSync(candidate, constants.X_OK);
    return statSync(candidate).isFile();
  } catch {
    return false;
  }
}
