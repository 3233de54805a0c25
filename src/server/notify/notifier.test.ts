/**
 * Routing and escalation (issue 35), on a real SQLite store with a test
 * clock: the first stage of a call's route is told at once, the next one
 * only once its `after` has passed while the call still waits; a decision
 * ends the chain; a tool with a route of its own is told otherwise.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../store/sqlite-store.ts';
import { decideOne, decision, newApproval, newRun } from '../../store/store-contract-fixtures.ts';
import { recordKey } from '../../store/record-mac.ts';
import type { StoredDelivery, ToolgateStore } from '../../store/store.ts';
import { silentLogger } from '../log.ts';
import type { ServerRuntime } from '../runs/server-runtime.ts';
import type { NotificationChannel } from './notification-channel.ts';
import { startNotifier, type NotifyStage } from './notifier.ts';
import { channelsFromPolicy } from './notification-channel.ts';
import { loadPolicyFile } from '../../config/load-policy-file.ts';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A channel that records what it is asked to send and says it was sent. */
function recordingChannel(name: string) {
  const sent: StoredDelivery[] = [];
  const channel: NotificationChannel = {
    name,
    kind: 'webhook',
    timeoutMs: 1_000,
    retryAfterMs: 1_000,
    maxAttempts: 3,
    deliveriesFor: ({ approval }) => [{ key: '', body: JSON.stringify({ run: approval.runId, call: approval.toolCallId }) }],
    send: async (delivery) => {
      sent.push(delivery);
      return { ok: true };
    },
  };
  return { channel, sent };
}

async function pausedStore(): Promise<ToolgateStore> {
  const directory = mkdtempSync(path.join(os.tmpdir(), 'toolgate-notifier-'));
  const store = openSqliteStore({ file: path.join(directory, 'toolgate.db') });
  cleanups.push(() => rmSync(directory, { recursive: true, force: true }), () => store.close());
  const asked = new Date().toISOString();
  for (const [runId, tool] of [['run-1', 'write_file'], ['run-2', 'deploy']] as const) {
    const { run } = await store.createRun(newRun(runId), []);
    await store.updateRun(runId, run.revision, { status: 'paused_checkpoint' }, { approvals: [newApproval(runId, 'call-1', { tool, request: { asked_at: asked } })] });
  }
  return store;
}

describe('routing and escalation', () => {
  it('tells the first stage at once and the next only after its time, while the call waits; a decision ends the chain', async () => {
    const store = await pausedStore();
    // The store stamps what it enqueues with its own clock: the test's starts a moment later, so what is enqueued is due.
    let now = Date.now() + 1_000;
    const first = recordingChannel('first');
    const second = recordingChannel('second');
    const third = recordingChannel('third');
    const deploys = recordingChannel('deploys');
    const stages: NotifyStage[] = [
      { afterMs: 0, channels: ['first'] },
      { afterMs: 10 * 60_000, channels: ['second'] },
      { afterMs: 30 * 60_000, channels: ['third'] },
    ];
    const runtime = { store, logger: silentLogger(), recordKey: recordKey('a test secret') } as unknown as ServerRuntime;
    const notifier = startNotifier({
      runtime,
      channels: new Map([first, second, third, deploys].map(({ channel }) => [channel.name, channel])),
      route: (tool) => (tool === 'deploy' ? [{ afterMs: 0, channels: ['deploys'] }] : stages),
      publicUrl: 'http://127.0.0.1:1',
      pollMs: 60_000,
      clock: () => now,
    });
    cleanups.push(() => notifier.stop());
    await notifier.cycle();
    expect(first.sent.map((delivery) => delivery.id)).toEqual(['first/run-1/call-1/requested']);
    // A tool with a route of its own goes only there.
    expect(deploys.sent.map((delivery) => delivery.id)).toEqual(['deploys/run-2/call-1/requested']);
    expect(second.sent).toEqual([]);

    now += 9 * 60_000;
    await notifier.cycle();
    expect(second.sent).toEqual([]);
    now += 60_000;
    await notifier.cycle();
    expect(second.sent.map((delivery) => delivery.id)).toEqual(['second/run-1/call-1/escalated-1']);
    // Told once: later cycles send nothing more for a stage already reached.
    await notifier.cycle();
    expect(first.sent).toHaveLength(1);
    expect(second.sent).toHaveLength(1);

    // Decided before the third stage: the chain ends.
    expect((await decideOne(store, 'run-1', 'call-1', decision())).decided).toBe(true);
    now += 60 * 60_000;
    await notifier.cycle();
    expect(third.sent).toEqual([]);
  });
});

