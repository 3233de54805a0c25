/**
 * A pending approval reaches a webhook (issue 35), with real parts: the
 * server, its SQLite outbox, and an HTTP receiver on loopback that checks
 * every signature the way the README tells a receiver to. A receiver that
 * fails or hangs is retried with the same delivery id; one that never
 * answers well ends dead, counted in /metrics; a server killed with SIGKILL
 * mid-send sends it again after the restart, once.
 */
import { chmodSync, writeFileSync } from 'node:fs';
import { appendFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { verifyWebhookSignature } from '../src/server/notify/webhook-channel.ts';
import { createApiProject, eventually, serveForEachTest } from './server-api-harness.ts';
import { createServerProject, startServerProcess, type ServerProcess } from './server-harness.ts';

const SECRET = 'the-webhook-secret-0123456789abcdef';
const { serve } = serveForEachTest();

interface Received {
  id: string;
  body: any;
  /** Why the signature check failed, if it did. */
  problem: string | undefined;
}

/** An HTTP receiver on loopback: each request is checked and recorded, then answered as `answer` says (a status, or `hang`). */
async function startReceiver(answer: (count: number) => number | 'hang') {
  const received: Received[] = [];
  const hanging: http.ServerResponse[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const problem = verifyWebhookSignature({ secret: SECRET, body: text, timestamp: request.headers['toolgate-timestamp'], signature: request.headers['toolgate-signature'] });
      received.push({ id: String(request.headers['toolgate-delivery']), body: JSON.parse(text), problem });
      const status = answer(received.length);
      if (status === 'hang') {
        hanging.push(response);
        return;
      }
      response.writeHead(status, { 'content-type': 'text/plain' }).end(status === 200 ? 'ok' : 'not now');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return {
    url,
    received,
    close: async () => {
      for (const response of hanging) response.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

let cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

/** A project whose policy sends every pending approval to `url`, the secret in a file of the project's own. */
function projectNotifying(url: string, channel: string) {
  const project = createApiProject({
    extraPolicy: `server:\n  channels:\n    ops:\n      type: webhook\n      url: ${url}\n      secret_file: webhook-secret\n${channel}`,
  });
  const secretFile = path.join(project.root, 'webhook-secret');
  writeFileSync(secretFile, `${SECRET}\n`);
  chmodSync(secretFile, 0o600);
  cleanup.push(() => project.remove());
  return project;
}

async function metric(api: { request: (path: string) => Promise<{ text: string }> }, status: string): Promise<number> {
  const line = (await api.request('/metrics')).text.split('\n').find((entry) => entry.startsWith(`toolgate_notifications{status="${status}"}`));
  return line === undefined ? Number.NaN : Number(line.split(' ').at(-1));
}

describe('webhook notifications', () => {
  it('POSTs a paused call, signed, with the inbox presentation and links; a receiver that fails twice gets it the third time, with the same delivery id', { timeout: 60_000 }, async () => {
    const receiver = await startReceiver((count) => (count <= 2 ? 503 : 200));
    cleanup.push(receiver.close);
    const api = await serve({ script: 'write-note.yaml', project: projectNotifying(receiver.url, '      retry_after: 100ms\n') });
    const runId = (await api.startRun({ input: 'write the note' })).json.run_id as string;
    await api.waitForStatus(runId, 'paused_checkpoint');
    await eventually('three tries', () => receiver.received.length >= 3, 20_000);
    await eventually('delivered', async () => (await metric(api, 'delivered')) === 1);
    expect(receiver.received.map((item) => item.problem)).toEqual([undefined, undefined, undefined]);
    const ids = new Set(receiver.received.map((item) => item.id));
    expect([...ids]).toEqual([`ops/${runId}/tg_1_1/requested`]);
    const body = receiver.received[2]!.body;
    expect(body).toMatchObject({
      type: 'approval.requested',
      delivery_id: `ops/${runId}/tg_1_1/requested`,
      channel: 'ops',
      run_id: runId,
      tool_call_id: 'tg_1_1',
      tool_name: 'write_file',
      presentation: { tool: 'write_file', risk: expect.any(String) },
      links: { inbox: `${api.url}/#run=${runId}`, decide: `${api.url}/runs/${runId}/approve` },
    });
    // No token, no raw arguments: what it carries is the presentation layer's.
    expect(JSON.stringify(body)).not.toContain(api.tokens.carol);
    expect(body).not.toHaveProperty('tool_arguments');
    // Nothing more is sent for it: delivered once is delivered.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(receiver.received).toHaveLength(3);
    expect(await metric(api, 'pending')).toBe(0);
  });

  it('a receiver that hangs is tried again after the timeout; one that never answers well ends dead, counted in /metrics', { timeout: 60_000 }, async () => {
    const receiver = await startReceiver((count) => (count === 1 ? 'hang' : 500));
    cleanup.push(receiver.close);
    const api = await serve({ script: 'write-note.yaml', project: projectNotifying(receiver.url, '      timeout: 300ms\n      retry_after: 100ms\n      max_attempts: 3\n') });
    const runId = (await api.startRun({ input: 'write the note' })).json.run_id as string;
    await api.waitForStatus(runId, 'paused_checkpoint');
    await eventually('dead', async () => (await metric(api, 'dead')) === 1, 20_000);
    expect(receiver.received).toHaveLength(3);
    expect(new Set(receiver.received.map((item) => item.id)).size).toBe(1);
    const [dead] = await api.server.store.outbox.listDeliveries({ status: 'dead', limit: 5 });
    expect(dead).toMatchObject({ attempts: 3, lastError: expect.stringMatching(/^gave up after 3 tries: http:\/\/127\.0\.0\.1:\d+ answered HTTP 500: not now$/) });
    // The receiver's path (a chat's webhook URL is a secret) is in no error.
    expect(dead!.lastError).not.toContain('/hook');
    // Those who decide see it (without what it carried); a submitter may not.
    const listed = await api.request('/notifications?status=dead', { token: 'carol' });
    expect(listed.status).toBe(200);
    expect(listed.json).toMatchObject({ counts: { dead: 1 }, deliveries: [{ status: 'dead', attempts: 3, run_id: runId }] });
    expect((await api.request('/notifications', { token: 'alice' })).status).toBe(403);
    expect((await api.request('/notifications?status=lost', { token: 'carol' })).status).toBe(400);
    // The run still waits for a person: a notification that failed decides nothing.
    expect((await api.run(runId)).status).toBe('paused_checkpoint');
  });

  it('refuses to start when the secret is missing, naming the key', async () => {
    const project = createApiProject({ extraPolicy: 'server:\n  channels:\n    ops:\n      type: webhook\n      url: http://127.0.0.1:9/hook\n      secret_file: no-such-secret\n' });
    cleanup.push(() => project.remove());
    await expect(serve({ script: 'write-note.yaml', project })).rejects.toThrow(/server\.channels\.ops\.secret_file in .*toolgate\.yaml names .*no-such-secret, which does not exist or is empty/);
    const unknown = createApiProject({ extraPolicy: 'server:\n  notify: [pager]\n' });
    cleanup.push(() => unknown.remove());
    await expect(serve({ script: 'write-note.yaml', project: unknown })).rejects.toThrow(/server\.notify\[0\] in .*names "pager", which is not a channel; the channels are none/);
  });

  it('a server killed with SIGKILL while a delivery is under way sends it again after the restart, once', { timeout: 90_000 }, async () => {
    let hang = true;
    const receiver = await startReceiver(() => (hang ? 'hang' : 200));
    cleanup.push(receiver.close);
    const project = createServerProject({ policy: 'crash-policy.yaml' });
    appendFileSync(project.policyFile, `server:\n  channels:\n    ops:\n      type: webhook\n      url: ${receiver.url}\n      secret_env: TOOLGATE_TEST_WEBHOOK_SECRET\n      timeout: 2s\n      retry_after: 100ms\n`);
    const env = { TOOLGATE_TEST_WEBHOOK_SECRET: SECRET };
    let server: ServerProcess = await startServerProcess({ project, env });
    cleanup.push(() => server.kill9());
    const created = await fetch(`${server.url}/runs`, { method: 'POST', headers: { authorization: 'Bearer crash-test-admin-token-0123456789', 'content-type': 'application/json' }, body: JSON.stringify({ input: 'append a line' }) });
    expect(created.status).toBe(201);
    await eventually('the first try reached the receiver', () => receiver.received.length === 1, 20_000);
    await server.kill9();
    hang = false;
    server = await startServerProcess({ project, env });
    await eventually('the delivery sent again after the restart', () => receiver.received.length === 2, 30_000);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(receiver.received.map((item) => [item.id, item.problem])).toEqual([
      [receiver.received[0]!.id, undefined],
      [receiver.received[0]!.id, undefined],
    ]);
  });

  it('an outbox row written by anyone without the secret is never sent: the server would sign what it says', { timeout: 60_000 }, async () => {
    const receiver = await startReceiver(() => 200);
    cleanup.push(receiver.close);
    const api = await serve({ script: 'write-note.yaml', project: projectNotifying(receiver.url, '      retry_after: 100ms\n') });
    const forged = { id: 'ops/forged/1/requested', channel: 'ops', runId: 'run_forged', toolCallId: 'tg_1_1', body: JSON.stringify({ type: 'approval.requested', links: { decide: 'https://evil.example/phish' } }), mac: 'v1.not-the-servers' };
    expect(await api.server.store.outbox.enqueueDeliveries([forged])).toBe(1);
    await eventually('the forged row given up on', async () => (await api.server.store.outbox.listDeliveries({ status: 'dead', limit: 5 })).length === 1);
    expect(await api.server.store.outbox.listDeliveries({ status: 'dead', limit: 5 })).toMatchObject([{ id: forged.id, attempts: 1, lastError: expect.stringContaining('does not verify') }]);
    expect(receiver.received).toEqual([]);
  });
});
