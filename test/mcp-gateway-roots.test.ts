/**
 * A client's roots reach the servers behind the gateway (they used to
 * vanish): server-everything's get-roots-list and server-filesystem's
 * allowed directories follow the client's roots, and a change of roots
 * reaches them too. With several clients sharing roots, whose a server
 * should use cannot be told, so none are given.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ListRootsRequestSchema, type Root } from '@modelcontextprotocol/sdk/types.js';
import { eventually, everythingServer, filesystemServer, resultText, startGatewayHarness, type GatewayHarness } from './mcp-gateway-harness.ts';

let harness: GatewayHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** A client of the gateway that shares `roots` (changeable later). */
async function clientWithRoots(gateway: GatewayHarness, roots: Root[]): Promise<{ client: Client; setRoots(next: Root[]): Promise<void> }> {
  let current = roots;
  const client = new Client({ name: 'roots-client', version: '1.0.0' }, { capabilities: { roots: { listChanged: true } } });
  client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: current }));
  await gateway.attach(client);
  return {
    client,
    async setRoots(next) {
      current = next;
      await client.sendRootsListChanged();
    },
  };
}

describe("a client's roots", () => {
  it('reach server-everything through the gateway, and so do their changes', async () => {
    harness = await startGatewayHarness({ policy: () => ({ mcp: { servers: { everything: { ...everythingServer(), tools: { 'get-roots-list': 'allow' } } } } }) });
    const { client, setRoots } = await clientWithRoots(harness, [{ uri: 'file:///home/me/project', name: 'project' }]);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('get-roots-list');
    expect(resultText(await client.callTool({ name: 'get-roots-list', arguments: {} }))).toContain('file:///home/me/project');
    await setRoots([{ uri: 'file:///home/me/other', name: 'other' }]);
    await eventually(async () => (resultText(await client.callTool({ name: 'get-roots-list', arguments: {} })).includes('file:///home/me/other') ? true : undefined));
  });

  it('become the directories server-filesystem allows', async () => {
    harness = await startGatewayHarness({ policy: ({ workspace }) => ({ mcp: { servers: { files: { ...filesystemServer(workspace), tools: { list_allowed_directories: 'allow' } } } } }) });
    const shared = path.join(harness.workspace, 'shared');
    mkdirSync(shared, { recursive: true });
    const { client } = await clientWithRoots(harness, [{ uri: pathToFileURL(shared).href, name: 'shared' }]);
    const allowed = await eventually(async () => {
      const text = resultText(await client.callTool({ name: 'list_allowed_directories', arguments: {} }));
      return text.includes(shared) ? text : undefined;
    });
    expect(allowed).toContain(shared);
  });

  it('are not given when two clients share roots: whose a server should use cannot be told', async () => {
    harness = await startGatewayHarness({ policy: () => ({ mcp: { servers: { everything: { ...everythingServer(), tools: { 'get-roots-list': 'allow' } } } } }) });
    const first = await clientWithRoots(harness, [{ uri: 'file:///home/alice', name: 'alice' }]);
    const second = await clientWithRoots(harness, [{ uri: 'file:///home/bob', name: 'bob' }]);
    const text = resultText(await first.client.callTool({ name: 'get-roots-list', arguments: {} }));
    expect(text).not.toContain('file:///home/alice');
    expect(text).not.toContain('file:///home/bob');
    // Once bob has gone, alice is the only client sharing roots: the server is told, asks again, and gets hers.
    await second.client.close();
    await eventually(async () => (resultText(await first.client.callTool({ name: 'get-roots-list', arguments: {} })).includes('file:///home/alice') ? true : undefined));
  });
});
