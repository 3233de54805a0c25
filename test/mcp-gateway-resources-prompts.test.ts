/**
 * Resources, prompts and completions go through the policy, against the
 * real server-everything over stdio: what is blocked is not listed and not
 * served, what asks asks a person (and is audited), completions never ask,
 * and instructions that name tools clients are not offered are not passed on.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { approve, everythingServer, startGatewayHarness, type ElicitHandler, type GatewayHarness } from './mcp-gateway-harness.ts';

let harness: GatewayHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const STATIC_DOCUMENT = /^demo:\/\/resource\/static\/document\//;

describe('resources and prompts through the policy', () => {
  it('ask by default (the server has no default): a person decides each read and prompt, and it is audited', async () => {
    let answer: ElicitHandler = approve('once');
    harness = await startGatewayHarness({ policy: () => ({ mcp: { servers: { everything: everythingServer() } } }), elicit: (request) => answer(request) });
    const { client } = harness;
    const first = (await client.listResources()).resources[0]!;
    expect((await client.readResource({ uri: first.uri })).contents[0]?.uri).toBe(first.uri);
    expect(harness.elicitations).toHaveLength(1);
    expect(harness.elicitations[0]!.message).toContain('resources/read');
    expect(harness.elicitations[0]!.message).toContain(first.uri);
    expect((await client.getPrompt({ name: 'simple-prompt' })).messages.length).toBeGreaterThan(0);
    expect(harness.elicitations).toHaveLength(2);

    answer = () => ({ action: 'accept', content: { decision: 'deny', reason: 'not that one' } });
    await expect(client.readResource({ uri: first.uri })).rejects.toThrow(/was not approved: not that one/);
    // Completions are suggestions typed as you go: an ask never asks, and nothing is suggested.
    const completion = await client.complete({ ref: { type: 'ref/prompt', name: 'completable-prompt' }, argument: { name: 'department', value: 'E' } });
    expect(completion.completion.values).toEqual([]);
    expect(harness.elicitations).toHaveLength(3);

    const access = harness.audit().filter((line) => line.kind === 'mcp_access');
    expect(access.map((line) => [line.method, line.decision, line.source])).toEqual([
      ['resources/read', 'approved', 'person'],
      ['prompts/get', 'approved', 'person'],
      ['resources/read', 'denied', 'person'],
    ]);
    expect(access[0]).toMatchObject({ v: 1, server: 'everything', target: first.uri, rule: 'mcp.servers.everything (no default: ask)' });
  });

  it('a blocking server serves only what its rules allow: the rest is neither listed nor read, prompts and templates included', async () => {
    harness = await startGatewayHarness({
      policy: () => ({
        mcp: { servers: { everything: { ...everythingServer(), default: 'block', resources: { rules: [{ uri: 'demo://resource/static/document/.*', decision: 'allow' }] } } } },
      }),
      elicit: approve('once'),
    });
    const { client } = harness;
    const listed = (await client.listResources()).resources.map((resource) => resource.uri);
    expect(listed.length).toBeGreaterThan(0);
    for (const uri of listed) expect(uri).toMatch(STATIC_DOCUMENT);
    expect((await client.readResource({ uri: listed[0]! })).contents.length).toBeGreaterThan(0);
    await expect(client.readResource({ uri: 'demo://resource/dynamic/text/7' })).rejects.toThrow(/is blocked by mcp\.servers\.everything\.default/);
    expect((await client.listPrompts()).prompts).toEqual([]);
    await expect(client.getPrompt({ name: 'simple-prompt' })).rejects.toThrow(/not found/);
    expect(harness.elicitations).toHaveLength(0);
    const blocked = harness.audit().find((line) => line.kind === 'mcp_access' && line.decision === 'block');
    expect(blocked).toMatchObject({ method: 'resources/read', target: 'demo://resource/dynamic/text/7', source: 'policy' });
    // Through an allowed prefix with "..": not served on the allow rule's word (the server would resolve it to a blocked resource); a person is asked.
    const sneaky = 'demo://resource/static/document/../../dynamic/text/7';
    await client.readResource({ uri: sneaky });
    expect(harness.elicitations).toHaveLength(1);
    expect(harness.elicitations[0]!.message).toContain(sneaky);
  });

  it('plain block hides resource templates and every resource', async () => {
    harness = await startGatewayHarness({ policy: () => ({ mcp: { servers: { everything: { ...everythingServer(), default: 'allow', resources: 'block', prompts: 'allow' } } } }) });
    expect((await harness.client.listResources()).resources).toEqual([]);
    expect((await harness.client.listResourceTemplates()).resourceTemplates).toEqual([]);
    expect((await harness.client.listPrompts()).prompts.map((prompt) => prompt.name)).toContain('simple-prompt');
  });

  it("does not pass on a server's instructions that name a tool clients are not offered", async () => {
    harness = await startGatewayHarness({ policy: () => ({ mcp: { servers: { everything: { ...everythingServer(), default: 'allow' } } } }) });
    expect(harness.client.getInstructions()).toContain('toggle-simulated-logging');
    await harness.close();
    harness = await startGatewayHarness({ policy: () => ({ mcp: { servers: { everything: { ...everythingServer(), default: 'allow', filter: { deny: ['toggle-simulated-logging'] } } } } }) });
    const instructions = harness.client.getInstructions() ?? '';
    expect(instructions).not.toContain('toggle-simulated-logging');
    expect(instructions).toContain("this server's instructions are not passed on");
    expect(harness.logs.some((line) => line.includes('not passing on the instructions of server "everything"'))).toBe(true);
  });
});
