/**
 * Where this toolgate's own command-line entry is, for a command line that
 * runs toolgate again (the hook `toolgate install` writes): `bin/toolgate.js`
 * at the root of the package, found from this module's own place, which is
 * `src/config/` in a checkout and `dist/src/config/` in the installed package.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The package root above `from` that is toolgate's (its package.json names
 * it) and has `bin/toolgate.js`; throws where there is none, rather than name
 * a file that does not exist.
 *
 * @example
 * toolgateEntry(); // '/home/me/app/node_modules/toolgate/bin/toolgate.js'
 */
export function toolgateEntry(from?: string): string {
  if (from !== undefined) return entryAbove(from);
  // This module's own package does not move while it runs (a decider asks for every call; an upgrade ends it).
  ownEntry ??= entryAbove(path.dirname(fileURLToPath(import.meta.url)));
  return ownEntry;
}

let ownEntry: string | undefined;

function entryAbove(from: string): string {
  for (let directory = from; ; directory = path.dirname(directory)) {
    const bin = path.join(directory, 'bin', 'toolgate.js');
    if (existsSync(bin) && packageName(path.join(directory, 'package.json')) === 'toolgate') return bin;
    if (path.dirname(directory) === directory) throw new Error(`no bin/toolgate.js in a toolgate package above ${from}`);
  }
}

function packageName(file: string): string | undefined {
  try {
    return (JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown }).name as string | undefined;
  } catch {
    return undefined;
  }
}

/**
 * The files an agent host's hook runs as: toolgate's package (its root
 * folder, wherever it is installed — a project's node_modules, a global
 * prefix) and the Node program running it, as started and as resolved. An
 * agent that could rewrite them would decide its own calls from then on, so
 * they are own paths no judged call may write (an attacker's review rewrote
 * a project's node_modules/toolgate/bin/toolgate.js, which a portable
 * project hook runs, and its next rm -rf ran).
 *
 * @example
 * hookInstallationPaths() // ['/home/me/app/node_modules/toolgate', '/home/me/app/node_modules/node/bin/node', ...]
 */
export function hookInstallationPaths(options: { /** The program the hook was started as, absolute where it is a path (default: this process's `argv0`). */ argv0?: string } = {}): string[] {
  const paths: string[] = [];
  try {
    paths.push(path.dirname(path.dirname(toolgateEntry())));
  } catch {
    // Not in a toolgate package (a bundle elsewhere): the program alone.
  }
  paths.push(process.execPath);
  const started = options.argv0 ?? process.argv0;
  if (started.includes('/')) paths.push(path.resolve(started));
  return [...new Set(paths)];
}
