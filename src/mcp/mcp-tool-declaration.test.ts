import { describe, expect, it } from 'vitest';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { normalizePolicy } from '../core/policy/normalize-policy.ts';
import { createGate } from '../core/gate.ts';
import { evaluateServerRule, createMcpToolDeclaration, type McpToolEntry } from './mcp-tool-declaration.ts';
import { readUpstreamServers } from './upstream-server-config.ts';

function setup(document: Record<string, unknown>, tool: Partial<Tool> & { name: string }, clientName = tool.name) {
  const { server: serverDocument, ...rest } = document;
  const policy = normalizePolicy({ ...rest, mcp: { servers: { s: { command: 'server', ...(serverDocument as object) } } } });
  const server = readUpstreamServers({ policy, directory: '/tmp' })[0]!;
  const entry: McpToolEntry = { clientName, server, tool: { inputSchema: { type: 'object' }, ...tool }, definitionHash: 'sha256:x', identity: 'mcp:s:x' };
  return { policy, entry };
}

function decide(document: Record<string, unknown>, tool: Partial<Tool> & { name: string }, args: unknown = {}) {
  const { policy, entry } = setup(document, tool);
  return evaluateServerRule({ entry, policy, args })?.decision ?? 'none';
}

const readOnly = { readOnlyHint: true };

describe('evaluateServerRule', () => {
  it('asks for a tool with no rule anywhere', () => {
    expect(decide({}, { name: 't' })).toBe('ask');
  });
  it('follows the server default, and blocks when unknown tools are blocked and the server sets no default', () => {
    expect(decide({ server: { default: 'allow' } }, { name: 't' })).toBe('allow');
    expect(decide({ server: { default: 'block' } }, { name: 't' })).toBe('block');
    expect(decide({ unknown_tools: { decision: 'block' } }, { name: 't' })).toBe('block');
  });
  it('applies the server rule, argument rules first', () => {
    const server = { tools: { t: { decision: 'allow', rules: [{ args: { path: '/etc/.*' }, decision: 'block' }] } } };
    expect(decide({ server }, { name: 't' }, { path: '/home/a' })).toBe('allow');
    expect(decide({ server }, { name: 't' }, { path: '/etc/passwd' })).toBe('block');
  });
  it('leaves the decision to a top-level rule when the server has none', () => {
    expect(decide({ tools: { t: 'allow' } }, { name: 't' })).toBe('none');
  });
  it('lowers a default ask for readOnlyHint only when annotations are trusted', () => {
    expect(decide({ server: { trust_annotations: true } }, { name: 't', annotations: readOnly })).toBe('allow');
    expect(decide({ server: { trust_annotations: false } }, { name: 't', annotations: readOnly })).toBe('ask');
    expect(decide({}, { name: 't', annotations: readOnly })).toBe('ask');
  });
  it('never lowers with destructiveHint, a rule, a default block, or a dangerous keyword', () => {
    expect(decide({ server: { trust_annotations: true } }, { name: 't', annotations: { readOnlyHint: true, destructiveHint: true } })).toBe('ask');
    expect(decide({ server: { trust_annotations: true, tools: { t: 'ask' } } }, { name: 't', annotations: readOnly })).toBe('ask');
    expect(decide({ server: { trust_annotations: true, default: 'block' } }, { name: 't', annotations: readOnly })).toBe('block');
    expect(decide({ unknown_tools: { dangerous_keywords: true }, server: { trust_annotations: true } }, { name: 't', description: 'Deletes things', annotations: readOnly })).toBe('ask');
  });
  it('raises a default allow to ask for a tool that looks dangerous', () => {
    expect(decide({ unknown_tools: { dangerous_keywords: true }, server: { default: 'allow' } }, { name: 'run_shell' })).toBe('ask');
    expect(decide({ unknown_tools: { dangerous_keywords: true }, server: { default: 'allow' } }, { name: 'get_time' })).toBe('allow');
  });
});

describe('the declaration in the gate: most restrictive wins', () => {
  async function verdict(document: Record<string, unknown>, tool: Partial<Tool> & { name: string }) {
    const { policy, entry } = setup(document, tool);
    const gate = createGate({ policy, tools: [createMcpToolDeclaration({ entry, policy, changeNote: () => undefined })] });
    return (await gate.evaluate({ tool: tool.name, args: {}, callId: 'c' }, { sessionId: 's' })).kind;
  }
  it('a top-level allow cannot lower a server ask, and a top-level block or ask_when wins over a server allow', async () => {
    expect(await verdict({ tools: { t: 'allow' }, server: { tools: { t: 'ask' } } }, { name: 't' })).toBe('ask');
    expect(await verdict({ tools: { t: 'block' }, server: { tools: { t: 'allow' } } }, { name: 't' })).toBe('block');
    expect(await verdict({ ask_when: ['t'], server: { tools: { t: 'allow' } } }, { name: 't' })).toBe('ask');
    expect(await verdict({ tools: { t: 'allow' } }, { name: 't' })).toBe('allow');
    expect(await verdict({}, { name: 't' })).toBe('ask');
  });
});

describe('review fixes: a rename or a top-level rule never sheds a block', () => {
  it('a server that blocks by default still blocks a tool a top-level rule allows', async () => {
    expect(decide({ tools: { read_file: 'allow' }, server: { default: 'block' } }, { name: 'read_file' })).toBe('block');
    const { policy, entry } = setup({ tools: { read_file: 'allow' }, server: { default: 'block' } }, { name: 'read_file' });
    const gate = createGate({ policy, tools: [createMcpToolDeclaration({ entry, policy, changeNote: () => undefined })] });
    expect(await gate.authorize({ tool: 'read_file', args: {}, callId: 'c' }, { sessionId: 's' })).toMatchObject({ decision: 'block' });
  });

  it('a tool renamed by a name collision is still hidden by a filter and blocked by a rule that name its server name', async () => {
    for (const document of [{ filter: { deny: ['delete_file'] } }, { tools: { delete_file: 'block' } }, { ask_when: ['delete_file'], mode: 'auto_deny' }]) {
      const { policy, entry } = setup({ ...document, server: { default: 'allow' } }, { name: 'delete_file' }, 's__delete_file');
      const gate = createGate({ policy, tools: [createMcpToolDeclaration({ entry, policy, changeNote: () => undefined })] });
      const result = await gate.authorize({ tool: 's__delete_file', args: {}, callId: 'c' }, { sessionId: 's' });
      expect(result.decision, JSON.stringify(document)).not.toMatch(/^(allow|approved)$/);
      if ('filter' in document) expect(gate.isVisible('s__delete_file')).toBe(false);
    }
    // The allow list admits a tool when any of its names is allowed.
    const { policy, entry } = setup({ filter: { allow: ['s__.*'] }, server: { default: 'allow' } }, { name: 'delete_file' }, 's__delete_file');
    const gate = createGate({ policy, tools: [createMcpToolDeclaration({ entry, policy, changeNote: () => undefined })] });
    expect(gate.isVisible('s__delete_file')).toBe(true);
  });
});
