/**
 * Which model `toolgate run` talks to when the user did not say: never the
 * demo script in their own directory. `--model`, else `TOOLGATE_MODEL`, else
 * the provider whose key is set (and it says so), else a message listing the
 * ways to choose. Providers are real, on loopback (test/provider-wire-server.ts).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from './cli-harness.ts';
import { anthropicMessages, openAIChat, openAIResponses } from './provider-wire-formats.ts';
import { startWireServer, unusedBaseUrl, type WireServer } from './provider-wire-server.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** A user's project: a failing test and nothing of toolgate's. */
function userProject(): string {
  const root = mkdtempSync(path.join(os.tmpdir(), 'toolgate-choose-'));
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  writeFileSync(path.join(root, 'package.json'), '{ "name": "mine" }\n');
  writeFileSync(path.join(root, 'sum.test.js'), 'throw new Error("fails")\n');
  return root;
}

async function server(format: typeof openAIChat): Promise<WireServer> {
  const started = await startWireServer({ replies: [format.turn({ text: 'Looked, nothing to do.' })] });
  cleanups.push(() => started.close());
  return started;
}

describe('toolgate run without --model', () => {
  it('with no model anywhere, stops, writes nothing, and lists every way to choose one', async () => {
    const root = userProject();
    const result = await runCli(['run', 'fix the failing test'], { cwd: root, env: {} });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('no model to run');
    for (const way of ['--model openai:gpt-4o', 'OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'openai-compatible:llama3.2 --base-url http://localhost:11434/v1', 'TOOLGATE_MODEL', 'toolgate run --demo']) {
      expect(result.stderr).toContain(way);
    }
    // The demo's files and requests are nowhere: not in the output, not on disk.
    expect(result.stderr).not.toContain('notes.txt');
    expect(result.stderr).not.toContain('left-pad');
    expect(readdirSync(root).sort()).toEqual(['package.json', 'sum.test.js']);
  });

  it('refuses the demo script outside --demo, from the flag or from TOOLGATE_MODEL', async () => {
    const root = userProject();
    for (const invocation of [{ argv: ['--model', 'script:demo'], env: {} }, { argv: [], env: { TOOLGATE_MODEL: 'script:demo' } }]) {
      const result = await runCli(['run', 'fix the failing test', '--approve-all', ...invocation.argv], { cwd: root, env: invocation.env });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('the demo script runs only in its own temporary workspace: toolgate run --demo');
      expect(readdirSync(root).sort()).toEqual(['package.json', 'sum.test.js']);
    }
  });

  it('takes TOOLGATE_MODEL and says so', async () => {
    const root = userProject();
    const provider = await server(openAIChat);
    const result = await runCli(['run', 'fix the failing test'], { cwd: root, env: { TOOLGATE_MODEL: 'openai-compatible:qwen2.5-coder', TOOLGATE_BASE_URL: provider.baseUrl, OPENAI_API_KEY: 'sk-not-this' } });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('model: openai-compatible:qwen2.5-coder (from TOOLGATE_MODEL)');
    expect(result.stdout).toContain('Looked, nothing to do.');
    expect(provider.requests.map((request) => [request.path, request.body.model])).toEqual([['/v1/chat/completions', 'qwen2.5-coder']]);
    // The OpenAI key never goes to a server chosen for another provider.
    expect(provider.requests[0]!.text).not.toContain('sk-not-this');
    expect(provider.requests[0]!.headers.authorization).toBeUndefined();
  });

  it('with only OPENAI_API_KEY, takes openai:gpt-4o over the Responses API and says which key picked it', async () => {
    const root = userProject();
    const provider = await server(openAIResponses);
    const result = await runCli(['run', 'fix the failing test'], { cwd: root, env: { OPENAI_API_KEY: 'sk-user', OPENAI_BASE_URL: provider.baseUrl } });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('model: openai:gpt-4o (OPENAI_API_KEY is set; choose another with --model or TOOLGATE_MODEL)');
    expect(provider.requests.map((request) => [request.path, request.body.model, request.headers.authorization])).toEqual([['/v1/responses', 'gpt-4o', 'Bearer sk-user']]);
  });

  it('with only ANTHROPIC_API_KEY, takes anthropic:claude-sonnet-4-5', async () => {
    const root = userProject();
    const provider = await server(anthropicMessages);
    const result = await runCli(['run', 'fix the failing test'], { cwd: root, env: { ANTHROPIC_API_KEY: 'sk-ant-user', ANTHROPIC_BASE_URL: provider.baseUrl } });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('model: anthropic:claude-sonnet-4-5 (ANTHROPIC_API_KEY is set');
    expect(provider.requests.map((request) => [request.path, request.body.model, request.headers['x-api-key']])).toEqual([['/v1/messages', 'claude-sonnet-4-5', 'sk-ant-user']]);
  });

  it('--model wins over TOOLGATE_MODEL and the keys, without a notice', async () => {
    const root = userProject();
    const provider = await server(openAIChat);
    const result = await runCli(['run', 'fix the failing test', '--model', 'openai-compatible:mistral', '--base-url', provider.baseUrl], {
      cwd: root,
      env: { TOOLGATE_MODEL: 'anthropic:claude-sonnet-4-5', ANTHROPIC_API_KEY: 'sk-ant', OPENAI_API_KEY: 'sk' },
    });
    expect(result.code).toBe(0);
    expect(result.stderr).not.toContain('model: ');
    expect(provider.requests.map((request) => request.body.model)).toEqual(['mistral']);
  });
});

describe('toolgate run --demo', () => {
  it('runs the demo script in its own workspace even when a provider key is set, and never calls the provider', async () => {
    const root = userProject();
    const nowhere = await unusedBaseUrl();
    const result = await runCli(['run', '--demo'], { cwd: root, env: { OPENAI_API_KEY: 'sk-user', OPENAI_BASE_URL: nowhere, TOOLGATE_MODEL: 'openai:gpt-4o' } });
    expect(result.code).toBe(0);
    const workspace = /a fresh workspace in (\S+)/.exec(result.stderr)?.[1];
    expect(workspace).toBeDefined();
    cleanups.push(() => rmSync(workspace!, { recursive: true, force: true }));
    expect(path.relative(root, workspace!).startsWith('..')).toBe(true);
    expect(readFileSync(path.join(workspace!, 'ws', 'notes.txt'), 'utf8')).toContain('pad the invoice numbers');
    expect(readdirSync(root).sort()).toEqual(['package.json', 'sum.test.js']);
  });
});

describe('the real process', () => {
  function toolgate(argv: string[], options: { cwd: string; env: Record<string, string> }): Promise<{ code: number; stdout: string; stderr: string }> {
    return new Promise((resolve) => {
      execFile(
        path.join(ROOT, 'node_modules/.bin/node'),
        [path.join(ROOT, 'src/cli/main.ts'), ...argv],
        { cwd: options.cwd, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: options.cwd, NO_COLOR: '1', TOOLGATE_STATE_HOME: path.join(options.cwd, '.state'), ...options.env }, timeout: 60_000 },
        (error, stdout, stderr) => resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stdout, stderr }),
      );
    });
  }

  it('an unreachable model prints the policy line and two lines, no trace, and exits 6', { timeout: 60_000 }, async () => {
    const root = userProject();
    const baseUrl = await unusedBaseUrl();
    const result = await toolgate(['run', 'fix the failing test', '--model', 'openai-compatible:llama3.2', '--base-url', baseUrl], { cwd: root, env: {} });
    expect(result.code).toBe(6);
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines.length).toBeLessThanOrEqual(4);
    expect(lines.at(-2)).toBe(`toolgate run: cannot reach the openai-compatible model "llama3.2" at ${baseUrl}/chat/completions: connection refused (ECONNREFUSED) (tried 3 times) [MODEL_UNREACHABLE]`);
    expect(lines.at(-1)).toContain('ollama serve');
    expect(result.stderr).not.toContain('RetryError');
    expect(result.stderr).not.toMatch(/^\s+at /m);
  });

  it('a wrong key prints two lines naming the variable, and exits 6', { timeout: 60_000 }, async () => {
    const root = userProject();
    const provider = await startWireServer({ replies: [anthropicMessages.httpError(401, 'invalid x-api-key')] });
    cleanups.push(() => provider.close());
    const result = await toolgate(['run', 'fix the failing test'], { cwd: root, env: { ANTHROPIC_API_KEY: 'sk-ant-wrong', ANTHROPIC_BASE_URL: provider.baseUrl } });
    expect(result.code).toBe(6);
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines.at(-2)).toBe(`toolgate run: the anthropic model "claude-sonnet-4-5" at ${provider.baseUrl}/messages answered HTTP 401: invalid x-api-key [MODEL_REQUEST_FAILED]`);
    expect(lines.at(-1)).toContain('check ANTHROPIC_API_KEY');
    expect(result.stderr).toContain('model: anthropic:claude-sonnet-4-5 (ANTHROPIC_API_KEY is set');
    expect(result.stderr).not.toMatch(/^\s+at /m);
    expect(result.stderr).not.toContain('sk-ant-wrong');
  });
});
