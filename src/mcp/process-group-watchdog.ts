import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Writable } from 'node:stream';

/**
 * Kills the process groups it was told about once the process that started
 * it is gone, however it went: a gateway killed with `kill -9` runs no
 * cleanup of its own, and a server that does not stop when its stdin closes
 * (`npx -y` retrying a registry, a wrapper script) would outlive it.
 */
export interface ProcessGroupWatchdog {
  /** A new group to kill if this process dies first. */
  watch(groupId: number): void;
  /** The group is gone (this process killed it): forget it, so its id may be reused safely. */
  release(groupId: number): void;
}

/**
 * The watchdog itself, a second Node process in a session of its own (so a
 * signal to the gateway's group or terminal does not reach it). It reads
 * `+<group>` and `-<group>` lines on stdin; when stdin ends (the gateway
 * closed it, or died and the kernel closed it) it sends SIGTERM to every
 * group it still holds, then SIGKILL after the grace period, and exits.
 */
const WATCHDOG_SCRIPT = `
const groups = new Set();
const grace = Number(process.argv[1]) || 1000;
let pending = '';
let reaping = false;
const signal = (name) => { for (const id of groups) { try { process.kill(-id, name); } catch {} } };
const reap = () => {
  if (reaping) return;
  reaping = true;
  if (groups.size === 0) process.exit(0);
  signal('SIGTERM');
  setTimeout(() => { signal('SIGKILL'); process.exit(0); }, grace);
};
process.stdin.setEncoding('utf8');
process.stdin.on('data', (text) => {
  const lines = (pending + text).split('\\n');
  pending = lines.pop();
  for (const line of lines) {
    const id = Number(line.slice(1));
    if (!Number.isInteger(id) || id <= 1) continue;
    if (line[0] === '+') groups.add(id);
    else if (line[0] === '-') groups.delete(id);
  }
});
process.stdin.on('end', reap);
process.stdin.on('error', reap);
`;

/**
 * Starts a watchdog process (lazily, at the first `watch`) that kills the
 * watched process groups when this process dies. The pipe to it is unref'd:
 * it never keeps a finished process alive. Where there are no process groups
 * (Windows) it does nothing.
 *
 * @example
 * const watchdog = createProcessGroupWatchdog();
 * watchdog.watch(child.pid);
 * // ... after killing the group:
 * watchdog.release(child.pid);
 */
export function createProcessGroupWatchdog(options: { gracePeriodMs?: number } = {}): ProcessGroupWatchdog {
  if (process.platform === 'win32') return { watch: () => undefined, release: () => undefined };
  let child: ChildProcessByStdio<Writable, null, null> | undefined;
  let broken = false;
  const send = (line: string) => {
    if (broken) return;
    if (child === undefined) {
      child = spawn(process.execPath, ['-e', WATCHDOG_SCRIPT, String(options.gracePeriodMs ?? 1000)], { detached: true, stdio: ['pipe', 'ignore', 'ignore'], env: {} });
      child.on('error', () => (broken = true));
      child.stdin.on('error', () => (broken = true));
      child.unref();
      // The pipe is a socket: unref'd, it does not hold the event loop either.
      (child.stdin as Writable & { unref?: () => void }).unref?.();
    }
    child.stdin.write(`${line}\n`);
  };
  return {
    watch: (groupId) => send(`+${groupId}`),
    release: (groupId) => send(`-${groupId}`),
  };
}

let shared: ProcessGroupWatchdog | undefined;

/** The process's one watchdog, shared by every stdio transport that does not bring its own. */
export function sharedProcessGroupWatchdog(): ProcessGroupWatchdog {
  shared ??= createProcessGroupWatchdog();
  return shared;
}
