/**
 * The gateway in front of the real @modelcontextprotocol/server-filesystem
 * (spawned over stdio on a temporary directory), with the SDK's Client as
 * the downstream: filtering, allow/ask/block, elicitation, redaction,
 * session approvals, and what happens when nobody can be asked.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approve, filesystemServer, resultText, startGatewayHarness, type ElicitHandler, type GatewayHarness } from './mcp-gateway-harness.ts';

let answer: ElicitHandler = approve();
let harness: GatewayHarness;

beforeAll(async () => {
  harness = await startGatewayHarness({
    setup: ({ workspace }) => writeFileSync(path.join(workspace, 'notes.txt'), 'hello from the workspace\n'),
    policy: ({ workspace }) => ({
      // Long enough that a loaded machine's elicitation round trip never times out a test that answers.
      approval_timeout: '5s',
      mcp: {
        servers: {
          filesystem: {
            ...filesystemServer(workspace),
            tools: {
              read_text_file: 'allow',
              move_file: { decision: 'block', reason: 'moving files is not allowed here' },
              write_file: { decision: 'ask', rules: [{ args: { path: '.*\\.secret' }, decision: 'block', reason: 'secrets stay unwritten' }] },
            },
            filter: { deny: ['read_media_file'] },
            redact: { keys: ['content'] },
          },
        },
      },
      tools: { list_allowed_directories: 'allow' },
      filter: { deny: ['directory_tree'] },
    }),
    elicit: (request) => answer(request),
  });
}, 60_000);

afterAll(async () => harness?.close());

describe('the gateway in front of server-filesystem', () => {
  it('lists the server tools minus those hidden by the server filter and the top-level filter', async () => {
    const { tools } = await harness.client.listTools();
    const names = tools.map((tool) => tool.name);
    expect(names).toContain('read_text_file');
    expect(names).toContain('write_file');
    expect(names).not.toContain('read_media_file');
    expect(names).not.toContain('directory_tree');
    // Definitions pass through as the server sent them.
    const read = tools.find((tool) => tool.name === 'read_text_file')!;
    expect(read.annotations?.readOnlyHint).toBe(true);
    expect(read.inputSchema.properties).toHaveProperty('path');
  });

  it('refuses calls to hidden tools exactly like calls to tools that do not exist, and audits them', async () => {
    const hidden = await harness.client.callTool({ name: 'read_media_file', arguments: { path: 'x' } }).catch((error: Error) => error.message);
    const topLevelHidden = await harness.client.callTool({ name: 'directory_tree', arguments: { path: 'x' } }).catch((error: Error) => error.message);
    const unknown = await harness.client.callTool({ name: 'no_such_tool', arguments: {} }).catch((error: Error) => error.message);
    expect(hidden).toBe('MCP error -32602: Unknown tool: read_media_file');
    expect(topLevelHidden).toBe('MCP error -32602: Unknown tool: directory_tree');
    expect(unknown).toBe('MCP error -32602: Unknown tool: no_such_tool');
    const records = harness.audit().filter((record) => record.tool === 'read_media_file');
    expect(records.at(-1)).toMatchObject({ decision: 'block' });
  });

  it('runs a call the server rule allows without asking anyone', async () => {
    const before = harness.elicitations.length;
    const result = await harness.client.callTool({ name: 'read_text_file', arguments: { path: path.join(harness.workspace, 'notes.txt') } });
    expect(result.isError).toBeFalsy();
    expect(resultText(result)).toContain('hello from the workspace');
    expect(harness.elicitations.length).toBe(before);
    expect(harness.audit().at(-1)).toMatchObject({ tool: 'read_text_file', decision: 'allow', source: 'policy' });
  });

  it('asks through elicitation, with the server, the redacted arguments and an approve/deny form, and runs the approved call', async () => {
    answer = approve('once');
    const target = path.join(harness.workspace, 'approved.txt');
    const result = await harness.client.callTool({ name: 'write_file', arguments: { path: target, content: 'top secret body' } });
    expect(result.isError).toBeFalsy();
    expect(readFileSync(target, 'utf8')).toBe('top secret body');
    const asked = harness.elicitations.at(-1)!;
    expect(asked.message).toContain('Tool: write_file ("write_file" on MCP server "filesystem")');
    expect(asked.message).toContain(target);
    // Masked for the person (its size shown), never dropped; the audit log below keeps it [REDACTED].
    expect(asked.message).toContain('"content": "‹secret: 15 characters›"');
    expect(asked.message).not.toContain('top secret body');
    const schema = (asked as { requestedSchema: { properties: Record<string, { enum?: string[] }>; required: string[] } }).requestedSchema;
    // A secret was masked (content is a redact key here), so the person may ask to see it first.
    expect(schema.properties.decision?.enum).toEqual(['approve', 'deny', 'reveal']);
    expect(schema.properties.scope?.enum).toEqual(['once', 'session', 'always']);
    expect(schema.properties).toHaveProperty('reason');
    expect(schema.required).toEqual(['decision']);
    // The server's redact.keys apply to its audit lines too.
    const decision = harness.audit().filter((record) => record.tool === 'write_file' && record.kind === 'decision').at(-1)!;
    expect(decision).toMatchObject({ decision: 'approved', source: 'person', args: { path: target, content: '[REDACTED]' } });
  });

  it('returns a declined call as an isError result carrying the reason, and does not run it', async () => {
    answer = () => ({ action: 'accept', content: { decision: 'deny', reason: 'write it to the docs folder instead' } });
    const target = path.join(harness.workspace, 'denied.txt');
    const result = await harness.client.callTool({ name: 'write_file', arguments: { path: target, content: 'x' } });
    expect(result.isError).toBe(true);
    expect(resultText(result)).toContain('the user denied this call to write_file');
    expect(resultText(result)).toContain('write it to the docs folder instead');
    expect(existsSync(target)).toBe(false);

    answer = () => ({ action: 'decline' });
    const declined = await harness.client.callTool({ name: 'write_file', arguments: { path: target, content: 'x' } });
    expect(declined.isError).toBe(true);
    expect(resultText(declined)).toContain('declined in the MCP client');
    answer = () => ({ action: 'cancel' });
    const cancelled = await harness.client.callTool({ name: 'write_file', arguments: { path: target, content: 'x' } });
    expect(resultText(cancelled)).toContain('dismissed');
    expect(existsSync(target)).toBe(false);
  });

  it('blocks by rule without asking: a tool-level block and an argument rule', async () => {
    const before = harness.elicitations.length;
    const moved = await harness.client.callTool({ name: 'move_file', arguments: { source: path.join(harness.workspace, 'notes.txt'), destination: path.join(harness.workspace, 'moved.txt') } });
    expect(moved.isError).toBe(true);
    expect(resultText(moved)).toContain('toolgate blocked this call to move_file: moving files is not allowed here');
    const secret = await harness.client.callTool({ name: 'write_file', arguments: { path: path.join(harness.workspace, 'key.secret'), content: 'x' } });
    expect(resultText(secret)).toContain('secrets stay unwritten');
    expect(harness.elicitations.length).toBe(before);
    expect(existsSync(path.join(harness.workspace, 'notes.txt'))).toBe(true);
  });

  it('asks for a tool with no rule anywhere (the server default), and a top-level rule decides when the server has none', async () => {
    answer = approve('once');
    const before = harness.elicitations.length;
    const info = await harness.client.callTool({ name: 'get_file_info', arguments: { path: path.join(harness.workspace, 'notes.txt') } });
    expect(info.isError).toBeFalsy();
    expect(harness.elicitations.length).toBe(before + 1);
    const allowed = await harness.client.callTool({ name: 'list_allowed_directories', arguments: {} });
    expect(allowed.isError).toBeFalsy();
    expect(harness.elicitations.length).toBe(before + 1);
  });

  it('remembers "approve for this session" for the same call, and only that call', async () => {
    answer = approve('session');
    const target = path.join(harness.workspace, 'session.txt');
    const before = harness.elicitations.length;
    const confirmedBefore = harness.confirmations.length;
    await harness.client.callTool({ name: 'write_file', arguments: { path: target, content: 'one' } });
    // "For this session" took its second step, which said what it covers.
    expect(harness.confirmations.length).toBe(confirmedBefore + 1);
    expect(harness.confirmations.at(-1)!.message).toContain('“For this session” lets these run without asking: later write_file calls in this session');
    await harness.client.callTool({ name: 'write_file', arguments: { path: target, content: 'one' } });
    expect(harness.elicitations.length).toBe(before + 1);
    await harness.client.callTool({ name: 'write_file', arguments: { path: target, content: 'two' } });
    expect(harness.elicitations.length).toBe(before + 2);
    // Another client is another session: it is asked again.
    let asked = 0;
    const other = await harness.connectClient({ elicit: () => ((asked += 1), { action: 'accept', content: { decision: 'approve' } }) });
    await other.callTool({ name: 'write_file', arguments: { path: target, content: 'one' } });
    expect(asked).toBe(1);
  });

  it('says "timed out" when nobody answers within approval_timeout', async () => {
    answer = () => new Promise(() => undefined);
    const target = path.join(harness.workspace, 'late.txt');
    const result = await harness.client.callTool({ name: 'write_file', arguments: { path: target, content: 'x' } });
    expect(result.isError).toBe(true);
    expect(resultText(result)).toMatch(/approval for this call to write_file timed out \(nobody answered within 5 s\)/);
    expect(existsSync(target)).toBe(false);
  });

  it('denies with instructions when the client cannot elicit and no terminal or other approver is attached', async () => {
    const plain = await harness.connectClient();
    const target = path.join(harness.workspace, 'plain.txt');
    const result = await plain.callTool({ name: 'write_file', arguments: { path: target, content: 'x' } });
    expect(result.isError).toBe(true);
    expect(resultText(result)).toContain('A person can approve it from an MCP client that supports elicitation');
    // The model is told who could approve, never how to widen the policy so that the call goes through.
    expect(resultText(result)).not.toMatch(/approve_all|mode:|: allow/);
    expect(existsSync(target)).toBe(false);
    // Allowed calls still work for such a client.
    const read = await plain.callTool({ name: 'read_text_file', arguments: { path: path.join(harness.workspace, 'notes.txt') } });
    expect(read.isError).toBeFalsy();
  });
});
