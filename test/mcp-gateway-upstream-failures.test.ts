/**
 * Upstream failures never hang the client: a crash mid-call and a call that
 * never answers come back as isError results naming the server, and a
 * crashed server is restarted (with backoff) and works again.
 */
import { afterEach, describe, expect, it } from 'vitest';
import path from 'node:path';
import { everythingServer, eventually, filesystemServer, fixtureServer, NODE, resultText, ROOT, startGatewayHarness, type GatewayHarness } from './mcp-gateway-harness.ts';

let harness: GatewayHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const policy = () => ({ mcp: { servers: { fixture: { ...fixtureServer(), default: 'allow' } } } });

describe('upstream failures', () => {
  it('turns a crash mid-call into an isError result, restarts the server and re-lists its tools', async () => {
    harness = await startGatewayHarness({ policy });
    const { client } = harness;
    const firstPid = resultText(await client.callTool({ name: 'pid', arguments: {} }));
    const crashed = await client.callTool({ name: 'crash', arguments: { code: 7 } });
    expect(crashed.isError).toBe(true);
    expect(resultText(crashed)).toContain('MCP server "fixture" stopped during the call to crash');
    expect(resultText(crashed)).toContain('exited with code 7');
    expect(resultText(crashed)).toContain('crashing on purpose');
    const secondPid = await eventually(async () => {
      const result = await client.callTool({ name: 'pid', arguments: {} });
      return result.isError ? undefined : resultText(result);
    });
    expect(secondPid).not.toBe(firstPid);
    expect(harness.logs.some((line) => line.includes('server "fixture" stopped (exited with code 7'))).toBe(true);
    expect(harness.gateway.upstreams()).toEqual([{ name: 'fixture', state: 'ready', tools: 6 }]);
  });

  it('answers calls made while the server is down at once, saying it is restarting', async () => {
    // The restart is far off, so "at once" is told apart from "after the restart" however loaded the machine.
    harness = await startGatewayHarness({ policy, gateway: { restart: { initialDelayMs: 30_000 } } });
    const { client } = harness;
    await client.callTool({ name: 'crash', arguments: {} });
    const started = Date.now();
    const result = await client.callTool({ name: 'pid', arguments: {} });
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(result.isError).toBe(true);
    expect(resultText(result)).toMatch(/MCP server "fixture" is not running \(it stopped: exited with code 3.*\); the next start is in \d+ s/);
  });

  it('cancels a call that takes longer than the call timeout and says which server did not answer', async () => {
    harness = await startGatewayHarness({ policy, gateway: { callTimeoutMs: 400 } });
    const { client } = harness;
    const started = Date.now();
    const result = await client.callTool({ name: 'hang', arguments: {} });
    // hang never answers: without the call timeout this would wait for the test's own.
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(result.isError).toBe(true);
    expect(resultText(result)).toBe('toolgate: MCP server "fixture" did not answer the call to hang within 0.4 s; the request was cancelled on the server');
    // The server still answers pings, so it is not restarted.
    expect(resultText(await client.callTool({ name: 'echo', arguments: { text: 'still here' } }))).toBe('still here');
  });

  it('passes a cancellation from the client on to the server, and keeps serving', async () => {
    harness = await startGatewayHarness({ policy });
    const { client } = harness;
    const controller = new AbortController();
    const call = client.callTool({ name: 'hang', arguments: {} }, undefined, { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('the user gave up')), 200);
    await expect(call).rejects.toThrow('the user gave up');
    expect(resultText(await client.callTool({ name: 'echo', arguments: { text: 'next' } }))).toBe('next');
    expect(harness.gateway.stats()).toMatchObject({ failed: 0 });
  });

  it('keeps retrying a server that cannot start, with backoff, and lists its tools once it can', async () => {
    const { writeFileSync, rmSync } = await import('node:fs');
    let wrapper = '';
    harness = await startGatewayHarness({
      setup: ({ directory }) => {
        wrapper = path.join(directory, 'start-fixture.sh');
        // Fails while the marker file exists.
        writeFileSync(wrapper, `#!/bin/sh\nif [ -e "${directory}/broken" ]; then echo "not today" >&2; exit 1; fi\nexec ${fixtureServer().command} ${fixtureServer().args.join(' ')}\n`, { mode: 0o755 });
        writeFileSync(path.join(directory, 'broken'), '');
      },
      policy: () => ({ mcp: { servers: { fixture: { command: wrapper, default: 'allow' } } } }),
    });
    expect(harness.gateway.upstreams()[0]!.state).not.toBe('ready');
    expect((await harness.client.listTools()).tools).toEqual([]);
    expect(harness.logs.some((line) => line.includes('server "fixture" could not start: it exited with code 1'))).toBe(true);
    expect(harness.logs).toContain('  | not today');
    rmSync(path.join(harness.directory, 'broken'));
    const names = await eventually(async () => {
      const tools = (await harness!.client.listTools()).tools;
      return tools.length > 0 ? tools.map((tool) => tool.name) : undefined;
    });
    expect(names).toContain('echo');
  });
});

