import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { createJsonLineReader } from './json-line-reader.ts';
import { sharedProcessGroupWatchdog, type ProcessGroupWatchdog } from './process-group-watchdog.ts';

export interface ProcessGroupStdioTransportOptions {
  command: string;
  args: readonly string[];
  /** Added to the SDK's small default environment (HOME, PATH, ...): the gateway's own secrets are not passed on. */
  env?: Readonly<Record<string, string>>;
  cwd?: string;
  /** Each line the server writes to stderr. */
  onStderr?: (line: string) => void;
  /** How long to wait after closing stdin before SIGTERM, and after SIGTERM before SIGKILL (default 1000 ms each). */
  gracePeriodMs?: number;
  /** Kills the group if this process dies without closing the transport (`kill -9`); default: one watchdog process shared by all transports. */
  watchdog?: ProcessGroupWatchdog;
}

/** How the server process ended, for error messages. */
export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/**
 * The SDK's stdio client transport, except that the server leads its own
 * process group and `close` signals the whole group: a server started
 * through `npx` or a shell wrapper leaves no orphans behind, also when the
 * gateway is killed outright (a watchdog process kills the group then). It
 * never throws on a closed pipe: a write to a server that is gone rejects
 * that send, and the close is reported once. It also
 * remembers how the process ended and its last stderr lines, so a crash can
 * be explained to the client.
 *
 * @example
 * const transport = new ProcessGroupStdioTransport({ command: 'node', args: ['server.js'] });
 * await client.connect(transport);
 */
export class ProcessGroupStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  #options: ProcessGroupStdioTransportOptions;
  #child: ChildProcessByStdio<Writable, Readable, Readable> | undefined;
  #reader = createJsonLineReader({
    onMessage: (message) => this.onmessage?.(message),
    // One bad line is reported; the next ones are still read.
    onError: (error) => this.onerror?.(error),
  });
  #exit: ProcessExit | undefined;
  #stderrTail: string[] = [];
  #stderrPartial = '';
  #stderrLineCount = 0;
  #environmentNames: string[] = [];
  #closed = false;

  constructor(options: ProcessGroupStdioTransportOptions) {
    this.#options = options;
  }

  /** How the process ended, once it has. */
  get exit(): ProcessExit | undefined {
    return this.#exit;
  }

  /**
   * How the process ended, waiting up to `ms` for it: a failed write
   * (EPIPE) can come before the exit it announces, which explains it better.
   */
  async waitForExit(ms: number): Promise<ProcessExit | undefined> {
    const child = this.#child;
    if (this.#exit !== undefined || child === undefined || child.exitCode !== null || child.signalCode !== null) return this.#exit;
    await settlesWithin(new Promise<void>((resolve) => child.once('close', () => resolve())), ms);
    return this.#exit;
  }

  /** The last lines the server wrote to stderr (at most 20). */
  get stderrTail(): readonly string[] {
    return this.#stderrTail;
  }

  /** How many lines the server wrote to stderr in all. */
  get stderrLineCount(): number {
    return this.#stderrLineCount;
  }

  /** The names of the environment variables the server was started with (sorted; never their values). */
  get environmentNames(): readonly string[] {
    return this.#environmentNames;
  }

  get pid(): number | undefined {
    return this.#child?.pid;
  }

  start(): Promise<void> {
    if (this.#child !== undefined) throw new Error('ProcessGroupStdioTransport already started');
    return new Promise((resolve, reject) => {
      const env = { ...getDefaultEnvironment(), ...this.#options.env };
      this.#environmentNames = Object.keys(env).sort();
      const child = spawn(this.#options.command, [...this.#options.args], {
        env,
        cwd: this.#options.cwd,
        stdio: ['pipe', 'pipe', 'pipe'],
        detached: true,
        shell: false,
      });
      this.#child = child;
      const watchdog = this.#options.watchdog ?? sharedProcessGroupWatchdog();
      child.on('error', (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.on('spawn', () => {
        if (child.pid !== undefined) watchdog.watch(child.pid);
        resolve();
      });
      child.on('exit', (code, signal) => {
        this.#exit = { code, signal };
        // Whatever the server started may outlive it (and hold its pipes open): the group goes with it.
        this.#signalGroup('SIGKILL');
        if (child.pid !== undefined) watchdog.release(child.pid);
      });
      child.on('close', () => this.#finish());
      // A write to a server that is gone fails that send (below); the pipe's own error is expected then.
      child.stdin.on('error', () => undefined);
      child.stdout.on('data', (chunk: Buffer) => this.#reader.append(chunk));
      child.stdout.on('error', (error) => this.onerror?.(error));
      child.stderr.setEncoding('utf8');
      child.stderr.on('data', (text: string) => this.#stderr(text));
      child.stderr.on('error', () => undefined);
      // A last line without a newline (an error printed just before exiting) is a line too.
      child.stderr.on('end', () => {
        if (this.#stderrPartial !== '') this.#stderr('\n');
      });
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.#child?.stdin;
      if (stdin === undefined || stdin.destroyed || this.#closed) {
        reject(new Error('the server process is not running'));
        return;
      }
      // The callback, unlike 'drain', also fires when the pipe broke (EPIPE): the send fails instead of hanging.
      stdin.write(serializeMessage(message), (error) => (error === undefined || error === null ? resolve() : reject(new Error(`the server process is not running (${error.message})`))));
    });
  }

  /** Closes stdin, then SIGTERM, then SIGKILL to the whole group, each after the grace period. */
  async close(): Promise<void> {
    const child = this.#child;
    if (child === undefined || this.#exit !== undefined) {
      this.#finish();
      return;
    }
    const grace = this.#options.gracePeriodMs ?? 1000;
    const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
    try {
      child.stdin.end();
    } catch {
      // Already closed.
    }
    if (!(await settlesWithin(exited, grace))) {
      this.#signalGroup('SIGTERM');
      if (!(await settlesWithin(exited, grace))) {
        this.#signalGroup('SIGKILL');
        await settlesWithin(exited, grace);
      }
    }
    this.#finish();
  }

  #signalGroup(signal: NodeJS.Signals): void {
    const pid = this.#child?.pid;
    if (pid === undefined) return;
    try {
      process.kill(-pid, signal);
    } catch {
      // The group is already gone.
    }
  }

  #finish(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#reader.clear();
    this.onclose?.();
  }

  #stderr(text: string): void {
    const lines = (this.#stderrPartial + text).split('\n');
    this.#stderrPartial = lines.pop() ?? '';
    if (this.#stderrPartial.length > 4096) {
      lines.push(this.#stderrPartial);
      this.#stderrPartial = '';
    }
    for (const line of lines) {
      const trimmed = line.replace(/\r$/, '');
      this.#stderrLineCount += 1;
      this.#stderrTail.push(trimmed);
      if (this.#stderrTail.length > 20) this.#stderrTail.shift();
      this.#options.onStderr?.(trimmed);
    }
  }
}

async function settlesWithin(promise: Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([promise.then(() => true), new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}
