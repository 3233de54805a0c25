import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runShellCommand } from './run-shell-command.ts';

let directory: string;
beforeAll(() => {
  directory = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-run-')));
});
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const run = (command: string, options: { timeoutMs?: number; maxOutputBytes?: number; signal?: AbortSignal; environment?: NodeJS.ProcessEnv } = {}) =>
  runShellCommand({ command, cwd: directory, timeoutMs: options.timeoutMs ?? 10_000, maxOutputBytes: options.maxOutputBytes ?? 100 * 1024, signal: options.signal, environment: options.environment });

/** Whether a process still runs: gone, or a zombie waiting for a reaper, both count as dead. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const state = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0];
    return state !== 'Z' && state !== 'X';
  } catch {
    return true;
  }
}

async function eventuallyDead(pid: number): Promise<boolean> {
  // Up to 10 s: a killed process is reaped at once, but a loaded machine may take a while to schedule it.
  for (let attempt = 0; attempt < 200; attempt++) {
    if (!alive(pid)) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}

describe('runShellCommand', () => {
  it('runs in the given directory and captures both streams', async () => {
    const result = await run('pwd; echo oops >&2');
    expect(result).toEqual({ exit_code: 0, stdout: `${directory}\n`, stderr: 'oops\n', truncated: false, timed_out: false });
  });

  it('returns exit codes, and 128 + the signal for a signal', async () => {
    expect((await run('exit 3')).exit_code).toBe(3);
    expect((await run('false')).exit_code).toBe(1);
    expect((await run('kill -9 $$')).exit_code).toBe(137);
  });

  it('caps each stream and marks the result truncated', async () => {
    const result = await run("head -c 300000 /dev/zero | tr '\\0' a; echo done >&2", { maxOutputBytes: 1000 });
    expect(result.stdout).toBe('a'.repeat(1000));
    expect(result.stderr).toBe('done\n');
    expect(result.truncated).toBe(true);
    expect(result.exit_code).toBe(0);
  });

  it('kills the whole process group on timeout, grandchildren included', async () => {
    const started = Date.now();
    const result = await run('sleep 100 & echo $!; wait', { timeoutMs: 500 });
    expect(result.timed_out).toBe(true);
    expect(result.exit_code).toBe(137);
    // Far below the 100 s the job would hold the pipes for.
    expect(Date.now() - started).toBeLessThan(20_000);
    const grandchild = Number(result.stdout.trim());
    expect(grandchild).toBeGreaterThan(0);
    expect(await eventuallyDead(grandchild)).toBe(true);
  });

  it('kills the whole process group on abort, and rejects with the reason', async () => {
    const controller = new AbortController();
    const pidFile = path.join(directory, 'pid');
    const running = run(`sleep 100 & echo $! > ${pidFile}.tmp && mv ${pidFile}.tmp ${pidFile}; wait`, { signal: controller.signal });
    // Aborts once the job has started (its pid is written), however long that takes on a loaded machine.
    while (!existsSync(pidFile)) await new Promise((resolve) => setTimeout(resolve, 20));
    controller.abort(new Error('stop'));
    await expect(running).rejects.toThrow('stop');
    const grandchild = Number(readFileSync(pidFile, 'utf8').trim());
    expect(await eventuallyDead(grandchild)).toBe(true);
  });

  it('does not start when already aborted', async () => {
    const controller = new AbortController();
    controller.abort(new Error('early'));
    await expect(run('echo hi', { signal: controller.signal })).rejects.toThrow('early');
  });

  it('ends background jobs left behind when the shell exits, without waiting for them', async () => {
    const started = Date.now();
    const result = await run('sleep 100 & echo $!');
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(result.timed_out).toBe(false);
    expect(await eventuallyDead(Number(result.stdout.trim()))).toBe(true);
  });

  it('drops environment variables that make bash run other code, and every variable not on the allow-list', async () => {
    const hook = path.join(directory, 'hook.sh');
    await runShellCommand({ command: `echo 'echo HOOKED' > ${hook}`, cwd: directory, timeoutMs: 5000, maxOutputBytes: 1000 });
    const environment = { ...process.env, BASH_ENV: hook, ENV: hook, FOO: 'dropped', LC_ALL: 'C', 'BASH_FUNC_echo%%': '() { builtin echo HOOKED; }', TERM: '() { builtin echo HOOKED; }' };
    const result = await run('echo "[$FOO]"; echo "$LC_ALL"; echo ok', { environment });
    expect(result.stdout).toBe('[]\nC\nok\n');
  });

  it('lets a sandbox wrap the invocation', async () => {
    const seen: unknown[] = [];
    const result = await runShellCommand({
      command: 'echo inner',
      cwd: directory,
      timeoutMs: 5000,
      maxOutputBytes: 1000,
      wrapCommand: (invocation) => {
        seen.push(invocation);
        return { command: 'bash', args: ['-c', 'echo wrapped; "$@"', 'wrapper', invocation.command, ...invocation.args] };
      },
    });
    expect(seen).toEqual([{ command: 'bash', args: ['--noprofile', '--norc', '-O', 'extglob', '-c', 'echo inner'], cwd: directory }]);
    expect(result.stdout).toBe('wrapped\ninner\n');
  });

  it('rejects when the program cannot start', async () => {
    await expect(runShellCommand({ command: 'x', cwd: directory, timeoutMs: 1000, maxOutputBytes: 10, wrapCommand: () => ({ command: '/nonexistent/program', args: [] }) })).rejects.toThrow(/ENOENT/);
  });
});