describe('a server that stops answering altogether', () => {
  it('is restarted after a call times out and it does not answer a ping either', async () => {
    // Long enough for the first, answered call on a loaded machine; the stopped server is then surely late.
    harness = await startGatewayHarness({ policy, gateway: { callTimeoutMs: 2000 } });
    const { client } = harness;
    const pid = Number(resultText(await client.callTool({ name: 'pid', arguments: {} })));
    process.kill(pid, 'SIGSTOP');
    try {
      const result = await client.callTool({ name: 'echo', arguments: { text: 'anyone?' } });
      expect(resultText(result)).toContain('did not answer the call to echo within 2 s');
      const next = await eventually(async () => {
        const answer = await client.callTool({ name: 'pid', arguments: {} });
        return answer.isError ? undefined : Number(resultText(answer));
      }, 20_000);
      expect(next).not.toBe(pid);
      expect(harness.logs.some((line) => line.includes('does not answer a ping'))).toBe(true);
    } finally {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Already gone: the gateway killed its group.
      }
    }
  }, 30_000);
});

const STUBBORN_SERVER = path.join(ROOT, 'test', 'fixtures', 'stubborn-mcp-server.ts');
const stubborn = (...args: string[]) => ({ command: NODE, args: [STUBBORN_SERVER, ...args] });

describe('a server that cannot start', () => {
  it('is reported with its name, the reason, the tail of its stderr (escaped), the names of its environment and how to pass more', async () => {
    const lines = Array.from({ length: 29 }, (_, index) => `npm ERR! line ${index + 1}`);
    harness = await startGatewayHarness({
      policy: () => ({ mcp: { servers: { broken: { ...stubborn(...lines.flatMap((line) => ['--stderr', line]), '--stderr', '\u001b[31mnpm ERR!\u001b[0m unable to get local issuer certificate', '--exit', '1'), env: { API_MODE: 'secret-value-123' } } } } }),
      gateway: { environment: { PATH: process.env.PATH, NODE_EXTRA_CA_CERTS: '/etc/corporate-ca.pem', UNRELATED_TOKEN: 'hidden' }, restart: { initialDelayMs: 60_000 } },
    });
    const logs = harness.logs;
    const start = logs.indexOf('server "broken" could not start: it exited with code 1 before it was ready');
    expect(start).not.toBe(-1);
    const report = logs.slice(start, start + 16);
    expect(report).toContain('  its stderr (last 10 of 30 lines):');
    expect(report.filter((line) => line.startsWith('  | '))).toHaveLength(10);
    expect(report).toContain('  | npm ERR! line 21');
    // The server's escape sequences are shown, not obeyed.
    expect(report).toContain('  | \\x1b[31mnpm ERR!\\x1b[0m unable to get local issuer certificate');
    const environment = report.find((line) => line.startsWith('  its environment (names only): '))!;
    expect(environment).toContain('API_MODE');
    expect(environment).toContain('PATH');
    expect(report.join('\n')).not.toContain('secret-value-123');
    expect(report.join('\n')).not.toContain('/etc/corporate-ca.pem');
    expect(report.some((line) => line.includes('set here but not passed: NODE_EXTRA_CA_CERTS') && !line.includes('UNRELATED_TOKEN'))).toBe(true);
    expect(report.some((line) => line.includes(`mcp.servers.broken.env_from in ${path.join(harness!.directory, 'toolgate.json')}, e.g. env_from: [NODE_EXTRA_CA_CERTS]`))).toBe(true);
    // Its lines were not relayed one by one as well.
    expect(logs.some((line) => line.startsWith('[broken]'))).toBe(false);
  });

  it('that never answers initialize: says so, shows its chatter only in the report, and says each retry in one line', async () => {
    harness = await startGatewayHarness({
      policy: () => ({ mcp: { servers: { silent: stubborn('--chatter', '50') } } }),
      gateway: { connectTimeoutMs: 600, restart: { initialDelayMs: 100, maxDelayMs: 100 } },
    });
    expect(harness.logs).toContain('server "silent" could not start: it did not answer the MCP initialize request within 0.6 s');
    expect(harness.logs.some((line) => line.startsWith('  | npm http fetch GET'))).toBe(true);
    await eventually(async () => (harness!.logs.some((line) => line.startsWith('server "silent" still cannot start (2 attempts): it did not answer')) ? true : undefined));
    expect(harness.logs.some((line) => line.startsWith('[silent]'))).toBe(false);
    expect(harness.logs.filter((line) => line.includes('could not start'))).toHaveLength(1);
  });

  it('with verbose, relays its stderr as it comes', async () => {
    harness = await startGatewayHarness({
      policy: () => ({ mcp: { servers: { silent: stubborn('--chatter', '50') } } }),
      gateway: { connectTimeoutMs: 600, verbose: true, restart: { initialDelayMs: 60_000 } },
    });
    expect(harness.logs.some((line) => line.startsWith('[silent] npm http fetch GET'))).toBe(true);
  });
});

describe('expected relay chatter', () => {
  it('is one line per server: roots no client shares, and nothing at shutdown', async () => {
    harness = await startGatewayHarness({ policy: ({ workspace }) => ({ mcp: { servers: { files: filesystemServer(workspace), everything: everythingServer() } } }) });
    await harness.client.listTools();
    await eventually(async () => (harness!.logs.some((line) => line.startsWith('server "files": it asked for its client\'s roots')) ? true : undefined));
    await harness.close();
    const logs = harness.logs;
    harness = undefined;
    expect(logs.filter((line) => line.startsWith('server "files": it asked for its client\'s roots'))).toHaveLength(1);
    expect(logs.join('\n')).not.toMatch(/Failed to request initial roots|Failed to send|Secure MCP Filesystem Server running/);
  });
});