describe('routes in the policy', () => {
  const write = (text: string) => {
    const directory = mkdtempSync(path.join(os.tmpdir(), 'toolgate-routes-'));
    cleanups.push(() => rmSync(directory, { recursive: true, force: true }));
    const file = path.join(directory, 'toolgate.yaml');
    writeFileSync(file, text);
    return loadPolicyFile(file);
  };
  const channelsYaml = [
    'server:',
    '  channels:',
    '    chat: { type: webhook, url: "http://127.0.0.1:1/a", secret_env: HOOK_SECRET }',
    '    pager: { type: webhook, url: "http://127.0.0.1:1/b", secret_env: HOOK_SECRET }',
  ].join('\n');
  const env = { HOOK_SECRET: 'a-webhook-secret-of-32-characters' };

  it('reads server.notify stages, a tool\'s route and an MCP server\'s route, each naming its channels', async () => {
    const loaded = await write(
      [
        'version: 1',
        'tools:',
        '  deploy: { decision: ask, notify: [pager] }',
        'mcp:',
        '  servers:',
        '    files: { command: "true", notify: [{ channels: [chat, pager], after: 5m }] }',
        '    a: { command: "true", notify: [chat] }',
        '    a__b: { command: "true", notify: [pager] }',
        channelsYaml,
        '  notify: [chat, { after: 10m, channels: [pager] }]',
      ].join('\n'),
    );
    const { route } = channelsFromPolicy({ loaded, env, linkKey: recordKey('k') });
    expect(route('write_file')).toEqual([
      { afterMs: 0, channels: ['chat'] },
      { afterMs: 600_000, channels: ['pager'] },
    ]);
    expect(route('deploy')).toEqual([{ afterMs: 0, channels: ['pager'] }]);
    expect(route('files__read_text_file')).toEqual([{ afterMs: 300_000, channels: ['chat', 'pager'] }]);
    // The longest namespace that names the tool.
    expect(route('a__b__x')).toEqual([{ afterMs: 0, channels: ['pager'] }]);
    expect(route('a__x')).toEqual([{ afterMs: 0, channels: ['chat'] }]);
  });

  it('a rule routes the calls it asks about, found by the label the card names it with', async () => {
    const loaded = await write(
      [
        'version: 1',
        'tools:',
        '  deploy: { decision: ask, notify: [chat], rules: [{ args: { env: prod }, decision: ask, notify: [pager] }] }',
        'shell:',
        '  rules:',
        '    - { match: "git status", decision: allow }',
        '    - { match: "git push", decision: ask, notify: [{ channels: [pager], after: 1m }] }',
        channelsYaml,
        '  notify: [chat]',
      ].join('\n'),
    );
    const { route } = channelsFromPolicy({ loaded, env, linkKey: recordKey('k') });
    expect(route('shell', 'shell.rules[1] (match: git push) — toolgate.yaml:8')).toEqual([{ afterMs: 60_000, channels: ['pager'] }]);
    // shell.rules[10] is not shell.rules[1]: labels are matched whole.
    expect(route('shell', 'shell.rules[10] (match: x)')).toEqual([{ afterMs: 0, channels: ['chat'] }]);
    expect(route('deploy', 'tools.deploy.rules[0] — toolgate.yaml:3')).toEqual([{ afterMs: 0, channels: ['pager'] }]);
    expect(route('deploy', 'tools.deploy (ask) — toolgate.yaml:3')).toEqual([{ afterMs: 0, channels: ['chat'] }]);
    expect(route('shell')).toEqual([{ afterMs: 0, channels: ['chat'] }]);
  });

  it('stages told at the same time are one, and a channel is told once, at its first stage', async () => {
    const loaded = await write(['version: 1', channelsYaml, '  notify: [chat, pager, chat, { after: 0, channels: [pager] }, { after: 5m, channels: [chat] }]'].join('\n'));
    expect(channelsFromPolicy({ loaded, env, linkKey: recordKey('k') }).route('x')).toEqual([{ afterMs: 0, channels: ['chat', 'pager'] }]);
  });

  it('without server.notify, every channel hears of every call at once', async () => {
    const { route } = channelsFromPolicy({ loaded: await write(['version: 1', channelsYaml].join('\n')), env, linkKey: recordKey('k') });
    expect(route('anything')).toEqual([{ afterMs: 0, channels: ['chat', 'pager'] }]);
  });

  it('refuses a channel whose secret is missing, short, or given twice, or whose link_ttl is out of range, naming the key', async () => {
    const refused = async (channel: string, channelEnv: Record<string, string>, message: RegExp) => {
      const loaded = await write(['version: 1', 'server:', '  channels:', `    one: ${channel}`].join('\n'));
      expect(() => channelsFromPolicy({ loaded, env: channelEnv, linkKey: recordKey('k') })).toThrow(message);
    };
    await refused('{ type: webhook, url: "http://127.0.0.1:1/a", secret_env: HOOK_SECRET }', { HOOK_SECRET: 'short' }, /server\.channels\.one\.secret_env \(HOOK_SECRET\) in .*: the signing secret is 5 characters; use at least 16/);
    await refused('{ type: webhook, url: "http://127.0.0.1:1/a", secret_env: HOOK_SECRET, secret_file: s }', env, /server\.channels\.one in .* needs its signing secret from exactly one place/);
    await refused('{ type: webhook, url: "http://127.0.0.1:1/a" }', env, /needs its signing secret from exactly one place/);
    const mail = '{ type: email, smtp: { host: 127.0.0.1, port: 25, user_env: SMTP_USER, password_env: SMTP_PASSWORD }, from: "t <t@example.test>", to: [{ approver: carol, address: carol@example.test }]';
    await refused(`${mail} }`, { SMTP_USER: 'u' }, /server\.channels\.one\.smtp\.password_env in .* names SMTP_PASSWORD, which is not set/);
    await refused(`${mail}, link_ttl: 30s }`, { SMTP_USER: 'u', SMTP_PASSWORD: 'p' }, /server\.channels\.one\.link_ttl in .* is 30000 ms; give it between 1m and 7 days/);
    await refused('{ type: slack, token_env: T, signing_secret_env: S, channel: C0APPROVALS, users: {} }', { T: 'xoxb-1' }, /server\.channels\.one\.signing_secret_env in .* names S, which is not set/);
  });

  it('refuses a route that names no channel, naming the key', async () => {
    const loaded = await write(['version: 1', 'tools:', '  deploy: { decision: ask, notify: [{ channels: [chat, sms], after: 1m }] }', channelsYaml].join('\n'));
    expect(() => channelsFromPolicy({ loaded, env, linkKey: recordKey('k') })).toThrow(/tools\.deploy\.notify\[0\]\.channels\[1\] in .*toolgate\.yaml names "sms", which is not a channel; the channels are chat, pager/);
  });
});
