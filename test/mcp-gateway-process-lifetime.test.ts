/**
 * The gateway's process lifetime, through the real CLI entry: a client that
 * goes away is not a crash (no unhandled EPIPE), and no server process is
 * left behind — on SIGTERM, while a server is still starting, and when the
 * gateway itself is killed with SIGKILL (its watchdog kills the groups).
 * The servers are scripted to be stubborn: they ignore SIGTERM, keep running
 * when stdin ends, and fork a child that ignores SIGTERM too.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually, makeScratch, MCP_ENTRY, NODE, ROOT } from './mcp-gateway-harness.ts';

const STUBBORN_SERVER = path.join(ROOT, 'test', 'fixtures', 'stubborn-mcp-server.ts');

interface Started {
  child: ChildProcessWithoutNullStreams;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  pidFile: string;
}

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Writes a policy with one stubborn server started with `serverArgs` and starts `toolgate mcp` on it over stdio. */
function startGateway(serverArgs: string[]): Started {
  const { directory } = makeScratch('toolgate-mcp-life-');
  mkdirSync(directory, { recursive: true });
  const pidFile = path.join(directory, 'pids.json');
  const policyPath = path.join(directory, 'toolgate.json');
  writeFileSync(policyPath, JSON.stringify({ mcp: { servers: { stubborn: { command: NODE, args: [STUBBORN_SERVER, '--pid-file', pidFile, ...serverArgs], default: 'allow' } } } }));
  const child = spawn(NODE, [MCP_ENTRY, '--policy', policyPath, '--no-terminal'], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  cleanups.push(() => {
    child.kill('SIGKILL');
    for (const pid of serverPids(pidFile)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Gone, as it should be.
      }
    }
    rmSync(directory, { recursive: true, force: true });
  });
  return { child, stderr: () => stderr, exited, pidFile };
}

function serverPids(pidFile: string): number[] {
  if (!existsSync(pidFile)) return [];
  const pids = JSON.parse(readFileSync(pidFile, 'utf8')) as { leader: number; child?: number };
  return [pids.leader, ...(pids.child === undefined ? [] : [pids.child])];
}

/** The server's leader and forked child, once both are running. */
async function waitForServer(pidFile: string): Promise<number[]> {
  return eventually(async () => {
    const pids = serverPids(pidFile);
    return pids.length === 2 && pids.every(alive) ? pids : undefined;
  }, 20_000);
}

const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'gone', version: '1.0.0' } } };

describe('the gateway process', () => {
  it('does not crash when its client goes away before the answer (EPIPE on stdout), and stops its server', async () => {
    const gateway = startGateway(['--answer', '--ignore-sigterm', '--fork']);
    const pids = await waitForServer(gateway.pidFile);
    await eventually(async () => (gateway.stderr().includes('serving 1 tools') ? true : undefined), 20_000);
    // The client closes its reading end, then asks: the answer meets a closed pipe.
    gateway.child.stdout.destroy();
    gateway.child.stdin.write(`${JSON.stringify(initialize)}\n`);
    const exit = await gateway.exited;
    expect(gateway.stderr()).not.toMatch(/EPIPE|Unhandled|unexpected error/);
    expect(exit).toEqual({ code: 0, signal: null });
    await eventually(async () => (pids.some(alive) ? undefined : true), 10_000);
  }, 40_000);

  it('on SIGTERM, stops a server that ignores SIGTERM, and the child it forked', async () => {
    const gateway = startGateway(['--answer', '--ignore-sigterm', '--fork']);
    const pids = await waitForServer(gateway.pidFile);
    await eventually(async () => (gateway.stderr().includes('serving 1 tools') ? true : undefined), 20_000);
    gateway.child.kill('SIGTERM');
    expect(await gateway.exited).toEqual({ code: 0, signal: null });
    await eventually(async () => (pids.some(alive) ? undefined : true), 10_000);
  }, 40_000);

  it('on SIGTERM while a server is still starting (it never answers initialize), stops at once and leaves nothing behind', async () => {
    const gateway = startGateway(['--ignore-sigterm', '--fork']);
    const pids = await waitForServer(gateway.pidFile);
    const started = Date.now();
    gateway.child.kill('SIGTERM');
    expect(await gateway.exited).toEqual({ code: 0, signal: null });
    // The start timeout is 30 s: stopping did not wait for it.
    expect(Date.now() - started).toBeLessThan(15_000);
    await eventually(async () => (pids.some(alive) ? undefined : true), 10_000);
  }, 40_000);

  it('when its client goes away while a server is still starting, stops at once and leaves nothing behind', async () => {
    const gateway = startGateway(['--ignore-sigterm', '--fork', '--chatter', '100']);
    const pids = await waitForServer(gateway.pidFile);
    const started = Date.now();
    gateway.child.stdin.end();
    expect(await gateway.exited).toEqual({ code: 0, signal: null });
    expect(Date.now() - started).toBeLessThan(15_000);
    await eventually(async () => (pids.some(alive) ? undefined : true), 10_000);
  }, 40_000);

  it.skipIf(process.platform === 'win32')('killed with SIGKILL, leaves no server behind: its watchdog kills the whole group', async () => {
    const gateway = startGateway(['--answer', '--ignore-sigterm', '--fork']);
    const pids = await waitForServer(gateway.pidFile);
    await eventually(async () => (gateway.stderr().includes('serving 1 tools') ? true : undefined), 20_000);
    gateway.child.kill('SIGKILL');
    expect(await gateway.exited).toEqual({ code: null, signal: 'SIGKILL' });
    await eventually(async () => (pids.some(alive) ? undefined : true), 10_000);
  }, 40_000);
});
