import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { CliIo } from '../src/cli/cli-io.ts';
import { main } from '../src/cli/main.ts';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Where CLI runs under test keep their per-user state (run records), so that tests never write to the real home. */
const STATE_HOME = mkdtempSync(path.join(os.tmpdir(), 'toolgate-state-home-'));
/** And their user-level policy: none, unless a test writes one. */
const CONFIG_HOME = mkdtempSync(path.join(os.tmpdir(), 'toolgate-config-home-'));

/** Runs the CLI in-process with captured output and an optional stdin. */
export async function runCli(argv: string[], options: { cwd?: string; stdin?: string; env?: NodeJS.ProcessEnv } = {}): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: { write: (text: string) => (stdout += text), isTTY: false, columns: 80 },
    stderr: { write: (text: string) => (stderr += text), isTTY: false },
    stdin: Readable.from(options.stdin === undefined ? [] : [options.stdin]) as unknown as CliIo['stdin'],
    env: { NO_COLOR: '1', TOOLGATE_STATE_HOME: STATE_HOME, TOOLGATE_CONFIG_HOME: CONFIG_HOME, ...options.env },
    cwd: options.cwd ?? process.cwd(),
  };
  const code = await main(argv, io);
  return { code, stdout, stderr };
}
