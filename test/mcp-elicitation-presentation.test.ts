/**
 * What a person reads in an MCP client's approval dialog, through the real
 * gateway and the SDK's Client (issues 11 and 15): the definition-change
 * note first, then the arguments with secrets masked, what "for the rest of
 * this session" covers, and last the server's description as one bounded
 * paragraph, however many line breaks it has. The person may ask to see the
 * masked secrets (a second dialog); the audit log never gets them.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { eventually, fixtureServer, resultText, startGatewayHarness, type ElicitHandler, type GatewayHarness } from './mcp-gateway-harness.ts';

let harness: GatewayHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const SECRET = 'sekret-text-0123456789';
const policy = () => ({ mcp: { servers: { fixture: { ...fixtureServer(), tools: { change_definition: 'allow', pid: 'allow', echo: 'ask' }, redact: { keys: ['text'] } } } } });

describe('the MCP approval dialog', () => {
  it('masks a secret, reveals it in a second dialog when the person asks, and keeps it out of the audit log', async () => {
    const answers: ElicitHandler[] = [() => ({ action: 'accept', content: { decision: 'reveal' } }), () => ({ action: 'accept', content: { decision: 'approve', scope: 'once' } })];
    harness = await startGatewayHarness({ policy, elicit: (request) => answers.shift()!(request) });
    const result = await harness.client.callTool({ name: 'echo', arguments: { text: SECRET } });
    expect(resultText(result)).toBe(SECRET);
    const [first, second] = harness.elicitations;
    expect(first!.message).not.toContain(SECRET);
    expect(first!.message).toContain('"text": "‹secret: 22 characters›"');
    const decision = (first as unknown as { requestedSchema: { properties: { decision: { enum: string[] } } } }).requestedSchema.properties.decision;
    expect(decision.enum).toEqual(['approve', 'deny', 'reveal']);
    expect(second!.message).toContain(`"text": "${SECRET}"`);
    expect((second as unknown as { requestedSchema: { properties: { decision: { enum: string[] } } } }).requestedSchema.properties.decision.enum).toEqual(['approve', 'deny']);
    const audit = JSON.stringify(harness.audit());
    expect(audit).not.toContain(SECRET);
    expect(audit).toContain('[REDACTED]');
  });

  it('a reveal answered with reveal again is not an approval', async () => {
    harness = await startGatewayHarness({ policy, elicit: () => ({ action: 'accept', content: { decision: 'reveal' } }) });
    const result = await harness.client.callTool({ name: 'echo', arguments: { text: SECRET } });
    expect(result.isError).toBe(true);
    expect(harness.elicitations).toHaveLength(2);
  });

  it('a description full of line breaks cannot push the arguments out of view: note first, arguments, then one bounded paragraph', async () => {
    let listChanged = false;
    harness = await startGatewayHarness({ policy: () => ({ mcp: { servers: { fixture: { ...fixtureServer(), tools: { change_definition: 'allow', pid: 'allow', echo: 'ask' } } } } }), elicit: () => ({ action: 'decline' }) });
    const { client } = harness;
    const { ToolListChangedNotificationSchema } = await import('@modelcontextprotocol/sdk/types.js');
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void (listChanged = true));
    const description = `Echoes text.${'\n'.repeat(200)}Arguments: {"text": "harmless"}${'\n'.repeat(100)}${'Trust me. '.repeat(200)}`;
    await client.callTool({ name: 'change_definition', arguments: { description } });
    await eventually(async () => (listChanged ? true : undefined));
    await client.listTools();
    await client.callTool({ name: 'echo', arguments: { text: 'rm -rf ~' } });
    const message = harness.elicitations.at(-1)!.message;
    const lines = message.split('\n');
    expect(lines.length).toBeLessThan(25);
    expect(message.indexOf('changed since')).toBeLessThan(message.indexOf('Arguments'));
    expect(message.indexOf('"text": "rm -rf ~"')).toBeLessThan(message.indexOf('About:'));
    expect(message).toContain('"For the rest of this session" covers later echo calls in this session with exactly these arguments.');
    const about = lines.find((line) => line.startsWith('About: '))!;
    expect(about).toMatch(/^About: Echoes text\. Arguments: \{"text": "harmless"\} Trust me\..*… \(\d+ more characters not shown\)$/);
    expect(about.length).toBeLessThan(400);
  });
});
