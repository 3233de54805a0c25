/**
 * A pending approval reaches Slack (issue 35): the server's official Slack
 * client (`@slack/web-api`) talks to a stand-in of the Web API on loopback
 * that checks the calls and their Block Kit the way Slack would, and the
 * test sends interactivity requests signed as Slack signs them. A mapped
 * user decides; an unmapped one is told so in the thread; a bad, stale or
 * replayed signature is refused; a decision taken anywhere edits the message.
 */
import { createHmac } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../src/server/log.ts';
import { startToolgateServer } from '../src/server/start-server.ts';
import { hashToken, newToken } from '../src/server/tokens.ts';
import { until } from './headless-chromium.ts';

const FIXTURES = fileURLToPath(new URL('./fixtures/web-inbox/', import.meta.url));
const BOT_TOKEN = 'xoxb-test-0123456789-abcdefghij';
const SIGNING_SECRET = 'slack-signing-secret-0123456789abcdef';
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface SlackCall {
  method: string;
  args: Record<string, any>;
}

/** The Slack Web API as far as toolgate uses it, on loopback: each call checked, recorded and answered as Slack would. */
async function startSlackStandIn() {
  const calls: SlackCall[] = [];
  const problems: string[] = [];
  let ts = 1_700_000_000;
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const method = (request.url ?? '').replace(/^\/api\//, '');
      const text = Buffer.concat(chunks).toString('utf8');
      const type = String(request.headers['content-type'] ?? '');
      const args: Record<string, any> = type.startsWith('application/json') ? JSON.parse(text) : Object.fromEntries(new URLSearchParams(text));
      if (typeof args.blocks === 'string') args.blocks = JSON.parse(args.blocks);
      const answer = (body: Record<string, unknown>) => response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (request.headers.authorization !== `Bearer ${BOT_TOKEN}`) return answer({ ok: false, error: 'invalid_auth' });
      calls.push({ method, args });
      if (method !== 'chat.postMessage' && method !== 'chat.update') return answer({ ok: false, error: 'unknown_method' });
      if (typeof args.channel !== 'string' || args.channel === '') problems.push(`${method} without a channel`);
      if (typeof args.text !== 'string' || args.text === '' || args.text.length > 40_000) problems.push(`${method} without a fallback text`);
      if (args.blocks !== undefined) problems.push(...blockKitProblems(args.blocks).map((problem) => `${method}: ${problem}`));
      if (method === 'chat.update' && typeof args.ts !== 'string') problems.push('chat.update without ts');
      ts += 1;
      answer({ ok: true, channel: args.channel, ts: method === 'chat.update' ? args.ts : `${ts}.000100` });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/`, calls, problems };
}

/** Block Kit's rules, as far as these messages use it (Slack refuses a message that breaks them). */
function blockKitProblems(blocks: unknown): string[] {
  const problems: string[] = [];
  if (!Array.isArray(blocks) || blocks.length === 0 || blocks.length > 50) return ['blocks must be 1 to 50 blocks'];
  const actionIds = new Set<string>();
  const plain = (text: any, max: number, where: string) => {
    if (text?.type !== 'plain_text' || typeof text.text !== 'string' || text.text.length === 0 || text.text.length > max) problems.push(`${where}: plain_text of 1 to ${max} characters`);
  };
  for (const [index, block] of blocks.entries()) {
    const where = `blocks[${index}] (${block?.type})`;
    switch (block?.type) {
      case 'header':
        plain(block.text, 150, where);
        break;
      case 'section':
        if (!['plain_text', 'mrkdwn'].includes(block.text?.type) || block.text.text.length > 3000) problems.push(`${where}: text of at most 3000 characters`);
        break;
      case 'context':
        if (!Array.isArray(block.elements) || block.elements.length === 0 || block.elements.length > 10) problems.push(`${where}: 1 to 10 elements`);
        break;
      case 'input':
        plain(block.label, 2000, `${where}.label`);
        if (block.element?.type !== 'plain_text_input' || typeof block.element.action_id !== 'string') problems.push(`${where}: a plain_text_input with an action_id`);
        break;
      case 'actions':
        for (const element of block.elements ?? []) {
          if (element.type !== 'button') problems.push(`${where}: only buttons here`);
          plain(element.text, 75, `${where} button`);
          if (typeof element.value !== 'string' || element.value.length > 2000) problems.push(`${where}: a button value of at most 2000 characters`);
          if (actionIds.has(element.action_id)) problems.push(`${where}: action_id ${element.action_id} used twice`);
          actionIds.add(element.action_id);
        }
        break;
      default:
        problems.push(`${where}: a block type this message should not use`);
    }
  }
  return problems;
}

async function startServer(slackUrl: string, extraPolicy = '') {
  const root = mkdtempSync(path.join(os.tmpdir(), 'toolgate-slack-'));
  mkdirSync(path.join(root, 'ws'));
  const policyFile = path.join(root, 'toolgate.yaml');
  const channel = [
    'server:',
    '  channels:',
    '    slack:',
    '      type: slack',
    '      token_env: SLACK_BOT_TOKEN',
    '      signing_secret_env: SLACK_SIGNING_SECRET',
    '      channel: C0APPROVALS',
    '      users: { U0CAROL01: carol }',
    `      api_url: ${slackUrl}`,
    '      retry_after: 100ms',
    '',
  ].join('\n');
  writeFileSync(policyFile, `${readFileSync(path.join(FIXTURES, 'policy.yaml'), 'utf8')}\n${extraPolicy}${channel}`);
  const server = await startToolgateServer({
    policyFile,
    storeFile: path.join(root, '.toolgate', 'toolgate.db'),
    port: 0,
    model: `script:${path.join(FIXTURES, 'write-hello.yaml')}`,
    env: { SLACK_BOT_TOKEN: BOT_TOKEN, SLACK_SIGNING_SECRET: SIGNING_SECRET },
    logger: silentLogger(),
    cwd: root,
  });
  cleanups.push(() => rmSync(root, { recursive: true, force: true }), () => server.close());
  const carolToken = newToken();
  expect(await server.store.createToken({ name: 'carol', role: 'approver', hash: hashToken(carolToken) })).toBe(true);
  const api = async (pathname: string, body?: unknown, token = server.adminToken) => {
    const response = await fetch(`${server.url}${pathname}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, json: (await response.json()) as any };
  };
  return { server, api, carolToken };
}

