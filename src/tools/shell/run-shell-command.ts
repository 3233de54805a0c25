/**
 * Runs one approved command line with bash in its own process group, with
 * a deadline, an output cap and cancellation; on timeout or abort, and once
 * the shell itself has exited, the whole group is killed, so no background
 * job (`sleep 100 &`) outlives the call.
 */
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { shellEnvironment } from './shell-environment.ts';

export interface ShellCommandResult {
  exit_code: number;
  stdout: string;
  stderr: string;
  /** True when either stream went past the cap and was cut. */
  truncated: boolean;
  timed_out: boolean;
}

/** What a sandbox wrapper receives: the program and arguments that would run, and where. */
export interface WrapCommandOptions {
  command: string;
  args: readonly string[];
  cwd: string;
}

/** Turns the shell invocation into a sandboxed one (the OS sandbox plugs in here). */
export type WrapCommand = (options: WrapCommandOptions) => { command: string; args: string[] };

export const DEFAULT_SHELL_TIMEOUT_MS = 60_000;
export const DEFAULT_MAX_OUTPUT_BYTES = 100 * 1024;

/** How long to wait for the output pipes to close after the group was killed. */
const DRAIN_GRACE_MS = 1000;

/**
 * Runs `command` with `bash -c` in `cwd`, with the environment cleared to
 * `shellEnvironment` (of `environment`, default `process.env`). Resolves with the exit code (128
 * plus the signal number when a signal ended it) and the captured output;
 * rejects with the signal's reason when `signal` aborts (after killing the
 * process group).
 *
 * @example
 * const result = await runShellCommand({ command: 'ls -la', cwd: '/p/ws', timeoutMs: 60_000, maxOutputBytes: 100 * 1024 });
 */
export async function runShellCommand(options: {
  command: string;
  cwd: string;
  timeoutMs: number;
  maxOutputBytes: number;
  signal?: AbortSignal;
  wrapCommand?: WrapCommand;
  environment?: NodeJS.ProcessEnv;
  /** PATH entries inside these directories are dropped (the agent could plant programs there). */
  zoneRoots?: readonly string[];
}): Promise<ShellCommandResult> {
  const { signal } = options;
  signal?.throwIfAborted();
  // extglob on, as the analysis's parser assumes: both read `@(...)` and `!(...)` as patterns.
  const invocation = { command: 'bash', args: ['--noprofile', '--norc', '-O', 'extglob', '-c', options.command], cwd: options.cwd };
  const wrapped = options.wrapCommand === undefined ? invocation : options.wrapCommand(invocation);
  const child = spawn(wrapped.command, wrapped.args, {
    cwd: options.cwd,
    // Cleared to an allow-list with or without a sandbox: secrets in the parent's environment never reach the command.
    env: shellEnvironment(options.environment ?? process.env, { zoneRoots: options.zoneRoots ?? [] }),
    // Its own process group, so that the group can be killed as one.
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stdout = new CappedBuffer(options.maxOutputBytes);
  const stderr = new CappedBuffer(options.maxOutputBytes);
  child.stdout.on('data', (chunk: Buffer) => stdout.add(chunk));
  child.stderr.on('data', (chunk: Buffer) => stderr.add(chunk));

  const killGroup = () => {
    if (child.pid === undefined) return;
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  };
  let timedOut = false;
  let aborted = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let drainTimer: ReturnType<typeof setTimeout> | undefined;
  const onAbort = () => {
    aborted = true;
    killGroup();
  };
  try {
    const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
      let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
      child.once('error', reject);
      child.once('exit', (code, exitSignal) => {
        exited = { code, signal: exitSignal };
        // Background jobs still in the group would hold the pipes open: they end with the call.
        killGroup();
        drainTimer = setTimeout(() => {
          child.stdout.destroy();
          child.stderr.destroy();
          resolve(exited!);
        }, DRAIN_GRACE_MS);
      });
      child.once('close', () => {
        if (exited !== undefined) resolve(exited);
      });
      timer = setTimeout(() => {
        timedOut = true;
        killGroup();
      }, options.timeoutMs);
      if (signal?.aborted === true) onAbort();
      else signal?.addEventListener('abort', onAbort, { once: true });
    });
    if (aborted) throw signal?.reason ?? new Error('aborted');
    return {
      exit_code: exit.code ?? 128 + (exit.signal === null ? 0 : constants.signals[exit.signal] ?? 0),
      stdout: stdout.text(),
      stderr: stderr.text(),
      truncated: stdout.truncated || stderr.truncated,
      timed_out: timedOut,
    };
  } finally {
    if (timer !== undefined) clearTimeout(timer);
    if (drainTimer !== undefined) clearTimeout(drainTimer);
    signal?.removeEventListener('abort', onAbort);
    killGroup();
  }
}

/** Keeps the first `limit` bytes of a stream and drops (but counts) the rest, so the child never blocks on a full pipe. */
class CappedBuffer {
  readonly limit: number;
  readonly chunks: Buffer[] = [];
  size = 0;
  truncated = false;

  constructor(limit: number) {
    this.limit = limit;
  }

  add(chunk: Buffer): void {
    const room = this.limit - this.size;
    if (room <= 0) {
      if (chunk.length > 0) this.truncated = true;
      return;
    }
    if (chunk.length > room) {
      this.chunks.push(chunk.subarray(0, room));
      this.size += room;
      this.truncated = true;
      return;
    }
    this.chunks.push(chunk);
    this.size += chunk.length;
  }

  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}
