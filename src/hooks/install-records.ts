/**
 * What `toolgate install` created to put its hook in place — the host's
 * settings file, when there was none, and the folders above it — so that
 * `toolgate uninstall` removes exactly that: a file left holding only `{}`
 * and empty folders are install's leftovers, unless they were there before.
 * Kept in toolgate's state home (`~/.local/state/toolgate/installs.json`).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { toolgateStateHome } from '../config/user-toolgate-paths.ts';
import { writePrivateJson } from '../filesystem/write-private-json.ts';

type Environment = Readonly<Record<string, string | undefined>>;

interface InstallRecords {
  v: 1;
  /** By the host's settings file: the folders install created for it, outermost first. */
  created: Record<string, { directories: string[] }>;
}

function recordsFile(env: Environment): string {
  return path.join(toolgateStateHome(env), 'installs.json');
}

function read(env: Environment): InstallRecords {
  try {
    const value = JSON.parse(readFileSync(recordsFile(env), 'utf8')) as InstallRecords;
    if (value.v === 1 && typeof value.created === 'object' && value.created !== null) return value;
  } catch {
    // None, or not toolgate's: nothing is known to be install's, so nothing is removed.
  }
  return { v: 1, created: {} };
}

function write(env: Environment, records: InstallRecords): void {
  writePrivateJson(recordsFile(env), records);
}

/**
 * Records that install created `file` (and `directories`, outermost first).
 *
 * @example
 * recordCreated({ file: '/p/.claude/settings.json', directories: ['/p/.claude'], env });
 */
export function recordCreated(options: { file: string; directories: readonly string[]; env: Environment }): void {
  const records = read(options.env);
  records.created[options.file] = { directories: [...options.directories] };
  write(options.env, records);
}

/** What install created for `file`, if it did. */
export function createdByInstall(options: { file: string; env: Environment }): { directories: string[] } | undefined {
  return read(options.env).created[options.file];
}

/** Forgets `file`: removed, or someone else's now (it holds more than the hook). */
export function forgetCreated(options: { file: string; env: Environment }): void {
  const records = read(options.env);
  if (records.created[options.file] === undefined) return;
  delete records.created[options.file];
  write(options.env, records);
}
