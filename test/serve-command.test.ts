/** `toolgate serve` as a user runs it: the real CLI in a child process. */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const NODE = path.join(ROOT, 'node_modules/.bin/node');
const MAIN = path.join(ROOT, 'src/cli/main.ts');
const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

function project(): string {
  const directory = mkdtempSync(path.join(os.tmpdir(), 'toolgate-serve-cli-'));
  directories.push(directory);
  writeFileSync(path.join(directory, 'toolgate.yaml'), 'version: 1\ntools:\n  read_notes: allow\n');
  return directory;
}

/**
 * Only what a server needs to start: no provider key is inherited from the
 * test's environment, and serve records its run in a state home of its own,
 * never the real one.
 */
function environment(): NodeJS.ProcessEnv {
  const stateHome = mkdtempSync(path.join(os.tmpdir(), 'toolgate-serve-cli-state-'));
  directories.push(stateHome);
  return { PATH: process.env.PATH, HOME: process.env.HOME, NODE_DISABLE_COMPILE_CACHE: '1', TOOLGATE_STATE_HOME: stateHome };
}

describe('toolgate serve (CLI)', () => {
  it('refuses a model that cannot be served before it starts: the demo script outside the demo (exit 1, as toolgate run)', () => {
    const cwd = project();
    const result = spawnSync(NODE, [MAIN, 'serve', '--port', '0', '--model', 'script:demo'], { cwd, env: environment(), encoding: 'utf8', timeout: 60_000 });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('the demo script runs only in its own temporary workspace');
    expect(result.stdout).not.toContain('listening on');
  });

  it('takes --base-url, starts, prints the listening line and the login URL, and stops cleanly on SIGTERM', async () => {
    const cwd = project();
    const child = spawn(NODE, [MAIN, 'serve', '--port', '0', '--model', 'openai-compatible:llama3.2', '--base-url', 'http://127.0.0.1:9/v1'], { cwd, env: environment() });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no listening line: ${stdout} ${stderr}`)), 60_000);
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        if (/open the inbox: /.test(stdout)) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    const url = /^listening on (http:\/\/127\.0\.0\.1:\d+)$/m.exec(stdout)?.[1];
    expect(url).toBeDefined();
    expect(stdout).toMatch(new RegExp(`^open the inbox: ${url!.replace(/[.]/g, '\\.')}/login#token=tg_[A-Za-z0-9_-]+$`, 'm'));
    expect(await (await fetch(`${url}/healthz`)).json()).toEqual({ status: 'ok' });
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  }, 90_000);
});
