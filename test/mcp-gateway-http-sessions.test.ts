/**
 * HTTP sessions of the MCP gateway end: clients that go away without DELETE
 * (as the Inspector CLI does) cost a place only until a new client needs it
 * or the idle timeout passes; DELETE ends a session at once; a busy session
 * (a request in flight, an open SSE stream) is never evicted. Real SDK
 * clients over real HTTP, the real filesystem server upstream.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { loadPolicyFile } from '../src/config/load-policy-file.ts';
import { MCP_HELP } from '../src/cli/commands/mcp-command.ts';
import { createMcpGateway, type McpGateway } from '../src/mcp/create-mcp-gateway.ts';
import { startHttpGateway, type HttpGateway } from '../src/mcp/http-gateway.ts';
import { eventually, filesystemServer, makeScratch, MCP_ENTRY, NODE, readAudit, resultText } from './mcp-gateway-harness.ts';

const TOKEN = 'session-test-token-0123456789';

interface Served {
  gateway: McpGateway;
  http: HttpGateway;
  workspace: string;
  directory: string;
  logs: string[];
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function serve(options: { maxSessions?: number; sessionIdleTimeoutMs?: number } = {}): Promise<Served> {
  const { directory, workspace } = makeScratch('toolgate-mcp-sessions-');
  mkdirSync(workspace, { recursive: true });
  writeFileSync(path.join(workspace, 'readme.txt'), 'read me\n');
  const policyPath = path.join(directory, 'toolgate.json');
  // 14 tools, 13 listed: move_file is blocked whatever its arguments.
  writeFileSync(policyPath, JSON.stringify({ mcp: { servers: { filesystem: { ...filesystemServer(workspace), tools: { read_text_file: 'allow', move_file: 'block' } } } } }));
  const logs: string[] = [];
  const gateway = createMcpGateway({ loaded: await loadPolicyFile(policyPath), log: (line) => void logs.push(line) });
  await gateway.start();
  const served = await startHttpGateway({ gateway, port: 0, token: TOKEN, log: (line) => void logs.push(line), ...options });
  cleanups.push(async () => {
    await served.close();
    await gateway.close();
    rmSync(directory, { recursive: true, force: true });
  });
  return { gateway, http: served, workspace, directory, logs };
}

interface Launched {
  client: Client;
  transport: StreamableHTTPClientTransport;
  /** Drops every connection of this client without a word (no DELETE, no close): a process that exited. */
  goAway(): void;
}

/**
 * A real SDK client. `stream: false` makes it run without the GET SSE stream
 * (as a server without one would be used), so its only busy times are its requests.
 */
async function launch(url: string, options: { stream?: boolean; elicit?: () => Promise<ElicitResult> } = {}): Promise<Launched> {
  const gone = new AbortController();
  const client = new Client({ name: 'session-test', version: '1.0.0' }, { capabilities: options.elicit === undefined ? {} : { elicitation: {} } });
  if (options.elicit !== undefined) client.setRequestHandler(ElicitRequestSchema, options.elicit);
  client.onerror = () => undefined;
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } },
    reconnectionOptions: { maxRetries: 0, initialReconnectionDelay: 1000, maxReconnectionDelay: 1000, reconnectionDelayGrowFactor: 1 },
    fetch: async (input, init) => {
      if (options.stream === false && init?.method === 'GET') return new Response(null, { status: 405 });
      const signal = init?.signal == null ? gone.signal : AbortSignal.any([init.signal, gone.signal]);
      return fetch(input, { ...init, signal });
    },
  });
  await client.connect(transport);
  return { client, transport, goAway: () => gone.abort(new Error('the client process exited')) };
}

/** One raw request with a session id: the status it answers. */
function rawStatus(options: { url: string; sessionId: string; method: 'POST' | 'DELETE' }): Promise<number> {
  const target = new URL(options.url);
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: target.hostname,
        port: Number(target.port),
        path: target.pathname,
        method: options.method,
        headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'Mcp-Session-Id': options.sessionId },
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      },
    );
    request.on('error', reject);
    request.end(options.method === 'POST' ? JSON.stringify({ jsonrpc: '2.0', id: `probe-${Math.random()}`, method: 'tools/list', params: {} }) : undefined);
  });
}

