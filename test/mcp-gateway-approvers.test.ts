/**
 * Who is asked, in order: MCP elicitation when the client supports it, then
 * the terminal approver, then the `approver` hook (the web inbox), then a
 * denial that says how to approve. Also the policy's mode, which answers
 * before anyone is asked.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Approver, PresentedRequest } from '../src/core/approver.ts';
import { approve, fixtureServer, resultText, startGatewayHarness, type GatewayHarness } from './mcp-gateway-harness.ts';

let harness: GatewayHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

function recording(answer: 'approve' | 'deny'): Approver & { asked: PresentedRequest[] } {
  const asked: PresentedRequest[] = [];
  return {
    asked,
    ask: async (request) => {
      asked.push(request);
      return answer === 'approve' ? { approved: true, scope: 'once' } : { approved: false, scope: 'once', reason: 'not from the inbox' };
    },
  };
}

const policy = () => ({ mcp: { servers: { fixture: fixtureServer() } } });

describe('choosing who to ask', () => {
  it('asks the terminal when the client cannot elicit, before the approver hook', async () => {
    const terminal = recording('approve');
    const inbox = recording('deny');
    harness = await startGatewayHarness({ policy, gateway: { terminalApprover: terminal, approver: inbox } });
    const result = await harness.client.callTool({ name: 'echo', arguments: { text: 'via the terminal' } });
    expect(resultText(result)).toBe('via the terminal');
    expect(terminal.asked).toHaveLength(1);
    expect(terminal.asked[0]).toMatchObject({ tool: 'echo', call: { args: { text: 'via the terminal' } } });
    expect(terminal.asked[0]!.presentation).toMatchObject({ type: 'structured', metadata: { server: 'fixture', upstreamTool: 'echo' } });
    expect(inbox.asked).toHaveLength(0);
  });

  it('asks the approver hook when there is neither elicitation nor a terminal', async () => {
    const inbox = recording('deny');
    harness = await startGatewayHarness({ policy, gateway: { approver: inbox } });
    const result = await harness.client.callTool({ name: 'echo', arguments: { text: 'x' } });
    expect(result.isError).toBe(true);
    expect(resultText(result)).toContain('not from the inbox');
    expect(inbox.asked).toHaveLength(1);
  });

  it('prefers elicitation when the client supports it', async () => {
    const terminal = recording('deny');
    harness = await startGatewayHarness({ policy, elicit: approve(), gateway: { terminalApprover: terminal } });
    expect(resultText(await harness.client.callTool({ name: 'echo', arguments: { text: 'elicited' } }))).toBe('elicited');
    expect(harness.elicitations).toHaveLength(1);
    expect(terminal.asked).toHaveLength(0);
  });

  it('lets the mode answer before anyone is asked, and never lets it override a block', async () => {
    harness = await startGatewayHarness({
      policy: () => ({ mode: 'approve_all', mcp: { servers: { fixture: { ...fixtureServer(), tools: { crash: 'block' } } } } }),
      elicit: approve(),
    });
    expect(resultText(await harness.client.callTool({ name: 'echo', arguments: { text: 'approved by mode' } }))).toBe('approved by mode');
    const crash = await harness.client.callTool({ name: 'crash', arguments: {} });
    expect(resultText(crash)).toContain('toolgate blocked this call to crash');
    expect(harness.elicitations).toHaveLength(0);
    expect(harness.gateway.upstreams()[0]!.state).toBe('ready');
  });

  it('denies in auto_deny mode with the mode as the reason', async () => {
    harness = await startGatewayHarness({ policy: () => ({ mode: 'auto_deny', mcp: { servers: { fixture: fixtureServer() } } }), elicit: approve() });
    const result = await harness.client.callTool({ name: 'echo', arguments: { text: 'x' } });
    expect(result.isError).toBe(true);
    expect(resultText(result)).toMatch(/was not approved: .*auto_deny/);
    expect(harness.elicitations).toHaveLength(0);
  });
});

describe('--approver: who is asked, whatever the client supports', () => {
  it('none: nobody, not even a client that elicits; the denial says why and how to decide', async () => {
    const terminal = recording('approve');
    harness = await startGatewayHarness({ policy, elicit: approve('once'), gateway: { approverChoice: 'none', terminalApprover: terminal } });
    const result = await harness.client.callTool({ name: 'echo', arguments: { text: 'x' } });
    expect(result.isError).toBe(true);
    expect(resultText(result)).toContain('--approver none');
    // Which rule asked, and how a person could be asked; never a rule or a mode that lets the call through.
    expect(resultText(result)).toMatch(/needs approval \(asked by mcp\.servers\.fixture\S*/);
    expect(resultText(result)).toContain('start it with --approver elicitation');
    expect(resultText(result)).not.toMatch(/: allow|approve_all|approve-all/);
    expect(harness.elicitations).toHaveLength(0);
    expect(terminal.asked).toHaveLength(0);
  });

  it('terminal: the terminal, also when the client would answer elicitation itself', async () => {
    const terminal = recording('approve');
    harness = await startGatewayHarness({ policy, elicit: approve('once'), gateway: { approverChoice: 'terminal', terminalApprover: terminal } });
    expect(resultText(await harness.client.callTool({ name: 'echo', arguments: { text: 'from the terminal' } }))).toBe('from the terminal');
    expect(terminal.asked).toHaveLength(1);
    expect(harness.elicitations).toHaveLength(0);
  });

  it('elicitation: never the terminal, even when the client cannot elicit', async () => {
    const terminal = recording('approve');
    harness = await startGatewayHarness({ policy, gateway: { approverChoice: 'elicitation', terminalApprover: terminal } });
    const result = await harness.client.callTool({ name: 'echo', arguments: { text: 'x' } });
    expect(result.isError).toBe(true);
    expect(resultText(result)).toContain('cannot show an approval dialog');
    expect(resultText(result)).toContain('from an MCP client that supports elicitation');
    expect(resultText(result)).not.toMatch(/: allow|approve_all|approve-all|mode:/);
    expect(terminal.asked).toHaveLength(0);
  });
});
