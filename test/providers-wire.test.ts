/**
 * `toolgate run` against real HTTP providers: a server on loopback speaks
 * each wire format (OpenAI chat completions for `openai-compatible:`, the
 * OpenAI Responses API for `openai:`, Anthropic messages), streaming, and
 * the AI SDK's own providers parse it. Tool calls are approved or denied
 * by the gate, and what the model is sent next is checked: a denial's reason
 * must reach it. A model that fails (unreachable, refused, broken off
 * mid-stream) ends the run with two lines and exit code 6.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from './cli-harness.ts';
import { WIRE_FORMATS, openAIChat, type WireFormat, type WireTurn } from './provider-wire-formats.ts';
import { startWireServer, unusedBaseUrl, type WireServer } from './provider-wire-server.ts';

const MODEL: Record<WireFormat['provider'], string> = {
  'openai-compatible': 'openai-compatible:llama3.2',
  openai: 'openai:gpt-4o',
  anthropic: 'anthropic:claude-sonnet-4-5',
};

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** A project whose ws/ is a rw zone (writes ask) and whose policy blocks rm. */
function project(): string {
  const root = mkdtempSync(path.join(os.tmpdir(), 'toolgate-wire-'));
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  mkdirSync(path.join(root, 'ws'));
  writeFileSync(path.join(root, 'ws', 'notes.txt'), 'old\n');
  writeFileSync(
    path.join(root, 'toolgate.yaml'),
    [
      'fs:',
      '  zones:',
      '    - { name: workspace, root: ./ws, mode: rw, approval: { read: allow, write: ask, delete: ask } }',
      'shell:',
      '  default: ask',
      '  rules:',
      '    - { match: rm, decision: block, reason: "no rm in this project" }',
      'sandbox: { os: preferred }',
    ].join('\n'),
  );
  return root;
}

async function serve(format: WireFormat, turns: WireTurn[]): Promise<WireServer> {
  const server = await startWireServer({ replies: turns.map((turn) => format.turn(turn)) });
  cleanups.push(() => server.close());
  return server;
}

const WRITE_THEN_REMOVE: WireTurn[] = [
  { text: 'Updating the notes.', toolCalls: [{ id: 'call_w1', name: 'write_file', args: { path: 'ws/notes.txt', content: 'new\n' } }] },
  { text: 'Cleaning up.', toolCalls: [{ id: 'call_r2', name: 'shell', args: { command: 'rm -rf ws' } }] },
  { text: 'Done with the notes.' },
];

/** A stack frame line: what a person must never be shown without --debug. */
const STACK_FRAME = /^\s+at .+\(?.+:\d+:\d+\)?$/m;

