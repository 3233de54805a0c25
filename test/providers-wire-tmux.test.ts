/**
 * A real model provider (on loopback) in a real terminal: the person answers
 * the provider's tool calls with keys, the denial's reason reaches the model
 * in its next request, and a provider failure ends the run in two lines.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { anthropicMessages, openAIChat } from './provider-wire-formats.ts';
import { startWireServer } from './provider-wire-server.ts';
import { startTmuxSession } from './tmux-session.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PROMPT = /approve\? \[[a-z/?]+\]\s*$/;

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

function project(): string {
  const root = mkdtempSync(path.join(os.tmpdir(), 'toolgate-wire-tmux-'));
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  mkdirSync(path.join(root, 'ws'));
  writeFileSync(path.join(root, 'ws', 'notes.txt'), 'old\n');
  writeFileSync(
    path.join(root, 'toolgate.yaml'),
    'fs:\n  zones:\n    - { name: workspace, root: ./ws, mode: rw, approval: { read: allow, write: ask, delete: ask } }\nshell:\n  default: ask\nsandbox: { os: preferred }\n',
  );
  return root;
}

function toolgateCommand(argv: string): string {
  return `${path.join(ROOT, 'node_modules/.bin/node')} ${path.join(ROOT, 'src/cli/main.ts')} ${argv}; echo EXIT=$?; sleep 30`;
}

describe('a provider over the wire, in tmux', () => {
  it('openai-compatible: y approves the write, n + reason denies the rm, and the model is sent the reason', async () => {
    const root = project();
    const server = await startWireServer({
      replies: [
        openAIChat.turn({ text: 'Updating the notes.', toolCalls: [{ id: 'call_w1', name: 'write_file', args: { path: 'ws/notes.txt', content: 'new\n' } }] }),
        openAIChat.turn({ text: 'Cleaning up.', toolCalls: [{ id: 'call_r2', name: 'shell', args: { command: 'rm -rf ws' } }] }),
        openAIChat.turn({ text: 'Understood, keeping ws.' }),
      ],
    });
    cleanups.push(() => server.close());
    const terminal = startTmuxSession({
      cwd: root,
      command: toolgateCommand(`run "tidy the notes" --model openai-compatible:llama3.2 --base-url ${server.baseUrl}`),
      env: { NO_COLOR: '1', TOOLGATE_STATE_HOME: path.join(root, '.state') },
    });
    cleanups.push(() => terminal.close());
    const write = await terminal.waitFor(PROMPT);
    expect(write).toContain('Updating the notes.');
    expect(write).toMatch(/┌─ write_file ─+┐/);
    expect(write).toContain('+new');
    terminal.send('y');
    await terminal.waitFor(/✓ approved once/);
    const shell = await terminal.waitFor(/rm -rf ws[\s\S]*approve\? \[[a-z/?]+\]\s*$/);
    expect(shell).toContain('Cleaning up.');
    terminal.send('n');
    await terminal.waitFor(/reason for the model/);
    terminal.send('keep the workspace', { literal: true });
    terminal.send('Enter');
    const final = await terminal.waitFor(/EXIT=\d+/);
    expect(final).toContain('Understood, keeping ws.');
    expect(final).toContain('EXIT=0');
    expect(readFileSync(path.join(root, 'ws', 'notes.txt'), 'utf8')).toBe('new\n');
    expect(existsSync(path.join(root, 'ws'))).toBe(true);
    expect(server.requests).toHaveLength(3);
    expect(server.requests[1]!.text).toContain('call_w1');
    expect(server.requests[2]!.text).toContain('call_r2');
    expect(server.requests[2]!.text).toContain('keep the workspace');
  });

  it('anthropic: a stream that breaks off after an approval ends in two lines and exit code 6, no trace', async () => {
    const root = project();
    const server = await startWireServer({
      replies: [
        anthropicMessages.turn({ text: 'Updating the notes.', toolCalls: [{ id: 'toolu_01', name: 'write_file', args: { path: 'ws/notes.txt', content: 'new\n' } }] }),
        anthropicMessages.turn({ text: 'Next I will', streamError: { message: 'Overloaded', type: 'overloaded_error' } }),
      ],
    });
    cleanups.push(() => server.close());
    const terminal = startTmuxSession({
      cwd: root,
      command: toolgateCommand('run "tidy the notes"'),
      env: { NO_COLOR: '1', TOOLGATE_STATE_HOME: path.join(root, '.state'), ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_BASE_URL: server.baseUrl },
    });
    cleanups.push(() => terminal.close());
    const first = await terminal.waitFor(PROMPT);
    expect(first).toContain('model: anthropic:claude-sonnet-4-5 (ANTHROPIC_API_KEY is set');
    terminal.send('y');
    const final = await terminal.waitFor(/EXIT=\d+/);
    expect(final).toContain(`toolgate run: the anthropic model "claude-sonnet-4-5" at ${server.baseUrl} failed while answering: Overloaded (overloaded_error`);
    expect(final).toContain('EXIT=6');
    expect(final).not.toMatch(/^\s+at /m);
    expect(final).not.toContain('StreamProviderError');
    expect(readFileSync(path.join(root, 'ws', 'notes.txt'), 'utf8')).toBe('new\n');
  });
});
