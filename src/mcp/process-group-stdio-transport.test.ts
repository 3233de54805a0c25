import { describe, expect, it } from 'vitest';
import { ProcessGroupStdioTransport } from './process-group-stdio-transport.ts';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function until(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('ProcessGroupStdioTransport', () => {
  it('rejects a send to a server that closed its stdin (EPIPE), instead of crashing or hanging', async () => {
    // The server closes its end of the pipe and stays alive: the gateway's writes meet a closed pipe.
    const transport = new ProcessGroupStdioTransport({ command: process.execPath, args: ['-e', 'require("fs").closeSync(0); setTimeout(() => {}, 10000)'], gracePeriodMs: 100 });
    const errors: Error[] = [];
    transport.onerror = (error) => void errors.push(error);
    await transport.start();
    try {
      let failure: unknown;
      // The first writes may still fit in the pipe before the kernel says EPIPE: keep sending until one fails.
      for (let attempt = 0; attempt < 50 && failure === undefined; attempt++) {
        await transport.send({ jsonrpc: '2.0', method: 'notifications/ping' }).catch((error: unknown) => (failure = error));
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(String(failure)).toContain('the server process is not running');
    } finally {
      await transport.close();
    }
  });

  it('kills the whole group on close: a server that ignores SIGTERM and the child it started', async () => {
    const script = `
      process.on('SIGTERM', () => {});
      const child = require('child_process').spawn(process.execPath, ['-e', "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)"], { stdio: 'ignore' });
      process.stderr.write('child ' + child.pid + '\\n');
      setInterval(() => {}, 1000);`;
    const transport = new ProcessGroupStdioTransport({ command: process.execPath, args: ['-e', script], gracePeriodMs: 100 });
    await transport.start();
    await until(() => transport.stderrTail.some((line) => line.startsWith('child ')));
    const child = Number(transport.stderrTail.find((line) => line.startsWith('child '))!.slice(6));
    const leader = transport.pid!;
    await transport.close();
    await until(() => !alive(leader) && !alive(child));
    expect(transport.exit).toEqual({ code: null, signal: 'SIGKILL' });
  });
});