describe.each(WIRE_FORMATS.map((format) => [format.provider, format] as const))('%s over the wire', (_name, format) => {
  it('streams text and tool calls; an approved write lands, a block reaches the model with its reason', async () => {
    const root = project();
    const server = await serve(format, WRITE_THEN_REMOVE);
    const result = await runCli(['run', 'update the notes', '--model', MODEL[format.provider], '--approve-all'], { cwd: root, env: format.env(server.baseUrl) });
    expect(result.stderr).not.toMatch(STACK_FRAME);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Updating the notes.');
    expect(result.stdout).toContain('Done with the notes.');
    expect(readFileSync(path.join(root, 'ws', 'notes.txt'), 'utf8')).toBe('new\n');
    expect(existsSync(path.join(root, 'ws'))).toBe(true);
    expect(result.stderr).toContain('shell blocked');
    expect(result.stderr).toContain('2 tool calls: 0 allowed, 1 approved, 0 denied, 1 blocked');

    expect(server.requests.map((request) => `${request.method} ${request.path}`)).toEqual(Array(3).fill(`POST ${format.path}`));
    expect(server.requests.every((request) => request.body.stream === true)).toBe(true);
    // The tools reach the model with their schemas.
    expect(server.requests[0]!.text).toContain('write_file');
    expect(server.requests[0]!.text).toContain('"shell"');
    expect(server.requests[0]!.text).toContain('update the notes');
    // The write's result is sent back under its call id; the block's reason in the next request.
    expect(server.requests[1]!.text).toContain('call_w1');
    expect(server.requests[1]!.text).not.toContain('no rm in this project');
    expect(server.requests[2]!.text).toContain('call_r2');
    expect(server.requests[2]!.text).toContain('no rm in this project');
    if (format.provider === 'anthropic') expect(server.requests[0]!.headers['x-api-key']).toBe('sk-ant-test-wire');
    if (format.provider === 'openai') expect(server.requests[0]!.headers.authorization).toBe('Bearer sk-test-wire');
    if (format.provider === 'openai-compatible') expect(server.requests[0]!.headers.authorization).toBeUndefined();
  });

  it('with nobody to approve, the write is denied, nothing is written, and the model is told how to approve', async () => {
    const root = project();
    const server = await serve(format, [WRITE_THEN_REMOVE[0]!, { text: 'Understood, leaving the notes.' }]);
    const result = await runCli(['run', 'update the notes', '--model', MODEL[format.provider]], { cwd: root, env: format.env(server.baseUrl) });
    expect(result.code).toBe(0);
    expect(readFileSync(path.join(root, 'ws', 'notes.txt'), 'utf8')).toBe('old\n');
    expect(result.stdout).toContain('Understood, leaving the notes.');
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]!.text).toContain('call_w1');
    expect(server.requests[1]!.text).toContain('nobody who can approve it is reachable here');
    expect(server.requests[1]!.text).not.toMatch(/approve_all|--approve-all|auto_deny/);
  });

  it('two tool calls in one step both reach the gate, and both results go back under their own ids', async () => {
    const root = project();
    const server = await serve(format, [
      {
        text: 'Writing both.',
        toolCalls: [
          { id: 'call_a', name: 'write_file', args: { path: 'ws/a.txt', content: 'A\n' } },
          { id: 'call_b', name: 'write_file', args: { path: 'ws/b.txt', content: 'B\n' } },
        ],
      },
      { text: 'Both written.' },
    ]);
    const result = await runCli(['run', 'write a and b', '--model', MODEL[format.provider], '--approve-all'], { cwd: root, env: format.env(server.baseUrl) });
    expect(result.code).toBe(0);
    expect(readFileSync(path.join(root, 'ws', 'a.txt'), 'utf8')).toBe('A\n');
    expect(readFileSync(path.join(root, 'ws', 'b.txt'), 'utf8')).toBe('B\n');
    expect(result.stderr).toContain('2 tool calls: 0 allowed, 2 approved, 0 denied, 0 blocked');
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]!.text).toContain('call_a');
    expect(server.requests[1]!.text).toContain('call_b');
  });

  it('arguments that are not JSON run nothing, and the model is told', async () => {
    const root = project();
    const server = await serve(format, [
      { toolCalls: [{ id: 'call_bad', name: 'write_file', args: '{"path": "ws/notes.txt", "content": "pwned' }] },
      { text: 'My arguments were broken.' },
    ]);
    const result = await runCli(['run', 'update the notes', '--model', MODEL[format.provider], '--approve-all'], { cwd: root, env: format.env(server.baseUrl) });
    expect(result.stderr).not.toMatch(STACK_FRAME);
    expect(result.code).toBe(0);
    expect(readFileSync(path.join(root, 'ws', 'notes.txt'), 'utf8')).toBe('old\n');
    expect(result.stdout).toContain('My arguments were broken.');
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]!.text).toContain('call_bad');
  });

  it('a write outside the project is refused whatever the provider, and the model hears why', async () => {
    const root = project();
    const outside = path.join(path.dirname(root), `${path.basename(root)}-outside.txt`);
    cleanups.push(() => rmSync(outside, { force: true }));
    const server = await serve(format, [
      { toolCalls: [{ id: 'call_out', name: 'write_file', args: { path: `../${path.basename(outside)}`, content: 'escaped\n' } }] },
      { text: 'Refused, as expected.' },
    ]);
    const result = await runCli(['run', 'write outside', '--model', MODEL[format.provider], '--approve-all'], { cwd: root, env: format.env(server.baseUrl) });
    expect(result.code).toBe(0);
    expect(existsSync(outside)).toBe(false);
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]!.text).toContain('call_out');
    expect(server.requests[1]!.text).toContain('is outside every zone');
  });

  it('a model error mid-stream ends the run with two lines and exit code 6; what was approved before stays done', async () => {
    const root = project();
    const server = await serve(format, [WRITE_THEN_REMOVE[0]!, { text: 'Now the next', streamError: { message: 'Overloaded', type: 'overloaded_error' } }]);
    const result = await runCli(['run', 'update the notes', '--model', MODEL[format.provider], '--approve-all'], { cwd: root, env: format.env(server.baseUrl) });
    expect(result.code).toBe(6);
    expect(readFileSync(path.join(root, 'ws', 'notes.txt'), 'utf8')).toBe('new\n');
    expect(server.requests).toHaveLength(2);
    const name = MODEL[format.provider].slice(format.provider.length + 1);
    const report = result.stderr.slice(result.stderr.indexOf('toolgate run: '));
    const lines = report.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain(`the ${format.provider} model "${name}" at ${server.baseUrl} failed while answering: Overloaded`);
    expect(lines[0]).toContain('overloaded_error');
    expect(lines[0]).toContain('[MODEL_STREAM_FAILED]');
    expect(lines[1]).toContain('--debug');
    expect(result.stderr).not.toMatch(STACK_FRAME);
  });

  it('a refused key is one line with the status and the server\'s message, and says which variable to check', async () => {
    const root = project();
    const server = await startWireServer({ replies: [format.httpError(401, 'Incorrect API key provided: sk-test***wire.')] });
    cleanups.push(() => server.close());
    const result = await runCli(['run', 'update the notes', '--model', MODEL[format.provider]], { cwd: root, env: format.env(server.baseUrl) });
    expect(result.code).toBe(6);
    // 401 is not worth retrying: one request.
    expect(server.requests).toHaveLength(1);
    const report = result.stderr.slice(result.stderr.indexOf('toolgate run: ')).trimEnd().split('\n');
    expect(report).toHaveLength(2);
    expect(report[0]).toContain(`at ${server.baseUrl}${format.path.slice('/v1'.length)} answered HTTP 401: Incorrect API key provided`);
    expect(report[0]).toContain('[MODEL_REQUEST_FAILED]');
    expect(report[1]).toContain({ openai: 'OPENAI_API_KEY', anthropic: 'ANTHROPIC_API_KEY', 'openai-compatible': 'OPENAI_COMPATIBLE_API_KEY' }[format.provider]);
    expect(result.stderr).not.toMatch(STACK_FRAME);
    expect(readFileSync(path.join(root, 'ws', 'notes.txt'), 'utf8')).toBe('old\n');
  });
});

