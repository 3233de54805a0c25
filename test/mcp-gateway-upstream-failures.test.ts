/**
 * Upstream failures never hang the client: a crash mid-call and a call that
 * never answers come back as isError results naming the server, and a
 * crashed server is restarted (with backoff) and works again.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { eventually, fixtureServer, resultText, startGatewayHarness, type GatewayHarness } from './mcp-gateway-harness.ts';

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
    const path = await import('node:path');
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
    expect(harness.logs.some((line) => line.includes('could not start') && line.includes('not today'))).toBe(true);
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