describe('HTTP sessions of the MCP gateway', () => {
  it('serves 200 short-lived clients that never close their sessions, and the 201st', async () => {
    const { http: served, workspace } = await serve();
    const seen = new Set<string>();
    for (let index = 0; index < 200; index += 1) {
      const launched = await launch(served.url);
      const sessionId = launched.transport.sessionId;
      expect(sessionId).toBeDefined();
      seen.add(sessionId!);
      expect((await launched.client.listTools()).tools.map((tool) => tool.name)).toContain('read_text_file');
      const read = await launched.client.callTool({ name: 'read_text_file', arguments: { path: path.join(workspace, 'readme.txt') } });
      expect(resultText(read)).toContain('read me');
      launched.goAway();
      // Never more than the cap: the gone clients' sessions stay until their place is needed.
      expect(served.sessions()).toBeLessThanOrEqual(64);
    }
    expect(seen.size).toBe(200);
    const last = await launch(served.url);
    expect((await last.client.listTools()).tools.length).toBe(13);
    const read = await last.client.callTool({ name: 'read_text_file', arguments: { path: path.join(workspace, 'readme.txt') } });
    expect(resultText(read)).toContain('read me');
    await last.client.close();
  }, 120_000);

  it('DELETE ends a session at once: its place is free and its id answers 404', async () => {
    const { http: served, workspace } = await serve({ maxSessions: 1 });
    const first = await launch(served.url);
    const sessionId = first.transport.sessionId!;
    expect(served.sessions()).toBe(1);
    await first.transport.terminateSession();
    expect(served.sessions()).toBe(0);
    expect(await rawStatus({ url: served.url, sessionId, method: 'POST' })).toBe(404);
    expect(await rawStatus({ url: served.url, sessionId, method: 'DELETE' })).toBe(404);
    await first.client.close();
    const second = await launch(served.url);
    expect(resultText(await second.client.callTool({ name: 'read_text_file', arguments: { path: path.join(workspace, 'readme.txt') } }))).toContain('read me');
    await second.client.close();
  });

  it('closes a session idle past the timeout (404 afterwards), but not one that keeps working or holds its stream open', async () => {
    const { http: served, logs } = await serve({ sessionIdleTimeoutMs: 400 });
    const idle = await launch(served.url, { stream: false });
    const working = await launch(served.url, { stream: false });
    const streaming = await launch(served.url);
    const idleId = idle.transport.sessionId!;
    // 1.2 s of requests every 100 ms: never idle for 400 ms.
    for (let index = 0; index < 12; index += 1) {
      await working.client.listTools();
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(await rawStatus({ url: served.url, sessionId: idleId, method: 'POST' })).toBe(404);
    expect(logs.some((line) => line.includes(idleId) && line.includes('idle'))).toBe(true);
    expect((await working.client.listTools()).tools.length).toBe(13);
    expect((await streaming.client.listTools()).tools.length).toBe(13);
    expect(served.sessions()).toBe(2);
    // Gone quietly, each expires in its turn.
    working.goAway();
    streaming.goAway();
    await eventually(async () => (served.sessions() === 0 ? true : undefined), 5000);
    expect(await rawStatus({ url: served.url, sessionId: working.transport.sessionId!, method: 'POST' })).toBe(404);
    await idle.client.close();
  });

  it('never evicts a busy session: a call waiting for approval and an open SSE stream keep their places, the newcomer gets 503', async () => {
    const { http: served, workspace, directory } = await serve({ maxSessions: 2 });
    let answer!: (result: ElicitResult) => void;
    let asked!: () => void;
    const wasAsked = new Promise<void>((resolve) => (asked = resolve));
    const busy = await launch(served.url, {
      stream: false,
      elicit: () => {
        asked();
        return new Promise<ElicitResult>((resolve) => (answer = resolve));
      },
    });
    const target = path.join(workspace, 'written-while-busy.txt');
    const call = busy.client.callTool({ name: 'write_file', arguments: { path: target, content: 'kept' } }, undefined, { timeout: 60_000 });
    await wasAsked;

    // An idle client that went away: its place goes to the next client.
    const quiet = await launch(served.url, { stream: false });
    quiet.goAway();
    const streaming = await launch(served.url);
    expect(await rawStatus({ url: served.url, sessionId: quiet.transport.sessionId!, method: 'POST' })).toBe(404);
    expect(await rawStatus({ url: served.url, sessionId: busy.transport.sessionId!, method: 'POST' })).toBe(200);

    // Both remaining sessions are busy: the newcomer is refused, nothing is evicted.
    await expect(launch(served.url)).rejects.toThrow(/503|too many busy sessions/);
    expect(served.sessions()).toBe(2);

    answer({ action: 'accept', content: { decision: 'approve', scope: 'once' } });
    const result = await call;
    expect(result.isError).toBeFalsy();
    expect(readFileSync(target, 'utf8')).toBe('kept');
    const audit = readAudit(path.join(directory, '.toolgate', 'audit.jsonl'));
    expect(audit.map((record) => [record.tool, record.decision])).toContainEqual(['write_file', 'approved']);

    // The call is answered and the client stays quiet: now its place can be taken.
    const newcomer = await launch(served.url);
    expect(await rawStatus({ url: served.url, sessionId: busy.transport.sessionId!, method: 'POST' })).toBe(404);
    expect((await newcomer.client.listTools()).tools.length).toBe(13);
    expect((await streaming.client.listTools()).tools.length).toBe(13);
    await Promise.all([busy.client.close(), newcomer.client.close(), streaming.client.close()]);
  });

  it('DELETE during a call waiting for approval ends the call: nothing is written', async () => {
    const { http: served, workspace, directory } = await serve();
    let asked!: () => void;
    const wasAsked = new Promise<void>((resolve) => (asked = resolve));
    const client = await launch(served.url, {
      stream: false,
      elicit: () => {
        asked();
        return new Promise<ElicitResult>(() => undefined);
      },
    });
    const target = path.join(workspace, 'never.txt');
    const call = client.client.callTool({ name: 'write_file', arguments: { path: target, content: 'no' } }, undefined, { timeout: 3000 }).catch((error: unknown) => error);
    await wasAsked;
    expect(await rawStatus({ url: served.url, sessionId: client.transport.sessionId!, method: 'DELETE' })).toBe(200);
    expect(served.sessions()).toBe(0);
    client.goAway();
    await call;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(existsSync(target)).toBe(false);
    const audit = readAudit(path.join(directory, '.toolgate', 'audit.jsonl'));
    expect(audit.filter((record) => record.tool === 'write_file').map((record) => record.decision)).not.toContain('approved');
  });
});

describe('toolgate mcp --session-idle-timeout (the real CLI entry)', () => {
  it('is documented, refused without --http or with a bad value, and expires idle sessions', async () => {
    expect(MCP_HELP).toContain('--session-idle-timeout DURATION');
    expect(MCP_HELP).toContain('--max-sessions N');
    const { directory, workspace } = makeScratch('toolgate-mcp-sessions-cli-');
    mkdirSync(workspace, { recursive: true });
    const policyPath = path.join(directory, 'toolgate.json');
    writeFileSync(policyPath, JSON.stringify({ mcp: { servers: { filesystem: filesystemServer(workspace) } } }));
    cleanups.push(async () => rmSync(directory, { recursive: true, force: true }));

    const usage = await runCli(['--policy', policyPath, '--session-idle-timeout', '1s']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('--session-idle-timeout applies only with --http');
    const bad = await runCli(['--policy', policyPath, '--http', '0', '--session-idle-timeout', 'soon']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--session-idle-timeout must be a duration');
    const badCount = await runCli(['--policy', policyPath, '--http', '0', '--max-sessions', '0']);
    expect(badCount.code).toBe(2);
    expect(badCount.stderr).toContain('--max-sessions must be a whole number');

    const child = spawn(NODE, [MCP_ENTRY, '--policy', policyPath, '--http', '0', '--no-terminal', '--session-idle-timeout', '500ms'], {
      env: { ...process.env, TOOLGATE_MCP_TOKEN: TOKEN },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    cleanups.push(async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    });
    const url = await eventually(async () => /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr)?.[1], 20_000);
    const launched = await launch(url, { stream: false });
    const sessionId = launched.transport.sessionId!;
    expect((await launched.client.listTools()).tools.length).toBe(14);
    // Each probe is activity of its own: wait past the timeout, then ask once.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(await rawStatus({ url, sessionId, method: 'POST' })).toBe(404);
    expect(stderr).toContain(`session ${sessionId} closed: idle too long`);
    await launched.client.close();
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  }, 60_000);
});

async function runCli(argv: string[]): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(NODE, [MCP_ENTRY, ...argv], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', (exitCode) => resolve(exitCode)));
  return { code, stderr };
}