describe('a connection that drops mid-answer', () => {
  it('is a stream failure, not a crash: two lines, exit code 6, and the text so far was shown', async () => {
    const root = project();
    const cut = openAIChat.turn({ text: 'Let me look at the notes and then' });
    const server = await startWireServer({ replies: [{ ...cut, kind: 'sse', events: cut.kind === 'sse' ? cut.events.slice(0, 4) : [], hangUp: true }] });
    cleanups.push(() => server.close());
    const result = await runCli(['run', 'update the notes', '--model', 'openai-compatible:llama3.2'], { cwd: root, env: openAIChat.env(server.baseUrl) });
    expect(result.code).toBe(6);
    expect(result.stdout).toContain('Let me look at the');
    const report = result.stderr.slice(result.stderr.indexOf('toolgate run: ')).trimEnd().split('\n');
    expect(report).toHaveLength(2);
    expect(report[0]).toContain(`the openai-compatible model "llama3.2" at ${server.baseUrl}/chat/completions failed while answering: the connection broke off (other side closed) [MODEL_STREAM_FAILED]`);
    expect(result.stderr).not.toMatch(STACK_FRAME);
  });
});

describe('an unreachable model', () => {
  it('says which provider and URL, that the connection was refused, and what to do; --debug adds the trace', { timeout: 60_000 }, async () => {
    const root = project();
    const baseUrl = await unusedBaseUrl();
    const result = await runCli(['run', 'update the notes', '--model', 'openai-compatible:llama3.2', '--base-url', baseUrl], { cwd: root });
    expect(result.code).toBe(6);
    const report = result.stderr.slice(result.stderr.indexOf('toolgate run: ')).trimEnd().split('\n');
    expect(report).toEqual([
      `toolgate run: cannot reach the openai-compatible model "llama3.2" at ${baseUrl}/chat/completions: connection refused (ECONNREFUSED) (tried 3 times) [MODEL_UNREACHABLE]`,
      'is the server running (Ollama: ollama serve)? Its URL comes from --base-url, TOOLGATE_BASE_URL or OPENAI_COMPATIBLE_BASE_URL.',
    ]);
    expect(result.stderr).not.toMatch(STACK_FRAME);

    const debug = await runCli(['run', 'update the notes', '--model', 'openai-compatible:llama3.2', '--base-url', baseUrl, '--debug'], { cwd: root });
    expect(debug.code).toBe(6);
    expect(debug.stderr).toContain('[MODEL_UNREACHABLE]');
    expect(debug.stderr).toMatch(STACK_FRAME);
    expect(debug.stderr).toContain('ECONNREFUSED');
  });

  it('is documented in run --help with its exit code', async () => {
    const help = await runCli(['run', '--help']);
    expect(help.stdout).toMatch(/\n\s+6\s+the model failed/);
    expect(help.stdout).toContain('--debug');
  });
});

describe('a model that calls a tool it was never given', () => {
  it('is answered through the gate, not by a crash', async () => {
    const root = project();
    const server = await serve(openAIChat, [{ toolCalls: [{ id: 'call_x', name: 'format_disk', args: { device: '/dev/sda' } }] }, { text: 'I cannot do that here.' }]);
    const result = await runCli(['run', 'format it', '--model', 'openai-compatible:llama3.2', '--approve-all'], { cwd: root, env: openAIChat.env(server.baseUrl) });
    expect(result.stderr).not.toMatch(STACK_FRAME);
    expect(result.code).toBe(0);
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]!.text).toContain('call_x');
  });
});

describe('hostile text over the wire', () => {
  it('escape sequences in streamed text and in tool arguments are shown, not obeyed', async () => {
    const root = project();
    const server = await serve(openAIChat, [
      { text: 'Hi\u001b[2J\u001b]52;c;cHduZWQ=\u0007 there', toolCalls: [{ id: 'call_e', name: 'read_file', args: { path: 'ws/\u001b[31mnotes.txt' } }] },
      { text: 'Done.' },
    ]);
    const result = await runCli(['run', 'read', '--model', 'openai-compatible:llama3.2'], { cwd: root, env: openAIChat.env(server.baseUrl) });
    expect(result.code).toBe(0);
    expect(`${result.stdout}${result.stderr}`).not.toMatch(/[\u001b\u0007\u009b]/);
    expect(result.stdout).toContain('there');
  });
});
