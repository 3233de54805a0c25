import { spawn } from 'node:child_process';

export interface RunCommandOptions {
  command: string;
  args: readonly string[];
  cwd?: string;
  /** The whole environment of the child (not merged with `process.env`). */
  env?: NodeJS.ProcessEnv;
  /** Written to stdin, which is then closed; without it stdin is empty. */
  input?: string;
  signal?: AbortSignal;
  /** Kills the process group after this long (default 30s). */
  timeoutMs?: number;
  /** Bytes kept per stream (default 1 MiB); the rest is counted, not kept. */
  maxOutputBytes?: number;
}

export interface CommandResult {
  /** null when the process was killed by a signal or never started. */
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  aborted: boolean;
  /** Why the process could not start (`ENOENT`: no such program), if it could not. */
  spawnError?: string;
}

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024;

/**
 * Runs a program asynchronously (never `spawnSync`: a sandboxed command must
 * not block the event loop, and approvals and other calls keep flowing) and
 * collects its output. The child leads its own process group, so a timeout
 * or an abort kills everything it started, not just the first process.
 * Never throws: a program that cannot start is reported in `spawnError`.
 *
 * @example
 * const wrapped = wrapWithBwrap({ profile, command: 'sh', args: ['-c', 'ls'], cwd });
 * const result = await runCommand({ ...wrapped, timeoutMs: 10_000 });
 * if (result.exitCode !== 0) console.error(result.stderr);
 */
export function runCommand(options: RunCommandOptions): Promise<CommandResult> {
  const maxBytes = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  return new Promise((resolve) => {
    const stdout = createCollector(maxBytes);
    const stderr = createCollector(maxBytes);
    let timedOut = false;
    let aborted = false;
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const child = spawn(options.command, [...options.args], {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    });
    const killGroup = (): void => {
      if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // The group is already gone.
      }
    };
    const onAbort = (): void => {
      aborted = true;
      killGroup();
    };
    const finish = (result: Pick<CommandResult, 'exitCode' | 'signal'> & { spawnError?: string }): void => {
      if (settled) return;
      settled = true;
      if (timer !== undefined) clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      resolve({ ...result, stdout: stdout.text(), stderr: stderr.text(), timedOut, aborted });
    };
    child.stdout.on('data', stdout.add);
    child.stderr.on('data', stderr.add);
    // A child that exits without reading its input must not crash us with EPIPE.
    child.stdin.on('error', () => {});
    child.on('error', (error: NodeJS.ErrnoException) => finish({ exitCode: null, signal: null, spawnError: error.code ?? error.message }));
    child.on('close', (exitCode, signal) => finish({ exitCode, signal }));
    child.stdin.end(options.input ?? '');
    timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function createCollector(maxBytes: number): { add: (chunk: Buffer) => void; text: () => string } {
  const chunks: Buffer[] = [];
  let kept = 0;
  let dropped = 0;
  return {
    add: (chunk: Buffer) => {
      const room = maxBytes - kept;
      if (room <= 0) {
        dropped += chunk.length;
        return;
      }
      const part = chunk.length <= room ? chunk : chunk.subarray(0, room);
      chunks.push(part);
      kept += part.length;
      dropped += chunk.length - part.length;
    },
    text: () => Buffer.concat(chunks).toString('utf8') + (dropped > 0 ? `\n[${dropped} more bytes not kept]` : ''),
  };
}
