/**
 * `toolgate serve --demo` (what `npm start` runs) says where its audit log
 * is (issue 39): the log is in the temporary demo workspace, so a bare
 * `toolgate audit` in the person's directory would not find it. The real CLI
 * in a child process; the printed command is then run from another
 * directory and must show the demo run's decisions.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from './cli-harness.ts';
import { ADMIN_TOKEN, api, NODE, ROOT, waitFor } from './server-harness.ts';

const MAIN_SCRIPT = path.join(ROOT, 'src/cli/main.ts');

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

function scratch(prefix: string): string {
  const directory = mkdtempSync(path.join(os.tmpdir(), prefix));
  directories.push(directory);
  return directory;
}

describe('toolgate serve --demo', () => {
  it('prints where the audit log is and the command that reads it from anywhere', async () => {
    // The demo workspace goes under TMPDIR: here, so the test removes it.
    const temporary = scratch('toolgate-demo-tmp-');
    const home = scratch('toolgate-demo-cwd-');
    const child = spawn(NODE, [MAIN_SCRIPT, 'serve', '--demo', '--port', '0'], {
      cwd: home,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, TMPDIR: temporary, NODE_DISABLE_COMPILE_CACHE: '1', TOOLGATE_ADMIN_TOKEN: ADMIN_TOKEN, TOOLGATE_STATE_HOME: scratch('toolgate-demo-state-') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      await waitFor(async () => (/demo run run_\S+ started/.test(stderr) ? true : undefined), { timeoutMs: 60_000, describe: () => `the demo run to start; stdout: ${stdout}\nstderr: ${stderr}` });
      const workspace = /toolgate demo: a fresh workspace in (\S+)/.exec(stderr)?.[1];
      expect(workspace).toBeDefined();
      expect(workspace!.startsWith(temporary)).toBe(true);
      const announced = /^audit log: every decision is recorded in (\S+) \(read it: toolgate audit --policy (\S+)\)$/m.exec(stderr);
      expect(announced, stderr).not.toBeNull();
      const [, logPath, policyPath] = announced!;
      expect(logPath).toBe(path.join(workspace!, '.toolgate', 'audit.jsonl'));
      expect(policyPath).toBe(path.join(workspace!, 'toolgate.yaml'));

      // The demo soon waits for approval; by then its first decisions are in the log.
      const url = /^listening on (http:\/\/127\.0\.0\.1:\d+)$/m.exec(stdout)![1]!;
      await waitFor(async () => ((await api(url, 'GET', '/runs?status=paused_checkpoint')).body.runs.length === 1 ? true : undefined), { timeoutMs: 30_000, describe: () => `the demo run to pause; stderr: ${stderr}` });
      expect(existsSync(logPath!)).toBe(true);
      const stored = readFileSync(logPath!, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { tool: string; decision: string });

      // A bare `toolgate audit` where the person is finds nothing; the printed command does.
      const bare = await runCli(['audit'], { cwd: home });
      expect(bare.code).toBe(2);
      expect(bare.stderr).toContain('does not exist');
      const printed = await runCli(['audit', '--policy', policyPath!, '--json'], { cwd: home });
      expect(printed.code).toBe(0);
      const shown = printed.stdout.trim().split('\n').map((line) => JSON.parse(line) as { tool: string; decision: string });
      expect(shown.length).toBeGreaterThanOrEqual(stored.length);
      expect(shown.slice(0, stored.length)).toEqual(stored);
      expect(shown.some((entry) => entry.decision === 'ask')).toBe(true);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  }, 120_000);
});
