/**
 * `toolgate serve` as a real child process, for the crash test and the
 * server benchmarks: a fresh project directory (a policy from
 * test/fixtures/server and an empty ws/), the server started through the
 * CLI on a SQLite file, the listening URL read from its first stdout line,
 * requests with the admin token, the SSE stream read to a condition, and
 * `kill -9`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** Node 24, as the project pins it (the system node may be older). */
export const NODE = path.join(ROOT, 'node_modules/.bin/node');
export const SERVER_FIXTURES = path.join(ROOT, 'test/fixtures/server');
export const ADMIN_TOKEN = 'crash-test-admin-token-0123456789';

export interface ServerProject {
  directory: string;
  policyFile: string;
  workspace: string;
  storeFile: string;
}

/**
 * A fresh project: `policy` (a file in test/fixtures/server) as toolgate.yaml, an empty ws/, and where the store goes.
 *
 * @example
 * const project = createServerProject({ policy: 'crash-policy.yaml' });
 */
export function createServerProject(options: { policy: string; parent?: string }): ServerProject {
  const directory = mkdtempSync(path.join(options.parent ?? os.tmpdir(), 'toolgate-serve-'));
  const policyFile = path.join(directory, 'toolgate.yaml');
  copyFileSync(path.join(SERVER_FIXTURES, options.policy), policyFile);
  const workspace = path.join(directory, 'ws');
  mkdirSync(workspace);
  return { directory, policyFile, workspace, storeFile: path.join(directory, 'store.db') };
}

export interface ServerProcess {
  url: string;
  pid: number;
  child: ChildProcess;
  /** Everything the server wrote to stderr so far. */
  stderr(): string;
  /** `kill -9`, and waits until the process is gone. */
  kill9(): Promise<void>;
  /** SIGTERM (a clean stop), and waits until the process is gone. */
  stop(): Promise<void>;
}

/**
 * Starts `toolgate serve --port 0` on the project's store with the scripted
 * model `script` (a file in test/fixtures/server); resolves once it printed
 * `listening on http://...`. Rejects with its stderr when it exits first or
 * does not listen within `timeoutMs`.
 *
 * @example
 * const server = await startServerProcess({ project, script: 'append-once.yaml' });
 */
export async function startServerProcess(options: { project: ServerProject; script?: string; /** null: no --model (a server for hooks only, when no key is set either) */ model?: string | null; args?: string[]; timeoutMs?: number; env?: NodeJS.ProcessEnv }): Promise<ServerProcess> {
  const { project } = options;
  const child = spawn(
    NODE,
    [path.join(ROOT, 'src/cli/main.ts'), 'serve', '--policy', project.policyFile, '--port', '0', '--store', project.storeFile, ...(options.model === null ? [] : ['--model', options.model ?? `script:${path.join(SERVER_FIXTURES, options.script ?? 'append-once.yaml')}`]), ...(options.args ?? [])],
    { cwd: project.directory, env: { ...process.env, TOOLGATE_ADMIN_TOKEN: ADMIN_TOKEN, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => fail(`did not print its listening line within ${options.timeoutMs ?? 30_000} ms`), options.timeoutMs ?? 30_000);
    function fail(why: string) {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`toolgate serve ${why}; stdout: ${stdout}\nstderr: ${stderr}`));
    }
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const first = stdout.split('\n');
      if (first.length < 2) return;
      const match = /^listening on (http:\/\/127\.0\.0\.1:\d+)$/.exec(first[0]!);
      clearTimeout(timer);
      if (match === null) fail(`printed ${JSON.stringify(first[0])} first, not "listening on http://127.0.0.1:PORT"`);
      else resolve(match[1]!);
    });
    child.once('exit', (code, signal) => fail(`exited (${code ?? signal}) before listening`));
  });
  const gone = async (signal: NodeJS.Signals) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill(signal);
    await exited;
  };
  return { url, pid: child.pid!, child, stderr: () => stderr, kill9: () => gone('SIGKILL'), stop: () => gone('SIGTERM') };
}

/** The lines of `calls.log` in the project's workspace, trimmed, where the crash tests' scripted calls append one line each (none when it does not exist yet). */
export function callsLogLines(project: ServerProject): string[] {
  const file = path.join(project.workspace, 'calls.log');
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').map((line) => line.trim()).filter((line) => line !== '') : [];
}

/** A JSON API response. */
export interface ApiResponse<T = any> {
  status: number;
  body: T;
}

/**
 * A request to the server with the admin token; the body is JSON.
 *
 * @example
 * const created = await api(server.url, 'POST', '/runs', { input: 'go' });
 */
