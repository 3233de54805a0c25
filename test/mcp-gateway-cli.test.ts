/**
 * `toolgate mcp` through its real CLI entry (src/cli/mcp-entry.ts) as a
 * separate process: over stdio with the SDK's stdio client, and over
 * Streamable HTTP with the bearer token and Host/Origin checks.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { CliIo } from '../src/cli/cli-io.ts';
import { runMcpCommand } from '../src/cli/commands/mcp-command.ts';
import { filesystemServer, makeScratch, MCP_ENTRY, NODE, readAudit, resultText, startGatewayHarness, startHttpGatewayProcess, type GatewayHarness, type HttpGatewayProcess } from './mcp-gateway-harness.ts';

let scratch: { directory: string; workspace: string };
let policyPath: string;

beforeAll(() => {
  scratch = makeScratch('toolgate-mcp-cli-');
  mkdirSync(scratch.workspace, { recursive: true });
  writeFileSync(path.join(scratch.workspace, 'readme.txt'), 'read me\n');
  policyPath = path.join(scratch.directory, 'toolgate.yaml');
  const server = filesystemServer(scratch.workspace);
  writeFileSync(
    policyPath,
    [
      'mcp:',
      '  servers:',
      '    filesystem:',
      `      command: ${JSON.stringify(server.command)}`,
      `      args: ${JSON.stringify(server.args)}`,
      '      tools:',
      '        read_text_file: allow',
      // Blocked except into archive/ (which asks): listed, and a move elsewhere is refused by the rule.
      '        move_file: { decision: block, rules: [{ args: { destination: ".*/archive/.*" }, decision: ask }] }',
      // Blocked whatever its arguments: not listed (14 tools, 13 offered).
      '        create_directory: block',
      '',
    ].join('\n'),
  );
});

afterAll(() => rmSync(scratch.directory, { recursive: true, force: true }));

describe('toolgate mcp over stdio (the real CLI entry)', () => {
  it('serves the policy: allowed, elicited and blocked calls; stops when stdin closes and writes its stats', async () => {
    const statsFile = path.join(scratch.directory, 'stats.json');
    const client = new Client({ name: 'cli-test', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    const asked: string[] = [];
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params.message);
      return { action: 'accept', content: { decision: 'approve', scope: 'once' } };
    });
    const transport = new StdioClientTransport({ command: NODE, args: [MCP_ENTRY, '--policy', policyPath, '--no-terminal', '--stats-file', statsFile], stderr: 'pipe' });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await client.connect(transport);
    try {
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      expect(names).toContain('read_text_file');
      expect(names).toContain('move_file');
      expect(names).not.toContain('create_directory');
      const read = await client.callTool({ name: 'read_text_file', arguments: { path: path.join(scratch.workspace, 'readme.txt') } });
      expect(resultText(read)).toContain('read me');
      const target = path.join(scratch.workspace, 'written.txt');
      const write = await client.callTool({ name: 'write_file', arguments: { path: target, content: 'via the CLI' } });
      expect(write.isError).toBeFalsy();
      expect(readFileSync(target, 'utf8')).toBe('via the CLI');
      expect(asked).toHaveLength(1);
      const moved = await client.callTool({ name: 'move_file', arguments: { source: target, destination: `${target}.moved` } });
      expect(moved.isError).toBe(true);
    } finally {
      await client.close();
    }
    // The client closed stdin: the gateway stops, stops its upstream and writes the stats.
    const stats = JSON.parse(readFileSync(statsFile, 'utf8')) as {
      stats: { forwarded: number; refused: number; beforeForward: { count: number }; heldUntilDurable: { count: number; p50_us: number } };
    };
    expect(stats.stats).toMatchObject({ forwarded: 2, refused: 1 });
    expect(stats.stats.beforeForward.count).toBe(1);
    // The audit log is on: each of the three answers waited for its records to be durable.
    expect(stats.stats.heldUntilDurable.count).toBe(3);
    expect(stats.stats.heldUntilDurable.p50_us).toBeGreaterThanOrEqual(0);
    expect(stderr).toContain('serving 13 tools from 1 of 1 servers');
    const audit = readAudit(path.join(scratch.directory, '.toolgate', 'audit.jsonl'));
    expect(audit.map((record) => [record.tool, record.decision])).toContainEqual(['write_file', 'approved']);
    // Each line names the server, the tool's identity (server + definition) and the rule that decided, in toolgate's words.
    const written = audit.find((record) => record.tool === 'write_file' && record.kind === 'decision')!;
    expect(written).toMatchObject({ server: 'filesystem', rule: 'mcp.servers.filesystem (no default: ask)', source: 'person' });
    expect(String(written.identity)).toMatch(/^mcp:filesystem:[0-9a-f]{16}:sha256:[0-9a-f]{64}$/);
    const refused = audit.find((record) => record.tool === 'move_file' && record.kind === 'verdict')!;
    expect(refused).toMatchObject({ server: 'filesystem', decision: 'block', rule: 'mcp.servers.filesystem.tools.move_file' });
    expect(refused.reason).toBe('mcp.servers.filesystem.tools.move_file is block');
  });

  it('exits with 3 for a policy without MCP servers and 2 for a bad flag', async () => {
    const empty = path.join(scratch.directory, 'empty.yaml');
    writeFileSync(empty, 'tools: { read_file: allow }\n');
    const noServers = await runInProcess(['--policy', empty]);
    expect(noServers.code).toBe(3);
    expect(noServers.stderr).toContain('names no MCP servers');
    await expect(runInProcess(['--policy', policyPath, '--namespace', 'sometimes'])).rejects.toThrow('--namespace must be collisions or always');
    await expect(runInProcess(['--policy', policyPath, '--http', '0', '--token', 'short'])).rejects.toThrow('at least 16 characters');
    await expect(runInProcess(['--policy', policyPath, '--approver', 'robot'])).rejects.toThrow('--approver must be elicitation, terminal, server or none, not "robot"');
    await expect(runInProcess(['--policy', policyPath, '--approver', 'terminal', '--no-terminal'])).rejects.toThrow('--approver terminal asks in the terminal; --no-terminal forbids it');
    await expect(runInProcess(['--policy', policyPath, '--approver', 'server'])).rejects.toThrow('--approver server needs --server URL');
    await expect(runInProcess(['--policy', policyPath, '--server', 'http://127.0.0.1:1'])).rejects.toThrow('--server goes with --approver server');
    await expect(runInProcess(['--policy', policyPath, '--approver', 'server', '--server', 'ftp://host'])).rejects.toThrow('--server must be an http or https URL');
    await expect(runInProcess(['--policy', policyPath, '--approver', 'server', '--server', 'not a url'])).rejects.toThrow('--server must be a URL such as');
    await expect(runInProcess(['--policy', policyPath, '--approver', 'server', '--server', 'http://127.0.0.1:1'])).rejects.toThrow('needs the token of a submitter in TOOLGATE_TOKEN');
  });
});

