/**
 * Tool names that can pass for others, from a real upstream server over
 * stdio: a zero-width character, fullwidth letters and a Cyrillic look-alike
 * of `delete_file`, which the policy blocks. None is listed, none reaches the
 * server when called by name anyway, and the log shows each escaped.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createGate } from '../src/core/gate.ts';
import { normalizePolicy } from '../src/core/policy/normalize-policy.ts';
import { fixtureServer, resultText, startGatewayHarness, type GatewayHarness } from './mcp-gateway-harness.ts';

const LOOK_ALIKES = ['delete\u200bfile', 'ｄｅｌｅｔｅ_file', 'd\u0435lete_file', 'delete_file\u202e'];

let harness: GatewayHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('tool names that can pass for others', () => {
  it('are not listed by the gateway, are refused when called by name, and are logged escaped', async () => {
    harness = await startGatewayHarness({
      policy: () => ({ tools: { delete_file: 'block' }, mcp: { servers: { fixture: { ...fixtureServer(), env: { FIXTURE_EXTRA_TOOLS: JSON.stringify(['delete_file', 'safe.name-2', ...LOOK_ALIKES]) }, default: 'allow' } } } }),
    });
    const listed = (await harness.client.listTools()).tools.map((tool) => tool.name);
    expect(listed).toContain('safe.name-2');
    // Blocked by the policy whatever its arguments: not offered either.
    expect(listed).not.toContain('delete_file');
    for (const name of LOOK_ALIKES) expect(listed).not.toContain(name);
    // Called by name all the same: an unknown tool to the client, and the server never runs it.
    for (const name of LOOK_ALIKES) await expect(harness.client.callTool({ name, arguments: {} }), name).rejects.toThrow(/Unknown tool/);
    const refused = await harness.client.callTool({ name: 'delete_file', arguments: {} });
    expect(refused.isError).toBe(true);
    expect(resultText(refused)).toContain('tools.delete_file');
    expect(resultText(await harness.client.callTool({ name: 'safe.name-2', arguments: {} }))).toBe('ran safe.name-2');
    const refusals = harness.logs.filter((line) => line.includes("is not a tool name of the MCP specification's characters"));
    expect(refusals).toHaveLength(LOOK_ALIKES.length);
    expect(refusals.join('\n')).toContain('delete\\u200bfile');
    expect(refusals.join('\n')).toContain('mixes letters of the Latin and Cyrillic scripts');
    expect(refusals.join('\n')).toContain('reads as "delete_file"');
    for (const line of refusals) expect(line).not.toMatch(/[\u200b\u202e]/);
  });
});

describe('the gate, for every entry point', () => {
  it('blocks a look-alike name instead of judging it as written, and hides it, with the name escaped in the reason', async () => {
    const gate = createGate({ policy: normalizePolicy({ tools: { delete_file: 'block' }, unknown_tools: { decision: 'allow' } }), openWorld: true });
    for (const name of LOOK_ALIKES) {
      const result = await gate.authorize({ tool: name, args: {}, callId: 'c1' }, { sessionId: 's' });
      expect(result.decision, name).toBe('block');
      expect(result.reason).toContain('is never judged as written');
      expect(result.reason).not.toMatch(/[\u200b\u202e]/);
      expect(gate.isVisible(name)).toBe(false);
    }
    expect((await gate.authorize({ tool: 'delete_file', args: {}, callId: 'c2' }, { sessionId: 's' })).decision).toBe('block');
    for (const name of ['read_file', 'удалить_файл', '写入ファイル', 'tool_2.v1']) {
      expect((await gate.authorize({ tool: name, args: {}, callId: 'c3' }, { sessionId: 's' })).decision, name).toBe('allow');
    }
  });
});
