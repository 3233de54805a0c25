/**
 * A server's requests of the client — sampling (its model writes) and
 * elicitation (the person is asked) — through the gateway to a real client,
 * from the real server-everything over stdio: relayed when the policy
 * allows, asked about when it says ask, refused when it blocks, and every
 * one audited as an mcp_access line.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CreateMessageRequestSchema, ElicitRequestSchema, type ElicitRequest, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { everythingServer, resultText, startGatewayHarness, startHttpGatewayProcess, type GatewayHarness } from './mcp-gateway-harness.ts';

let harness: GatewayHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const TOOLS = { 'trigger-sampling-request': 'allow', 'trigger-elicitation-request': 'allow' };

/** A client that samples (answering with `sampled`) and elicits (with `elicit`), as desktop clients do. */
async function capableClient(
  gateway: GatewayHarness,
  elicit: (request: ElicitRequest) => ElicitResult,
  options: { model?: string; beforeSampling?: () => Promise<void> } = {},
): Promise<{ client: Client; sampled: string[]; elicited: string[] }> {
  const sampled: string[] = [];
  const elicited: string[] = [];
  const client = new Client({ name: 'capable-client', version: '1.0.0' }, { capabilities: { sampling: {}, elicitation: {} } });
  client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
    sampled.push(JSON.stringify(request.params.messages));
    await options.beforeSampling?.();
    return { role: 'assistant', content: { type: 'text', text: `written by the ${options.model ?? 'client'} model` }, model: 'client-model' };
  });
  client.setRequestHandler(ElicitRequestSchema, (request) => {
    elicited.push(request.params.message);
    return elicit(request);
  });
  await gateway.attach(client);
  return { client, sampled, elicited };
}

const samplingCall = (client: Client) => client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'say hi', maxTokens: 10 } });
const mcpAccess = (gateway: GatewayHarness) => gateway.audit().filter((line) => line.kind === 'mcp_access');

