/**
 * A server's requests of the client — sampling (its model writes) and
 * elicitation (the person is asked) — through the gateway to a real client,
 * from the real server-everything over stdio: relayed when the policy
 * allows, asked about when it says ask, refused when it blocks, and every
 * one audited as an mcp_access line.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CreateMessageRequestSchema, ElicitRequestSchema, type ElicitRequest, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { everythingServer, resultText, startGatewayHarness, type GatewayHarness } from './mcp-gateway-harness.ts';

let harness: GatewayHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const TOOLS = { 'trigger-sampling-request': 'allow', 'trigger-elicitation-request': 'allow' };

/** A client that samples (answering with `sampled`) and elicits (with `elicit`), as desktop clients do. */
async function capableClient(gateway: GatewayHarness, elicit: (request: ElicitRequest) => ElicitResult): Promise<{ client: Client; sampled: string[]; elicited: string[] }> {
  const sampled: string[] = [];
  const elicited: string[] = [];
  const client = new Client({ name: 'capable-client', version: '1.0.0' }, { capabilities: { sampling: {}, elicitation: {} } });
  client.setRequestHandler(CreateMessageRequestSchema, (request) => {
    sampled.push(JSON.stringify(request.params.messages));
    return { role: 'assistant', content: { type: 'text', text: 'written by the client model' }, model: 'client-model' };
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
    expect(asked.elicited).toEqual(['Please provide inputs for the following fields:']);
    expect(mcpAccess(harness)).toEqual([expect.objectContaining({ method: 'elicitation/create', decision: 'allow' })]);
    await harness.close();

    harness = await startGatewayHarness({ policy: () => ({ mcp: { servers: { everything: { ...everythingServer(), tools: TOOLS, elicitation: 'block' } } } }) });
    const blocked = await capableClient(harness, () => ({ action: 'accept', content: {} }));
    expect((await blocked.client.callTool({ name: 'trigger-elicitation-request', arguments: {} })).isError).toBe(true);
    expect(blocked.elicited).toEqual([]);
  });
});
