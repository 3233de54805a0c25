import { renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { makeDirectoriesSync } from './make-directories.ts';

/**
 * Writes `value` as JSON to `file`, readable by its owner alone, the way
 * toolgate keeps its own records in the user's state and config homes:
 * the folders made (0700), the text written to a file beside it and
 * renamed over it, so a reader sees the old records or the new, never half.
 *
 * @example
 * writePrivateJson('/home/me/.local/state/toolgate/paused.json', { until: '2026-12-06T19:30:00.000Z' });
 */
export function writePrivateJson(file: string, value: unknown): void {
  makeDirectoriesSync(path.dirname(file), 0o700);
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600 });
  renameSync(temporary, file);
}
