/**
 * `toolgate mcp --approver server --server URL` (issue 38: MCP asks can go
 * to the team): real processes all through — an MCP client (the SDK's, over
 * stdio), the gateway's CLI entry, the fixture MCP server upstream, and
 * `toolgate serve` on a SQLite file. The gateway's policy decides; an ask
 * waits as a card in the server's inbox (even though the client could
 * elicit), and the person's decision there — approval, denial with a
 * reason, edited arguments — is what the gateway does, once. The gateway
 * giving up (its approval timeout) cancels the card. An unreachable server
 * and a token that may not ask deny. `POST /asks` itself: strict input,
 * roles, one run per asker's id.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { fixtureServer, MCP_ENTRY, readAudit, resultText } from './mcp-gateway-harness.ts';
import { ADMIN_TOKEN, api, createServerProject, NODE, ROOT, startServerProcess, waitFor, type ServerProcess, type ServerProject } from './server-harness.ts';

let cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

async function serve(): Promise<{ project: ServerProject; server: ServerProcess; submitter: string; approverToken: string }> {
  const project = createServerProject({ policy: 'crash-policy.yaml' });
  cleanup.push(() => rmSync(project.directory, { recursive: true, force: true }));
  const submitter = await createToken(project, 'mcp-gateway', 'submitter');
  const approverToken = await createToken(project, 'alice', 'approver');
  const server = await startServerProcess({ project, model: null, env: { TOOLGATE_MODEL: '', OPENAI_API_KEY: '', ANTHROPIC_API_KEY: '' } });
  cleanup.push(() => server.kill9());
  return { project, server, submitter, approverToken };
}

function createToken(project: ServerProject, name: string, role: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(NODE, [path.join(ROOT, 'src/cli/main.ts'), 'token', 'create', name, '--role', role, '--store', project.storeFile], { cwd: project.directory, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('exit', (code) => (code === 0 ? resolve(stdout.trim()) : reject(new Error(`token create exited ${code}: ${stderr}`))));
  });
}

/** The gateway's own policy: echo asks; its audit log beside it. `serverLines`: more of the fixture server's settings. */
function gatewayPolicy(extra = '', serverLines: string[] = []): { file: string; audit: string } {
  const directory = mkdtempSync(path.join(os.tmpdir(), 'toolgate-mcp-server-approver-'));
  cleanup.push(() => rmSync(directory, { recursive: true, force: true }));
  const server = fixtureServer();
  const file = path.join(directory, 'toolgate.yaml');
  const audit = path.join(directory, 'audit.jsonl');
  writeFileSync(
    file,
    [
      extra,
      `audit: { enabled: true, path: ${JSON.stringify(audit)} }`,
      'mcp:',
      '  servers:',
      '    fixture:',
      `      command: ${JSON.stringify(server.command)}`,
      `      args: ${JSON.stringify(server.args)}`,
      '      tools: { echo: ask, pid: allow }',
      ...serverLines,
      '',
    ].join('\n'),
  );
  return { file, audit };
}

