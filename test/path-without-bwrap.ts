/**
 * A PATH for a machine without bubblewrap: a private folder of links to the
 * few commands the tests run (sandbox detection looks for bwrap on PATH, so
 * it finds none). Real commands, real shell; only bwrap is missing.
 */
import { mkdtempSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findExecutable } from '../src/sandbox/find-executable.ts';

const COMMANDS = ['sh', 'bash', 'ls', 'cat', 'env', 'pwd', 'git', 'sleep'];

export function pathWithoutBwrap(): string {
  const folder = mkdtempSync(path.join(os.tmpdir(), 'toolgate-no-bwrap-bin-'));
  for (const command of COMMANDS) {
    const found = findExecutable({ name: command, searchPath: process.env.PATH });
    if (found !== undefined) symlinkSync(found, path.join(folder, command));
  }
  if (findExecutable({ name: 'bwrap', searchPath: folder }) !== undefined) throw new Error('bwrap slipped onto the PATH without it');
  return folder;
}
