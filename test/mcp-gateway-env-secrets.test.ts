/**
 * Secrets for upstream servers from toolgate's environment, never the
 * policy: `${VAR}` in a server's env, and `env_from`, reach a real server
 * over stdio; nothing else of the gateway's environment does; a rotated
 * value is another server identity, so an "always" approval made under the
 * old one does not carry over.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { approve, fixtureServer, resultText, startGatewayHarness, type GatewayHarness } from './mcp-gateway-harness.ts';

let harness: GatewayHarness | undefined;
const saved = { ...process.env };
afterEach(async () => {
  await harness?.close();
  harness = undefined;
  for (const name of ['TG_TEST_SECRET', 'TG_TEST_PASSED', 'TG_TEST_UNRELATED']) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
});

const policy = (extra: Record<string, unknown> = {}) => ({
  ...extra,
  mcp: { servers: { fixture: { ...fixtureServer(), env: { FIXTURE_SECRET: 'token=${TG_TEST_SECRET}' }, env_from: ['TG_TEST_PASSED'], tools: { env: 'allow', echo: 'ask' } } } },
});

describe('secrets from the environment', () => {
  it('reach the server through ${VAR} and env_from, and nothing else of the environment does', async () => {
    process.env.TG_TEST_SECRET = 's3cr3t-value';
    process.env.TG_TEST_PASSED = 'passed-as-is';
    process.env.TG_TEST_UNRELATED = 'stays-home';
    harness = await startGatewayHarness({ policy: () => policy() });
    const env = async (name: string) => resultText(await harness!.client.callTool({ name: 'env', arguments: { name } }));
    expect(await env('FIXTURE_SECRET')).toBe('token=s3cr3t-value');
    expect(await env('TG_TEST_PASSED')).toBe('passed-as-is');
    expect(await env('TG_TEST_UNRELATED')).toBe('unset');
    expect(readFileSync(path.join(harness.directory, 'toolgate.json'), 'utf8')).not.toContain('s3cr3t-value');
    expect(harness.logs.join('\n')).not.toContain('s3cr3t-value');
  });

  it('binds "always" approvals to the values: after a rotation the same call asks again', async () => {
    // Both gateways keep "always" in one approvals file.
    const approvals = { approvals: { path: path.join(mkdtempSync(path.join(os.tmpdir(), 'toolgate-shared-')), 'approvals.json') } };
    process.env.TG_TEST_SECRET = 'first';
    process.env.TG_TEST_PASSED = 'unchanged';
    harness = await startGatewayHarness({ policy: () => policy(approvals), elicit: approve('always') });
    expect(resultText(await harness.client.callTool({ name: 'echo', arguments: { text: 'x' } }))).toBe('x');
    expect(resultText(await harness.client.callTool({ name: 'echo', arguments: { text: 'x' } }))).toBe('x');
    expect(harness.elicitations).toHaveLength(1);
    await harness.close();

    process.env.TG_TEST_SECRET = 'first';
    harness = await startGatewayHarness({ policy: () => policy(approvals), elicit: approve('once') });
    expect(resultText(await harness.client.callTool({ name: 'echo', arguments: { text: 'x' } }))).toBe('x');
    expect(harness.elicitations).toHaveLength(0);
    await harness.close();

    process.env.TG_TEST_SECRET = 'rotated';
    harness = await startGatewayHarness({ policy: () => policy(approvals), elicit: approve('once') });
    expect(resultText(await harness.client.callTool({ name: 'echo', arguments: { text: 'x' } }))).toBe('x');
    expect(harness.elicitations).toHaveLength(1);
    expect(readFileSync(approvals.approvals.path, 'utf8')).not.toMatch(/first|rotated/);
  });
});
