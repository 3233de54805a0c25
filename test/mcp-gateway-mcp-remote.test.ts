/**
 * A client nobody here wrote: mcp-remote (the stdio-to-HTTP bridge many
 * desktop clients use) in front of `toolgate mcp --http`, both as real
 * processes. Through it: the list, an allowed call, a blocked one, and one
 * that asks, answered by the client's own elicitation through the bridge.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { filesystemServer, makeScratch, NODE, resultText, startHttpGatewayProcess, type HttpGatewayProcess } from './mcp-gateway-harness.ts';

const MCP_REMOTE = path.resolve(import.meta.dirname, '..', 'node_modules', 'mcp-remote', 'dist', 'proxy.js');
const token = 'mcp-remote-token-0123456789';

let scratch: { directory: string; workspace: string };
let gateway: HttpGatewayProcess;
let url: string;

beforeAll(async () => {
  scratch = makeScratch('toolgate-mcp-remote-');
  mkdirSync(scratch.workspace, { recursive: true });
  writeFileSync(path.join(scratch.workspace, 'readme.txt'), 'read me\n');
  const server = filesystemServer(scratch.workspace);
  const policyPath = path.join(scratch.directory, 'toolgate.yaml');
  writeFileSync(policyPath, ['mcp:', '  servers:', '    filesystem:', `      command: ${JSON.stringify(server.command)}`, `      args: ${JSON.stringify(server.args)}`, '      tools:', '        read_text_file: allow', '        move_file: block', ''].join('\n'));
  gateway = await startHttpGatewayProcess({ policyPath, token });
  url = gateway.url;
}, 30_000);

afterAll(async () => {
  await gateway.stop();
  rmSync(scratch.directory, { recursive: true, force: true });
});

describe('mcp-remote in front of toolgate mcp --http', () => {
  it('lists, runs what is allowed, refuses what is blocked, and relays the approval dialog to the client', async () => {
    const asked: string[] = [];
    const client = new Client({ name: 'through-mcp-remote', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params.message);
      return { action: 'accept', content: { decision: 'approve', scope: 'once' } };
    });
    const transport = new StdioClientTransport({
      command: NODE,
      args: [MCP_REMOTE, url, '--allow-http', '--transport', 'http-only', '--header', `Authorization: Bearer ${token}`],
      env: { ...process.env, MCP_REMOTE_CONFIG_DIR: mkdtempSync(path.join(os.tmpdir(), 'mcp-remote-config-')) } as Record<string, string>,
      stderr: 'pipe',
    });
    let bridgeLog = '';
    transport.stderr?.on('data', (chunk: Buffer) => (bridgeLog += chunk.toString()));
    await client.connect(transport);
    try {
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      expect(names, bridgeLog).toContain('read_text_file');
      expect(resultText(await client.callTool({ name: 'read_text_file', arguments: { path: path.join(scratch.workspace, 'readme.txt') } }))).toContain('read me');
      const moved = await client.callTool({ name: 'move_file', arguments: { source: path.join(scratch.workspace, 'readme.txt'), destination: path.join(scratch.workspace, 'gone.txt') } });
      expect(moved.isError).toBe(true);
      expect(readFileSync(path.join(scratch.workspace, 'readme.txt'), 'utf8')).toBe('read me\n');
      const target = path.join(scratch.workspace, 'via-mcp-remote.txt');
      const written = await client.callTool({ name: 'write_file', arguments: { path: target, content: 'through the bridge' } });
      expect(written.isError, resultText(written)).toBeFalsy();
      expect(readFileSync(target, 'utf8')).toBe('through the bridge');
      expect(asked).toHaveLength(1);
      expect(asked[0]).toContain('write_file');
    } finally {
      await client.close();
    }
  });
});