describe('toolgate mcp --http', () => {
  let gateway: HttpGatewayProcess;
  let url: string;
  const token = 'test-token-0123456789abcdef';

  beforeAll(async () => {
    gateway = await startHttpGatewayProcess({ policyPath, token });
    url = gateway.url;
  }, 30_000);

  afterAll(async () => {
    expect(await gateway.stop()).toBe(0);
  });

  it('refuses requests without the token (401), with a foreign Host or Origin (403)', async () => {
    const port = new URL(url).port;
    const initialize = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
    const headers = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
    expect((await raw({ port, body: initialize, headers })).status).toBe(401);
    expect((await raw({ port, body: initialize, headers: { ...headers, Authorization: 'Bearer wrong-token-0123456789' } })).status).toBe(401);
    const rebinding = await raw({ port, body: initialize, headers: { ...headers, Authorization: `Bearer ${token}`, Host: `evil.example:${port}` } });
    expect(rebinding.status).toBe(403);
    expect(rebinding.body).toContain('DNS rebinding');
    expect((await raw({ port, body: initialize, headers: { ...headers, Authorization: `Bearer ${token}`, Origin: 'http://evil.example' } })).status).toBe(403);
    expect((await raw({ port, body: initialize, headers: { ...headers, Authorization: `Bearer ${token}` } })).status).toBe(200);
  });

  it('works with the token: list, allowed and elicited calls over Streamable HTTP', async () => {
    const client = new Client({ name: 'http-test', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, () => ({ action: 'accept', content: { decision: 'approve' } }));
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    try {
      expect((await client.listTools()).tools.length).toBe(13);
      expect(resultText(await client.callTool({ name: 'read_text_file', arguments: { path: path.join(scratch.workspace, 'readme.txt') } }))).toContain('read me');
      const target = path.join(scratch.workspace, 'over-http.txt');
      const write = await client.callTool({ name: 'write_file', arguments: { path: target, content: 'http' } });
      expect(write.isError).toBeFalsy();
      expect(existsSync(target)).toBe(true);
    } finally {
      await client.close();
    }
  });
  it("serves seed 004's metrics at /metrics, behind the same token and Host checks", async () => {
    const port = new URL(url).port;
    const client = new Client({ name: 'metrics-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    try {
      expect((await client.callTool({ name: 'move_file', arguments: { source: 'a', destination: 'b' } })).isError).toBe(true);
    } finally {
      await client.close();
    }
    expect((await raw({ port, path: '/metrics', method: 'GET', headers: {} })).status).toBe(401);
    expect((await raw({ port, path: '/metrics', method: 'GET', headers: { Authorization: `Bearer ${token}`, Host: `evil.example:${port}` } })).status).toBe(403);
    expect((await raw({ port, path: '/metrics', method: 'POST', body: '', headers: { Authorization: `Bearer ${token}` } })).status).toBe(405);
    const metrics = await raw({ port, path: '/metrics', method: 'GET', headers: { Authorization: `Bearer ${token}` } });
    expect(metrics.status).toBe(200);
    expect(metrics.type).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(metrics.body).toContain('tool_authorization_failures_total{tool="move_file",decision="block",source="policy"} 1');
    expect(metrics.body).toMatch(/toolgate_decision_duration_seconds_count\{verdict="allow",decision="allow"\} \d+/);
    expect(metrics.body).toContain('# TYPE tool_consent_required_total counter');
  });
});

describe('toolgate mcp --metrics-port (a gateway on stdio)', () => {
  it('serves the metrics on loopback, counting the calls made over stdio; refuses a foreign Host, other paths and methods', async () => {
    const client = new Client({ name: 'stdio-metrics', version: '1.0.0' });
    const transport = new StdioClientTransport({ command: NODE, args: [MCP_ENTRY, '--policy', policyPath, '--no-terminal', '--metrics-port', '0'], stderr: 'pipe' });
    let stderr = '';
    const printed = new Promise<string>((resolve) => {
      transport.stderr?.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        const match = /metrics on (http:\/\/127\.0\.0\.1:\d+\/metrics)/.exec(stderr);
        if (match !== null) resolve(match[1]!);
      });
    });
    await client.connect(transport);
    try {
      const metricsUrl = await printed;
      const port = new URL(metricsUrl).port;
      expect((await client.callTool({ name: 'move_file', arguments: { source: 'a', destination: 'b' } })).isError).toBe(true);
      expect(resultText(await client.callTool({ name: 'read_text_file', arguments: { path: path.join(scratch.workspace, 'readme.txt') } }))).toContain('read me');
      const metrics = await raw({ port, path: '/metrics', method: 'GET', headers: {} });
      expect(metrics.status).toBe(200);
      expect(metrics.body).toContain('tool_authorization_failures_total{tool="move_file",decision="block",source="policy"} 1');
      expect(metrics.body).toContain('toolgate_decision_duration_seconds_count{verdict="allow",decision="allow"} 1');
      expect((await raw({ port, path: '/metrics', method: 'GET', headers: { Host: `evil.example:${port}` } })).status).toBe(403);
      expect((await raw({ port, path: '/mcp', method: 'GET', headers: {} })).status).toBe(404);
      expect((await raw({ port, path: '/metrics', method: 'DELETE', headers: {} })).status).toBe(405);
    } finally {
      await client.close();
    }
  });

  it('refuses a --metrics-port that is not a port', async () => {
    await expect(runInProcess(['--policy', policyPath, '--metrics-port', 'http'])).rejects.toThrow('--metrics-port must be a port number (0-65535), not "http"');
  });
});