export async function api<T = any>(url: string, method: 'GET' | 'POST' | 'DELETE', route: string, body?: unknown): Promise<ApiResponse<T>> {
  const response = await fetch(`${url}${route}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`${method} ${route} answered ${response.status} with a body that is not JSON: ${text.slice(0, 200)}`);
  }
  return { status: response.status, body: parsed as T };
}

/**
 * Every run with `status` (one page of up to 10,000).
 *
 * @example
 * const paused = await runsWithStatus(server.url, 'paused_checkpoint');
 */
export async function runsWithStatus(url: string, status: string): Promise<Array<{ run_id: string; status: string; text: string | null }>> {
  const response = await api(url, 'GET', `/runs?status=${status}&limit=10000`);
  if (response.status !== 200) throw new Error(`GET /runs?status=${status} answered ${response.status}: ${JSON.stringify(response.body)}`);
  return response.body.runs;
}

/**
 * Polls `check` until it returns a value other than undefined; throws with `describe()` after `timeoutMs`.
 *
 * @example
 * await waitFor(async () => ((await runsWithStatus(url, 'paused_checkpoint')).length === 1000 ? true : undefined), { timeoutMs: 60_000, describe: () => 'paused runs' });
 */
export async function waitFor<T>(check: () => Promise<T | undefined>, options: { timeoutMs: number; intervalMs?: number; describe: () => string | Promise<string> }): Promise<T> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${options.timeoutMs} ms waiting for ${await options.describe()}`);
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 100));
  }
}

/**
 * Runs `work` on every item, at most `limit` at a time; results in input order.
 *
 * @example
 * await inParallel(runIds, 32, (runId) => api(url, 'POST', `/runs/${runId}/approve`, { approved: true }));
 */
export async function inParallel<T, R>(items: readonly T[], limit: number, work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

export interface StreamedEvent {
  id: number;
  type: string;
  data: Record<string, any>;
}

/**
 * Reads `GET /events` after `lastEventId` (default 0: from the store's first
 * event) until `done(events)` holds; throws after `timeoutMs` with how many were read.
 *
 * @example
 * const events = await readEventStream(url, (all) => all.filter((event) => event.type === 'run_completed').length === 1000, 60_000);
 */
export async function readEventStream(url: string, done: (events: StreamedEvent[]) => boolean, timeoutMs: number, lastEventId = 0): Promise<StreamedEvent[]> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  const events: StreamedEvent[] = [];
  try {
    const response = await fetch(`${url}/events`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'last-event-id': String(lastEventId), accept: 'text/event-stream' }, signal: controller.signal });
    if (response.status !== 200) throw new Error(`GET /events answered ${response.status}: ${await response.text()}`);
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) !== -1) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        // SSE ends lines at CR and LF only: JSON may hold U+2028, which a multiline regex would end a line at.
        const lines = block.split(/\r\n|\r|\n/);
        const id = lines.find((line) => /^id: \d+$/.test(line));
        const data = lines.find((line) => line.startsWith('data: '));
        if (id === undefined || data === undefined) continue;
        const parsed = JSON.parse(data.slice('data: '.length)) as { type: string; data: Record<string, unknown> };
        events.push({ id: Number(id.slice('id: '.length)), type: parsed.type, data: parsed.data });
      }
      if (done(events)) return events;
    }
    throw new Error(`GET /events ended after ${events.length} events before the condition held`);
  } catch (error) {
    if (controller.signal.aborted) throw new Error(`GET /events: the condition did not hold within ${timeoutMs} ms (${events.length} events read)`);
    throw error;
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
}

/**
 * The resident set of a process in megabytes (Linux: /proc/PID/status
 * VmRSS, or VmHWM for its peak so far).
 *
 * @example
 * const megabytes = residentMegabytes(server.pid);
 */
export function residentMegabytes(pid: number, field: 'VmRSS' | 'VmHWM' = 'VmRSS'): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (match === null) throw new Error(`no ${field} in /proc/${pid}/status`);
  return Number(match[1]) / 1024;
}

/**
 * One `toolgate hook claude-code --approver server` process, as Claude Code
 * starts it for a Bash call, waiting on `server` with the admin token:
 * resolves with the decision it printed, or `exit N: stderr` where it
 * printed none (Claude Code reads exit 2 as a denial). `started` gets the
 * process, for a test to kill one it leaves waiting.
 *
 * @example
 * expect(await claudeHookProcess({ server: server.url, cwd: project.workspace, command: 'ls', session: 's1' })).toBe('allow');
 */
export async function claudeHookProcess(options: { server: string; cwd: string; command: string; session: string; timeoutSeconds?: number; started?: (child: ChildProcess) => void }): Promise<string> {
  const input = { session_id: options.session, transcript_path: null, cwd: options.cwd, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: options.command, description: 'run it' }, tool_use_id: `toolu_${Math.random().toString(36).slice(2)}` };
  const child = spawn(NODE, [path.join(ROOT, 'src/cli/main.ts'), 'hook', 'claude-code', '--approver', 'server', '--server', options.server, '--timeout', String(options.timeoutSeconds ?? 60)], {
    env: { ...process.env, TOOLGATE_TOKEN: ADMIN_TOKEN, SHELL: '/bin/bash' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  options.started?.(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  child.stdin!.end(JSON.stringify(input));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (stdout === '') return `exit ${String(code)}: ${stderr}`;
  return (JSON.parse(stdout) as { hookSpecificOutput: { permissionDecision: string } }).hookSpecificOutput.permissionDecision;
}
