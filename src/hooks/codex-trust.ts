/**
 * Whether Codex runs a hook: Codex skips a hook it has not trusted without a
 * word, and its trust is a hash of the hook as it was reviewed, so a hook
 * changed since (another --timeout, another policy path) is skipped too. The
 * hash is Codex's own; rather than recompute it, this asks Codex, through its
 * app-server's `hooks/list` (JSON-RPC over stdio), what it would do with each
 * hook of a hooks.json.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';

/** What Codex says of one hook: `trusted` and enabled is the only state in which it runs. */
export interface CodexHookTrust {
  key: string;
  command: string;
  /** `trusted`, `untrusted` (never reviewed), `modified` (reviewed, changed since), or what a later Codex says. */
  trustStatus: string;
  enabled: boolean;
  /** Codex's hash of the hook as it is now (what its hook review records as trusted_hash). */
  currentHash: string | undefined;
}

/** Longer than Codex's app-server takes to answer here (~0.3 s), short enough for doctor. */
const ASK_TIMEOUT_MS = 15_000;

/**
 * Asks `codex` (the program, found by the caller) about the PreToolUse hooks
 * of `file` ($CODEX_HOME/hooks.json), as Codex started in `cwd` sees them.
 * Throws, saying why, when Codex could not be asked.
 *
 * @example
 * const hooks = await askCodexTrust({ codex: '/usr/local/bin/codex', file: '/home/me/.codex/hooks.json', cwd: process.cwd(), env: process.env });
 */
export function askCodexTrust(options: { codex: string; file: string; cwd: string; env: Readonly<Record<string, string | undefined>> }): Promise<CodexHookTrust[]> {
  const requests = [
    { jsonrpc: '2.0', id: 1, method: 'initialize', params: { clientInfo: { name: 'toolgate-doctor', version: '1' }, capabilities: { experimentalApi: true } } },
    { jsonrpc: '2.0', method: 'initialized' },
    { jsonrpc: '2.0', id: 2, method: 'hooks/list', params: { cwds: [options.cwd] } },
  ];
  return new Promise((resolve, reject) => {
    // In a process group of its own: npm's codex is a Node wrapper around the native program, and killing the wrapper
    // alone left the app-server running, holding this process's pipes open (doctor then waited minutes to exit).
    const child = spawn(options.codex, ['app-server'], {
      cwd: options.cwd,
      env: { ...options.env, CODEX_HOME: path.dirname(options.file) },
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    });
    let stdout = '';
    let stderr = '';
    let settled = false;
    const finish = (outcome: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      killGroup(child.pid);
      child.stdin.destroy();
      child.stdout.destroy();
      child.stderr.destroy();
      // Answered once the app-server is gone, not merely told to go: doctor leaves nothing running behind it.
      void groupGone(child.pid).then(outcome);
    };
    const timer = setTimeout(() => finish(() => reject(new Error(`codex app-server did not answer hooks/list within ${ASK_TIMEOUT_MS / 1000} s`))), ASK_TIMEOUT_MS);
    child.once('error', (error) => finish(() => reject(new Error(`codex app-server could not start: ${error.message}`))));
    child.once('exit', (code) => finish(() => reject(new Error(`codex app-server exited ${code} before answering${stderr.trim() === '' ? '' : `: ${stderr.trim().split('\n').at(-1)}`}`))));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-4000)));
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      for (let newline = stdout.indexOf('\n'); newline !== -1; newline = stdout.indexOf('\n')) {
        const line = stdout.slice(0, newline);
        stdout = stdout.slice(newline + 1);
        let message: { id?: unknown; result?: unknown; error?: { message?: unknown } };
        try {
          message = JSON.parse(line);
        } catch {
          continue;
        }
        if (message.id !== 2) continue;
        if (message.error !== undefined) return finish(() => reject(new Error(`codex app-server refused hooks/list: ${String(message.error?.message)}`)));
        return finish(() => resolve(hooksOf(message.result, options.file)));
      }
    });
    child.stdin.on('error', () => {});
    // Written, not ended: the app-server stops at the end of its input, before it answers.
    child.stdin.write(requests.map((request) => JSON.stringify(request)).join('\n') + '\n');
  });
}

/** The app-server and whatever it started; gone already is fine. */
function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

/** Resolves once no process of the group is left (a SIGKILL takes a moment to finish), or after 2 s: waiting longer would only hold up doctor. */
async function groupGone(pid: number | undefined): Promise<void> {
  if (pid === undefined) return;
  const deadline = Date.now() + 2_000;
  while (Date.now() < deadline) {
    try {
      process.kill(-pid, 0);
    } catch {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The PreToolUse hooks of `file` in a hooks/list result (`{ data: [{ cwd, hooks: [...] }] }`). */
function hooksOf(result: unknown, file: string): CodexHookTrust[] {
  const entries = (result as { data?: Array<{ hooks?: unknown[] }> } | undefined)?.data ?? [];
  const hooks: CodexHookTrust[] = [];
  for (const entry of entries) {
    for (const hook of entry.hooks ?? []) {
      const { key, command, trustStatus, enabled, eventName, sourcePath, currentHash } = hook as Record<string, unknown>;
      if (sourcePath !== file || eventName !== 'preToolUse' || typeof key !== 'string' || typeof command !== 'string') continue;
      hooks.push({ key, command, trustStatus: typeof trustStatus === 'string' ? trustStatus : 'unknown', enabled: enabled !== false, currentHash: typeof currentHash === 'string' ? currentHash : undefined });
    }
  }
  return hooks;
}