describe('an upstream reached by url', () => {
  it('is served through Streamable HTTP with its headers (a gateway in front of the --http gateway)', async () => {
    const token = 'chain-token-0123456789abcdef';
    const remote = await startHttpGatewayProcess({ policyPath, token });
    const { url } = remote;
    let harness: GatewayHarness | undefined;
    try {
      harness = await startGatewayHarness({ policy: () => ({ mcp: { servers: { remote: { url, headers: { Authorization: `Bearer ${token}` }, tools: { read_text_file: 'allow', move_file: 'allow' } } } } }) });
      expect((await harness.client.listTools()).tools).toHaveLength(13);
      const read = await harness.client.callTool({ name: 'read_text_file', arguments: { path: path.join(scratch.workspace, 'readme.txt') } });
      expect(resultText(read)).toContain('read me');
      // Allowed here, blocked by the remote gateway: its refusal comes back as it was given.
      const moved = await harness.client.callTool({ name: 'move_file', arguments: { source: 'a', destination: 'b' } });
      expect(moved.isError).toBe(true);
      expect(resultText(moved)).toContain('toolgate blocked this call to move_file');
    } finally {
      await harness?.close();
      await remote.stop();
    }
  });

  it('an unreachable url never becomes ready, and the log says why', async () => {
    const harness = await startGatewayHarness({ policy: () => ({ mcp: { servers: { remote: { url: 'http://127.0.0.1:9/mcp', default: 'allow' } } } }) });
    try {
      expect(harness.gateway.upstreams()[0]!.state).not.toBe('ready');
      expect(harness.logs.some((line) => line.startsWith('server "remote" could not start'))).toBe(true);
    } finally {
      await harness.close();
    }
  });
});

async function runInProcess(argv: string[]): Promise<{ code: number; stderr: string }> {
  let stderr = '';
  const io: CliIo = {
    stdout: { write: () => true },
    stderr: { write: (text: string) => (stderr += text) },
    stdin: Readable.from([]) as unknown as CliIo['stdin'],
    env: {},
    cwd: scratch.directory,
  };
  const code = await runMcpCommand(argv, io);
  return { code, stderr };
}

function raw(options: { port: string; body?: string; headers: Record<string, string>; path?: string; method?: string }): Promise<{ status: number; body: string; type: string | undefined }> {
  return new Promise((resolve, reject) => {
    const request = http.request({ host: '127.0.0.1', port: Number(options.port), path: options.path ?? '/mcp', method: options.method ?? 'POST', headers: options.headers }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body, type: response.headers['content-type'] }));
    });
    request.on('error', reject);
    request.end(options.body);
  });
}
