/**
 * The gateway in front of the real @modelcontextprotocol/server-everything
 * over stdio: trusted annotations, the dangerous-keyword heuristic,
 * namespacing on collision, and resources, prompts, completion and logging
 * passing through.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { LoggingMessageNotificationSchema, ResourceUpdatedNotificationSchema, type LoggingMessageNotification } from '@modelcontextprotocol/sdk/types.js';
import { approve, eventually, everythingServer, filesystemServer, fixtureServer, resultText, startGatewayHarness, type GatewayHarness } from './mcp-gateway-harness.ts';

let harness: GatewayHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('annotations', () => {
  it('with trust_annotations: true, a readOnlyHint tool without a rule is allowed without asking', async () => {
    harness = await startGatewayHarness({ policy: () => ({ mcp: { servers: { everything: { ...everythingServer(), trust_annotations: true } } } }), elicit: approve() });
    const result = await harness.client.callTool({ name: 'get-sum', arguments: { a: 2, b: 3 } });
    expect(resultText(result)).toContain('The sum of 2 and 3 is 5');
    expect(harness.elicitations).toHaveLength(0);
    // Not read-only: still asks.
    await harness.client.callTool({ name: 'toggle-simulated-logging', arguments: {} });
    expect(harness.elicitations).toHaveLength(1);
  });

  it('with trust_annotations: false (the default), the same tool asks', async () => {
    harness = await startGatewayHarness({ policy: () => ({ mcp: { servers: { everything: { ...everythingServer(), trust_annotations: false } } } }), elicit: approve() });
    const result = await harness.client.callTool({ name: 'get-sum', arguments: { a: 2, b: 3 } });
    expect(resultText(result)).toContain('The sum of 2 and 3 is 5');
    expect(harness.elicitations).toHaveLength(1);
    expect(harness.elicitations[0]!.message).toContain('"get-sum" on MCP server "everything"');
  });

  it('a trusted readOnlyHint never lowers a destructive tool, a rule, or the dangerous-keyword heuristic', async () => {
    harness = await startGatewayHarness({
      policy: ({ workspace }) => ({
        unknown_tools: { dangerous_keywords: ['sum'] },
        mcp: {
          servers: {
            everything: { ...everythingServer(), trust_annotations: true, tools: { echo: 'ask' } },
            filesystem: { ...filesystemServer(workspace), trust_annotations: true },
          },
        },
      }),
      elicit: () => ({ action: 'decline' }),
    });
    const sum = await harness.client.callTool({ name: 'get-sum', arguments: { a: 1, b: 1 } });
    expect(sum.isError).toBe(true);
    const echo = await harness.client.callTool({ name: 'echo', arguments: { message: 'hi' } });
    expect(echo.isError).toBe(true);
    // write_file: readOnlyHint false, destructiveHint true.
    const write = await harness.client.callTool({ name: 'write_file', arguments: { path: `${harness.workspace}/x.txt`, content: 'x' } });
    expect(write.isError).toBe(true);
    expect(harness.elicitations).toHaveLength(3);
    // read-only, no keyword, trusted: allowed.
    const list = await harness.client.callTool({ name: 'list_allowed_directories', arguments: {} });
    expect(list.isError).toBeFalsy();
    expect(harness.elicitations).toHaveLength(3);
  });
});

describe('namespacing', () => {
  it('prefixes colliding names with the namespace (or the server name) and routes each to its server', async () => {
    harness = await startGatewayHarness({
      policy: () => ({
        mcp: {
          servers: {
            everything: { ...everythingServer(), default: 'allow' },
            fixture: { ...fixtureServer(), namespace: 'fx', default: 'allow' },
          },
        },
      }),
    });
    const names = (await harness.client.listTools()).tools.map((tool) => tool.name);
    expect(names).toContain('everything__echo');
    expect(names).toContain('fx__echo');
    expect(names).not.toContain('echo');
    expect(names).toContain('get-sum');
    expect(names).toContain('change_definition');
    expect(resultText(await harness.client.callTool({ name: 'fx__echo', arguments: { text: 'from the fixture' } }))).toBe('from the fixture');
    expect(resultText(await harness.client.callTool({ name: 'everything__echo', arguments: { message: 'from everything' } }))).toContain('from everything');
  });

  it('prefixes every name with --namespace always', async () => {
    harness = await startGatewayHarness({ policy: () => ({ mcp: { servers: { fixture: { ...fixtureServer(), default: 'allow' } } } }), gateway: { namespacing: 'always' } });
    const names = (await harness.client.listTools()).tools.map((tool) => tool.name);
    expect(names.sort()).toEqual(['fixture__change_definition', 'fixture__crash', 'fixture__echo', 'fixture__env', 'fixture__hang', 'fixture__pid']);
  });
});

describe('pass-through', () => {
  it('passes resources, resource templates, prompts and completion through', async () => {
    harness = await startGatewayHarness({ policy: () => ({ mcp: { servers: { everything: { ...everythingServer(), resources: 'allow', prompts: 'allow' } } } }) });
    const { client } = harness;
    const resources = await client.listResources();
    expect(resources.resources.length).toBeGreaterThan(0);
    const first = resources.resources[0]!;
    const read = await client.readResource({ uri: first.uri });
    expect(read.contents[0]?.uri).toBe(first.uri);
    const templates = await client.listResourceTemplates();
    expect(templates.resourceTemplates.map((template) => template.uriTemplate)).toContain('demo://resource/dynamic/text/{resourceId}');
    const dynamic = await client.readResource({ uri: 'demo://resource/dynamic/text/7' });
    expect(JSON.stringify(dynamic.contents)).toContain('Resource 7');
    const prompts = await client.listPrompts();
    expect(prompts.prompts.map((prompt) => prompt.name)).toContain('simple-prompt');
    const prompt = await client.getPrompt({ name: 'simple-prompt' });
    expect(prompt.messages.length).toBeGreaterThan(0);
    const completion = await client.complete({ ref: { type: 'ref/prompt', name: 'completable-prompt' }, argument: { name: 'department', value: 'E' } });
    expect(completion.completion.values).toContain('Engineering');
    await expect(client.readResource({ uri: 'nothing://here' })).rejects.toThrow(/Resource nothing:\/\/here not found|not found/);
  });

  it('forwards log messages (with the server in the logger) and logging/setLevel', async () => {
    harness = await startGatewayHarness({ policy: () => ({ mcp: { servers: { everything: { ...everythingServer(), tools: { 'toggle-simulated-logging': 'allow' } } } } }) });
    const messages: LoggingMessageNotification['params'][] = [];
    harness.client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => void messages.push(notification.params));
    await harness.client.setLoggingLevel('debug');
    await harness.client.callTool({ name: 'toggle-simulated-logging', arguments: {} });
    const message = await eventually(async () => messages[0]);
    expect(message.logger).toMatch(/^everything/);
    expect(String(message.data)).toMatch(/message/i);
  });

  it('forwards resource subscriptions and the updates that follow', async () => {
    harness = await startGatewayHarness({ policy: () => ({ mcp: { servers: { everything: { ...everythingServer(), resources: 'allow', tools: { 'toggle-subscriber-updates': 'allow' } } } } }) });
    const updated: string[] = [];
    harness.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => void updated.push(notification.params.uri));
    const uri = (await harness.client.listResources()).resources[0]!.uri;
    await harness.client.subscribeResource({ uri });
    await harness.client.callTool({ name: 'toggle-subscriber-updates', arguments: {} });
    expect(await eventually(async () => updated.find((each) => each === uri), 8000)).toBe(uri);
    await harness.client.unsubscribeResource({ uri });
  });

  it('forwards progress notifications of a call to the client that asked for them', async () => {
    harness = await startGatewayHarness({ policy: () => ({ mcp: { servers: { everything: { ...everythingServer(), tools: { 'trigger-long-running-operation': 'allow' } } } } }) });
    const progress: number[] = [];
    const result = await harness.client.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 0.3, steps: 3 } }, undefined, {
      onprogress: (update) => void progress.push(update.progress),
    });
    expect(result.isError).toBeFalsy();
    expect(progress).toEqual([1, 2, 3]);
  });
});