/** A button press as Slack sends it: a form body holding the payload, signed with the app's signing secret. */
function slackRequest(options: { user: string; action: 'toolgate_approve' | 'toolgate_deny'; value: string; reason?: string; ts?: string; secret?: string; timestamp?: number; channel?: string }) {
  const payload = {
    type: 'block_actions',
    user: { id: options.user, username: 'someone' },
    channel: { id: options.channel ?? 'C0APPROVALS' },
    message: { ts: options.ts ?? '1700000001.000100' },
    actions: [{ action_id: options.action, block_id: 'toolgate_decide', value: options.value, type: 'button' }],
    state: { values: options.reason === undefined ? {} : { toolgate_reason: { reason: { type: 'plain_text_input', value: options.reason } } } },
  };
  const body = `payload=${encodeURIComponent(JSON.stringify(payload))}`;
  const timestamp = String(options.timestamp ?? Math.floor(Date.now() / 1000));
  const signature = `v0=${createHmac('sha256', options.secret ?? SIGNING_SECRET).update(`v0:${timestamp}:${body}`).digest('hex')}`;
  return { body, headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-slack-request-timestamp': timestamp, 'x-slack-signature': signature } };
}

describe('Slack', () => {
  it('posts Block Kit with the call and buttons; a mapped user decides, anyone else is told so in the thread; bad, stale and replayed signatures are refused; the message says who decided', { timeout: 60_000 }, async () => {
    const slack = await startSlackStandIn();
    const { server, api } = await startServer(slack.url);
    const runId = (await api('/runs', { input: 'write a greeting' })).json.run_id as string;
    const posted = await until('the message', () => slack.calls.find((call) => call.method === 'chat.postMessage' && call.args.blocks !== undefined));
    expect(slack.problems).toEqual([]);
    expect(posted.args.channel).toBe('C0APPROVALS');
    expect(posted.args.blocks[0]).toMatchObject({ type: 'header', text: { type: 'plain_text', text: 'Approve? Write ws/hello.txt (zone workspace)' } });
    expect(JSON.stringify(posted.args.blocks)).toContain('Hello from the inbox');
    // Every text is plain: nothing the agent wrote is read as Slack markup.
    expect(JSON.stringify(posted.args.blocks)).not.toContain('"mrkdwn"');
    const approve = posted.args.blocks.find((block: any) => block.type === 'actions').elements[0];
    expect(approve).toMatchObject({ action_id: 'toolgate_approve', style: 'primary' });
    const send = (request: ReturnType<typeof slackRequest>) => fetch(`${server.url}/slack/interactivity/slack`, { method: 'POST', headers: request.headers, body: request.body });

    // Someone Slack knows but toolgate does not map: told in the thread, nothing decided.
    expect((await send(slackRequest({ user: 'U0MALLORY1', action: 'toolgate_approve', value: approve.value }))).status).toBe(200);
    const refusal = await until('the reply in the thread', () => slack.calls.find((call) => call.method === 'chat.postMessage' && call.args.thread_ts !== undefined));
    expect(refusal.args).toMatchObject({ channel: 'C0APPROVALS', thread_ts: '1700000001.000100' });
    expect(refusal.args.text).toContain("<@U0MALLORY1> is not one of toolgate's approvers in this channel");
    // A press from another Slack channel is not this channel's to take.
    expect((await send(slackRequest({ user: 'U0CAROL01', action: 'toolgate_approve', value: approve.value, channel: 'C0ELSEWHERE' }))).status).toBe(400);
    // Signed with another secret, or too long ago: refused.
    expect((await send(slackRequest({ user: 'U0CAROL01', action: 'toolgate_approve', value: approve.value, secret: 'not-the-secret-0123456789' }))).status).toBe(401);
    expect((await send(slackRequest({ user: 'U0CAROL01', action: 'toolgate_approve', value: approve.value, timestamp: Math.floor(Date.now() / 1000) - 600 }))).status).toBe(401);
    expect((await api(`/runs/${runId}`)).json).toMatchObject({ status: 'paused_checkpoint', decisions: [] });

    // Carol denies, with a reason typed in the message (markup in it stays text). The press is answered at once (Slack waits 3 s at most), decided after.
    const deny = slackRequest({ user: 'U0CAROL01', action: 'toolgate_deny', value: approve.value, reason: 'not today, says the test <!channel> <https://evil.example|click>' });
    const decided = await send(deny);
    expect([decided.status, await decided.json()]).toEqual([200, { accepted: true }]);
    const run = await until('the run to finish', async () => {
      const view = (await api(`/runs/${runId}`)).json;
      return view.status === 'completed' ? view : undefined;
    });
    expect(run.decisions).toMatchObject([{ approved: false, decided_by: 'carol', via: 'slack', reason: 'not today, says the test <!channel> <https://evil.example|click>' }]);
    expect(run.text).toContain('not today, says the test');
    // The same request again: a replay.
    expect((await send(deny)).status).toBe(401);
    // The message now says who decided what.
    const update = await until('the message edited', () => slack.calls.find((call) => call.method === 'chat.update'));
    expect(update.args).toMatchObject({ channel: 'C0APPROVALS', ts: expect.stringMatching(/^\d+\.000100$/) });
    expect(update.args.text).toBe(`Denied by carol in Slack: not today, says the test &lt;!channel&gt; &lt;https://evil.example|click&gt; (tg_1_1 of ${runId}).`);
    // A fresh press on the old message: already decided, said in the thread.
    expect((await send(slackRequest({ user: 'U0CAROL01', action: 'toolgate_approve', value: approve.value }))).status).toBe(200);
    await until('the second reply', () => slack.calls.find((call) => call.method === 'chat.postMessage' && String(call.args.text).startsWith('<@U0CAROL01> nothing was decided: this call was already decided')));
    expect(slack.problems).toEqual([]);
  });

  it('a decision taken in the inbox or over the API edits the Slack message too', { timeout: 60_000 }, async () => {
    const slack = await startSlackStandIn();
    const { api, carolToken } = await startServer(slack.url);
    const runId = (await api('/runs', { input: 'write a greeting' })).json.run_id as string;
    await until('the message', () => slack.calls.find((call) => call.method === 'chat.postMessage'));
    expect((await api(`/runs/${runId}/approve`, { approved: true }, carolToken)).status).toBe(200);
    const update = await until('the message edited', () => slack.calls.find((call) => call.method === 'chat.update'));
    expect(update.args.text).toBe(`Approved by carol over the API (tg_1_1 of ${runId}).`);
    expect(slack.problems).toEqual([]);
  });

  it('when nobody answers, the policy\'s approval_timeout ends it as timed out, and the message says so', { timeout: 60_000 }, async () => {
    const slack = await startSlackStandIn();
    const { api } = await startServer(slack.url, 'approval_timeout: 1s\n');
    const runId = (await api('/runs', { input: 'write a greeting' })).json.run_id as string;
    await until('the message', () => slack.calls.find((call) => call.method === 'chat.postMessage'));
    const run = await until('the run to finish', async () => {
      const view = (await api(`/runs/${runId}`)).json;
      return view.status === 'completed' ? view : undefined;
    });
    expect(run.decisions).toMatchObject([{ approved: false, decided_by: 'timeout', via: 'timeout' }]);
    const update = await until('the message edited', () => slack.calls.find((call) => call.method === 'chat.update'));
    expect(update.args.text).toBe(`Timed out: nobody decided tg_1_1 of ${runId} in time; it did not run.`);
  });

  it('a run cancelled while its call waits edits the message too: its buttons no longer stand', { timeout: 60_000 }, async () => {
    const slack = await startSlackStandIn();
    const { api } = await startServer(slack.url);
    const runId = (await api('/runs', { input: 'write a greeting' })).json.run_id as string;
    await until('the message', () => slack.calls.find((call) => call.method === 'chat.postMessage'));
    expect((await api(`/runs/${runId}/cancel`, {})).status).toBe(200);
    const update = await until('the message edited', () => slack.calls.find((call) => call.method === 'chat.update'));
    expect(update.args.text).toBe(`Cancelled by admin: the run was stopped, so tg_1_1 of ${runId} did not run.`);
  });

  it('refuses to start without the bot token, naming the key', async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'toolgate-slack-'));
    cleanups.push(() => rmSync(root, { recursive: true, force: true }));
    const policyFile = path.join(root, 'toolgate.yaml');
    writeFileSync(policyFile, `${readFileSync(path.join(FIXTURES, 'policy.yaml'), 'utf8')}\nserver:\n  channels:\n    slack: { type: slack, token_env: SLACK_BOT_TOKEN, signing_secret_env: SLACK_SIGNING_SECRET, channel: C0APPROVALS, users: {} }\n`);
    await expect(startToolgateServer({ policyFile, port: 0, env: {}, logger: silentLogger(), cwd: root })).rejects.toThrow(/server\.channels\.slack\.token_env in .* names SLACK_BOT_TOKEN, which is not set/);
  });
});