/** The gateway as a client starts it, with the submitter's token; the client could elicit, and must never be asked. */
async function gateway(options: { policy: string; server: string; token: string }): Promise<{ client: Client; elicited: string[]; stderr: () => string }> {
  const client = new Client({ name: 'team-client', version: '1.0.0' }, { capabilities: { elicitation: {} } });
  const elicited: string[] = [];
  client.setRequestHandler(ElicitRequestSchema, (request) => {
    elicited.push(request.params.message);
    return { action: 'accept', content: { decision: 'approve', scope: 'once' } };
  });
  const transport = new StdioClientTransport({
    command: NODE,
    args: [MCP_ENTRY, '--policy', options.policy, '--approver', 'server', '--server', options.server],
    env: { ...(process.env as Record<string, string>), TOOLGATE_TOKEN: options.token },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  await client.connect(transport);
  cleanup.push(() => client.close());
  return { client, elicited, stderr: () => stderr };
}

interface PendingCard {
  run_id: string;
  tool_name: string;
  description: string;
  times_out_at: string | null;
  presentation: { metadata?: Record<string, unknown>; asker?: unknown } & Record<string, unknown>;
}

async function pendingCard(server: ServerProcess): Promise<PendingCard> {
  return waitFor(
    async () => {
      const inbox = await api(server.url, 'GET', '/approvals');
      return (inbox.body.approvals as PendingCard[])[0];
    },
    { timeoutMs: 15_000, describe: () => `a card in the inbox: ${server.stderr().slice(-1000)}` },
  );
}

async function decideAs(server: ServerProcess, token: string, runId: string, body: unknown): Promise<number> {
  const response = await fetch(`${server.url}/runs/${runId}/approve`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return response.status;
}

describe('toolgate mcp --approver server', () => {
  it("puts an ask in the server's inbox, not to the client; approved there by alice, it runs once, and the gateway's audit names her", async () => {
    const { server, submitter, approverToken } = await serve();
    const policy = gatewayPolicy();
    const { client, elicited } = await gateway({ policy: policy.file, server: server.url, token: submitter });
    // Allowed by the gateway's policy: never asked.
    expect(resultText(await client.callTool({ name: 'pid', arguments: {} }))).toMatch(/^\d+$/);
    const call = client.callTool({ name: 'echo', arguments: { text: 'from the team' } });
    const card = await pendingCard(server);
    expect(card.tool_name).toBe('echo');
    expect(card.description).toContain('asked by toolgate mcp (client team-client)');
    expect(await decideAs(server, approverToken, card.run_id, { approved: true })).toBe(200);
    expect(resultText(await call)).toBe('from the team');
    expect(elicited).toEqual([]);
    // The card is gone, the run says what happened, and the gateway's audit log names who approved.
    expect((await api(server.url, 'GET', '/approvals')).body.approvals).toEqual([]);
    const run = await waitFor(async () => {
      const view = await api(server.url, 'GET', `/runs/${card.run_id}`);
      return view.body.status === 'completed' ? view.body : undefined;
    }, { timeoutMs: 10_000, describe: () => 'the ask run completed' });
    expect(run.text).toBe('approved: handed to the gate that asked, which runs it');
    const decisions = readAudit(policy.audit).filter((entry) => entry.tool === 'echo' && entry.kind === 'decision');
    expect(decisions).toHaveLength(1);
    expect(decisions[0]).toMatchObject({ decision: 'approved', source: 'person', approver: 'alice' });
  }, 60_000);

  it("a denial's reason reaches the client; edited arguments are what runs, judged again by the gateway's policy", async () => {
    const { server, submitter, approverToken } = await serve();
    const policy = gatewayPolicy();
    const { client } = await gateway({ policy: policy.file, server: server.url, token: submitter });

    const denied = client.callTool({ name: 'echo', arguments: { text: 'no' } });
    const first = await pendingCard(server);
    expect(await decideAs(server, approverToken, first.run_id, { approved: false, reason: 'not on a Friday' })).toBe(200);
    const deniedResult = await denied;
    expect(deniedResult.isError).toBe(true);
    expect(resultText(deniedResult)).toContain('not on a Friday');

    const edited = client.callTool({ name: 'echo', arguments: { text: 'as asked' } });
    const second = await pendingCard(server);
    expect(second.run_id).not.toBe(first.run_id);
    expect(await decideAs(server, approverToken, second.run_id, { approved: true, edited_args: { text: 'as edited' } })).toBe(200);
    expect(resultText(await edited)).toBe('as edited');
  }, 60_000);

  it("the gateway's approval timeout denies, and cancels the card so that nobody approves what no longer waits", async () => {
    const { server, submitter, approverToken } = await serve();
    const policy = gatewayPolicy('approval_timeout: 3s');
    const { client } = await gateway({ policy: policy.file, server: server.url, token: submitter });
    const call = client.callTool({ name: 'echo', arguments: { text: 'too late' } });
    const card = await pendingCard(server);
    // The card says when the gateway stops waiting, not the server policy's timeout.
    expect(card.times_out_at).not.toBeNull();
    expect(Date.parse(card.times_out_at!) - Date.now()).toBeLessThanOrEqual(3_000);
    const result = await call;
    expect(result.isError).toBe(true);
    expect(resultText(result)).toMatch(/timed out/);
    const cancelled = await waitFor(async () => {
      const view = await api(server.url, 'GET', `/runs/${card.run_id}`);
      return view.body.status === 'cancelled' ? view.body : undefined;
    }, { timeoutMs: 10_000, describe: () => 'the ask run cancelled' });
    expect(cancelled.status).toBe('cancelled');
    expect(await decideAs(server, approverToken, card.run_id, { approved: true })).toBe(400);
  }, 60_000);

  it('a call the policy judges dangerous (its name mentions "delete") is a Dangerous card; an ordinary ask is Notable', async () => {
    const { server, submitter, approverToken } = await serve();
    const policy = gatewayPolicy('unknown_tools: { dangerous_keywords: true }', ['      default: allow', `      env: { FIXTURE_EXTRA_TOOLS: ${JSON.stringify(JSON.stringify(['delete_records']))} }`]);
    const { client } = await gateway({ policy: policy.file, server: server.url, token: submitter });
    const risky = client.callTool({ name: 'delete_records', arguments: {} });
    const card = await pendingCard(server);
    expect(card.tool_name).toBe('delete_records');
    expect(card.presentation.risk).toBe('dangerous');
    expect(await decideAs(server, approverToken, card.run_id, { approved: false, reason: 'not today' })).toBe(200);
    expect((await risky).isError).toBe(true);
    const ordinary = client.callTool({ name: 'echo', arguments: { text: 'hi' } });
    const second = await pendingCard(server);
    expect(second.presentation.risk).toBe('notable');
    expect(await decideAs(server, approverToken, second.run_id, { approved: true })).toBe(200);
    expect(resultText(await ordinary)).toBe('hi');
  }, 60_000);

  it('denies when the server cannot be reached, or the token may not ask (an approver token)', async () => {
    const { server, approverToken } = await serve();
    const policy = gatewayPolicy();
    const wrongRole = await gateway({ policy: policy.file, server: server.url, token: approverToken });
    const refused = await wrongRole.client.callTool({ name: 'echo', arguments: { text: 'x' } });
    expect(refused.isError).toBe(true);
    expect(resultText(refused)).toContain('answered 403');
    expect(resultText(refused)).toContain('submitter');
    await server.stop();
    const gone = await gateway({ policy: policy.file, server: server.url, token: approverToken });
    const unreachable = await gone.client.callTool({ name: 'echo', arguments: { text: 'x' } });
    expect(unreachable.isError).toBe(true);
    expect(resultText(unreachable)).toContain('could not be reached (ECONNREFUSED)');
  }, 60_000);
});

describe('POST /asks', () => {
  const ask = (overrides: Record<string, unknown> = {}) => ({
    id: 'ask-0123456789abcdef',
    tool: 'send_email',
    args: { to: 'ops@example.com' },
    description: 'Send an email to ops@example.com',
    reason: 'asked by tools.send_email (ask)',
    session_id: 's1',
    caller: 'a test',
    ...overrides,
  });
  const post = (server: ServerProcess, token: string, body: unknown, query = '?timeout=0') =>
    fetch(`${server.url}/asks${query}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });

  it('answers pending with the run at once (timeout=0); the same id is the same card, another token’s same id another', async () => {
    const { server, submitter } = await serve();
    const first = (await (await post(server, submitter, ask())).json()) as { status: string; run_id: string };
    expect(first.status).toBe('pending');
    const again = (await (await post(server, submitter, ask())).json()) as { status: string; run_id: string };
    expect(again.run_id).toBe(first.run_id);
    // The same id for another call is refused, never answered with this call's decision.
    const reused = await post(server, submitter, ask({ args: { to: 'everyone@example.com' } }));
    expect(reused.status).toBe(409);
    expect(((await reused.json()) as { error: string }).error).toContain('was made for another call');
    const other = (await (await post(server, ADMIN_TOKEN, ask())).json()) as { status: string; run_id: string };
    expect(other.run_id).not.toBe(first.run_id);
    expect(((await api(server.url, 'GET', '/approvals')).body.approvals as unknown[]).length).toBe(2);
    // Decided: the next request with the id answers the decision.
    expect((await api(server.url, 'POST', `/runs/${first.run_id}/approve`, { approved: true, scope: 'session' })).status).toBe(200);
    const decided = await waitFor(async () => {
      const answer = (await (await post(server, submitter, ask(), '?timeout=2')).json()) as { status: string };
      return answer.status === 'decided' ? answer : undefined;
    }, { timeoutMs: 10_000, describe: () => 'the decision' });
    expect(decided).toMatchObject({ status: 'decided', run_id: first.run_id, decision: { approved: true, scope: 'session', by: 'admin' } });
  }, 60_000);

  it('an edit that keeps a masked secret as shown keeps the secret, not the mask', async () => {
    const { server, submitter } = await serve();
    const body = ask({ id: 'ask-secret-0123456789', args: { url: 'https://api.example.com', api_key: 'sk-live-1234', body: 'hello' } });
    const first = (await (await post(server, submitter, body)).json()) as { run_id: string };
    // The card shows the key masked; the approver edits the body and leaves the mask as it was shown.
    const card = ((await api(server.url, 'GET', '/approvals')).body.approvals as Array<{ run_id: string; tool_arguments: string }>).find((approval) => approval.run_id === first.run_id)!;
    expect(card.tool_arguments).not.toContain('sk-live-1234');
    const shown = JSON.parse(card.tool_arguments) as Record<string, unknown>;
    expect((await api(server.url, 'POST', `/runs/${first.run_id}/approve`, { approved: true, edited_args: { ...shown, body: 'hello, edited' } })).status).toBe(200);
    const decided = await waitFor(async () => {
      const answer = (await (await post(server, submitter, body, '?timeout=2')).json()) as { status: string; decision?: { args?: unknown } };
      return answer.status === 'decided' ? answer : undefined;
    }, { timeoutMs: 10_000, describe: () => 'the decision' });
    expect(decided.decision!.args).toEqual({ url: 'https://api.example.com', api_key: 'sk-live-1234', body: 'hello, edited' });
  }, 60_000);

  it('refuses a body past 2 MB, and more than 100 waiting asks of one token', async () => {
    const { server, submitter } = await serve();
    const big = await post(server, submitter, ask({ args: { content: 'x'.repeat(2 * 1024 * 1024) } }));
    expect(big.status).toBe(413);
    for (let index = 0; index < 100; index++) expect((await post(server, submitter, ask({ id: `ask-flood-${String(index).padStart(12, '0')}` }))).status).toBe(200);
    const refused = await post(server, submitter, ask({ id: 'ask-flood-one-too-many' }));
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { error: string }).error).toContain('100 asks of token "mcp-gateway" are waiting');
    // Another token is not held up by this one.
    expect((await post(server, ADMIN_TOKEN, ask({ id: 'ask-admin-0123456789' }))).status).toBe(200);
  }, 120_000);

  it('refuses what is not an ask, naming the field; and an approver token', async () => {
    const { server, approverToken, submitter } = await serve();
    const cases: Array<[unknown, string]> = [
      [ask({ id: 'short' }), 'id'],
      [ask({ tool: 'bad\u0007name' }), 'tool'],
      [ask({ presentation: { type: 'html', content: '<b>' } }), 'presentation'],
      [ask({ extra: true }), 'extra'],
      [ask({ times_out_at: 'tomorrow' }), 'times_out_at'],
    ];
    for (const [body, field] of cases) {
      const response = await post(server, submitter, body);
      expect(response.status, field).toBe(400);
      expect(((await response.json()) as { error: string }).error, field).toContain(field);
    }
    const badTimeout = await post(server, submitter, ask(), '?timeout=601');
    expect(badTimeout.status).toBe(400);
    const wrongRole = await post(server, approverToken, ask());
    expect(wrongRole.status).toBe(403);
    expect(((await api(server.url, 'GET', '/approvals')).body.approvals as unknown[]).length).toBe(0);
  }, 60_000);
});