describe("a server's requests of the client", () => {
  it('sampling allowed: relayed to the client model, audited', async () => {
    harness = await startGatewayHarness({ policy: () => ({ mcp: { servers: { everything: { ...everythingServer(), tools: TOOLS, sampling: 'allow' } } } }) });
    const { client, sampled } = await capableClient(harness, () => ({ action: 'decline' }));
    expect(resultText(await samplingCall(client))).toContain('written by the client model');
    expect(sampled).toHaveLength(1);
    expect(sampled[0]).toContain('say hi');
    expect(mcpAccess(harness)).toEqual([expect.objectContaining({ method: 'sampling/createMessage', server: 'everything', decision: 'allow', rule: 'mcp.servers.everything.sampling' })]);
  });

  it('sampling that asks (the default): the person decides first; declined, the client model is never asked', async () => {
    let approve = false;
    harness = await startGatewayHarness({ policy: () => ({ mcp: { servers: { everything: { ...everythingServer(), tools: TOOLS } } } }) });
    const { client, sampled, elicited } = await capableClient(harness, () => (approve ? { action: 'accept', content: { decision: 'approve', scope: 'once' } } : { action: 'decline' }));
    expect((await samplingCall(client)).isError).toBe(true);
    expect(sampled).toHaveLength(0);
    expect(elicited[0]).toContain('sampling/createMessage by MCP server "everything"');
    approve = true;
    expect(resultText(await samplingCall(client))).toContain('written by the client model');
    expect(mcpAccess(harness).map((line) => [line.decision, line.source])).toEqual([
      ['denied', 'person'],
      ['approved', 'person'],
    ]);
  });

  it('sampling blocked: refused without asking anyone', async () => {
    harness = await startGatewayHarness({ policy: () => ({ mcp: { servers: { everything: { ...everythingServer(), tools: TOOLS, sampling: 'block' } } } }) });
    const { client, sampled, elicited } = await capableClient(harness, () => ({ action: 'decline' }));
    expect((await samplingCall(client)).isError).toBe(true);
    expect(sampled).toHaveLength(0);
    expect(elicited).toHaveLength(0);
    expect(mcpAccess(harness)).toEqual([expect.objectContaining({ method: 'sampling/createMessage', decision: 'block', source: 'policy' })]);
  });

  it("elicitation reaches the person through the client (allowed unless blocked), and a block keeps the server's question from them", async () => {
    harness = await startGatewayHarness({ policy: () => ({ mcp: { servers: { everything: { ...everythingServer(), tools: TOOLS } } } }) });
    const asked = await capableClient(harness, () => ({ action: 'decline' }));
    expect(resultText(await asked.client.callTool({ name: 'trigger-elicitation-request', arguments: {} }))).toMatch(/declin/i);
    // Said to come from the server, so that no server can word a question to pass for toolgate's own approval.
    expect(asked.elicited).toEqual(['MCP server "everything" asks (this is not a toolgate approval):\n\nPlease provide inputs for the following fields:']);
    expect(mcpAccess(harness)).toEqual([expect.objectContaining({ method: 'elicitation/create', decision: 'allow' })]);
    await harness.close();

    harness = await startGatewayHarness({ policy: () => ({ mcp: { servers: { everything: { ...everythingServer(), tools: TOOLS, elicitation: 'block' } } } }) });
    const blocked = await capableClient(harness, () => ({ action: 'accept', content: {} }));
    expect((await blocked.client.callTool({ name: 'trigger-elicitation-request', arguments: {} })).isError).toBe(true);
    expect(blocked.elicited).toEqual([]);
  });

  it("with several capable clients, the one whose call the server is serving is asked, never another's model or person", async () => {
    harness = await startGatewayHarness({ policy: () => ({ mcp: { servers: { everything: { ...everythingServer(), tools: TOOLS, sampling: 'allow' } } } }) });
    let releaseAlice: () => void = () => undefined;
    let holdAlice = false;
    const alice = await capableClient(harness, () => ({ action: 'decline' }), {
      model: 'alice',
      beforeSampling: () => (holdAlice ? new Promise<void>((resolve) => (releaseAlice = resolve)) : Promise.resolve()),
    });
    const bob = await capableClient(harness, () => ({ action: 'decline' }), { model: 'bob' });
    expect(resultText(await samplingCall(alice.client))).toContain('written by the alice model');
    expect(resultText(await samplingCall(bob.client))).toContain('written by the bob model');
    expect([alice.sampled.length, bob.sampled.length]).toEqual([1, 1]);
    expect(resultText(await bob.client.callTool({ name: 'trigger-elicitation-request', arguments: {} }))).toMatch(/declin/i);
    expect([alice.elicited.length, bob.elicited.length]).toEqual([0, 1]);

    // Both calls under way at once: whose the server's request is cannot be told, so it is refused, and nobody's model writes for it.
    holdAlice = true;
    const aliceCall = samplingCall(alice.client);
    await vi.waitFor(() => expect(alice.sampled).toHaveLength(2));
    const bobResult = await samplingCall(bob.client);
    expect(bobResult.isError).toBe(true);
    expect(resultText(bobResult)).toContain('which one it means cannot be told');
    expect(bob.sampled).toHaveLength(1);
    releaseAlice();
    expect(resultText(await aliceCall)).toContain('written by the alice model');
  });
});

describe("a server's requests of its clients over Streamable HTTP (toolgate mcp --http, two clients)", () => {
  it("each client's call is answered by its own model", async () => {
    const directory = mkdtempSync(path.join(os.tmpdir(), 'toolgate-http-sampling-'));
    const policyPath = path.join(directory, 'toolgate.json');
    writeFileSync(policyPath, JSON.stringify({ mcp: { servers: { everything: { ...everythingServer(), tools: TOOLS, sampling: 'allow' } } } }));
    const token = 'sampling-token-0123456789abcdef';
    const gateway = await startHttpGatewayProcess({ policyPath, token });
    const clients: Client[] = [];
    try {
      const connect = async (model: string) => {
        const sampled: string[] = [];
        const client = new Client({ name: `http-${model}`, version: '1.0.0' }, { capabilities: { sampling: {} } });
        client.setRequestHandler(CreateMessageRequestSchema, (request) => {
          sampled.push(JSON.stringify(request.params.messages));
          return { role: 'assistant', content: { type: 'text', text: `written by the ${model} model` }, model };
        });
        await client.connect(new StreamableHTTPClientTransport(new URL(gateway.url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
        clients.push(client);
        return { client, sampled };
      };
      const alice = await connect('alice');
      const bob = await connect('bob');
      expect(resultText(await samplingCall(bob.client))).toContain('written by the bob model');
      expect(resultText(await samplingCall(alice.client))).toContain('written by the alice model');
      expect([alice.sampled.length, bob.sampled.length]).toEqual([1, 1]);
    } finally {
      await Promise.allSettled(clients.map((client) => client.close()));
      await gateway.stop();
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
