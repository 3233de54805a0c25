/**
 * One session of a real agent CLI (Claude Code or Codex), run inside a
 * network namespace that has only loopback (the caller starts this script
 * with `unshare -n`): a scripted model server on loopback in the wire
 * format the CLI speaks (Anthropic Messages or OpenAI Responses, streamed),
 * the CLI's own configuration in a fresh home with toolgate's hook in it,
 * and the CLI run headless under `strace -e trace=connect`, so that any
 * attempt to reach another machine is seen, not only refused.
 *
 * The model calls one tool (the scenario's), then answers
 * `FINAL: <the tool result it received, as JSON>`, so the CLI's output
 * shows what the model was told. Usage:
 *   unshare -n node test/agent-host-session.ts SPEC.json
 * and the result is written to the spec's `resultFile`.
 */
import { spawn } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import { parse as parseJsonc } from 'jsonc-parser';
import { anthropicMessages, openAIResponses, type WireFormat } from './provider-wire-formats.ts';
import { opencodePluginSource } from '../src/hooks/hosts/opencode-plugin.ts';

export interface HostSessionSpec {
  /** Claude Code: the hook's statusMessage (what toolgate install writes with --approver server). */
  statusMessage?: string;
  host: 'claude-code' | 'codex' | 'gemini' | 'copilot' | 'opencode';
  /** The CLI's executable. */
  cli: string;
  /** The project the CLI works in. */
  cwd: string;
  /** A fresh directory for the CLI's home and configuration. */
  home: string;
  prompt: string;
  /** The one tool call the model makes, with the host's own tool name. */
  call: { name: string; input: Record<string, unknown>; namespace?: string };
  /**
   * Instead of `call`: the calls the model makes one after the other, each
   * once the previous one's result is in (with `approve: 'after-pending'`,
   * the first call told it is pending is approved in the inbox before the
   * next call is made).
   */
  calls?: Array<{ name: string; input: Record<string, unknown>; namespace?: string }>;
  /** $SHELL in the CLI's environment (the shell Claude Code runs commands with). */
  shell?: string;
  /** The hook command line, as the host's configuration holds it. */
  hook: string;
  /**
   * Gemini CLI: the hooks are the ones already in the home's
   * `.gemini/settings.json` (what `toolgate install gemini` wrote there),
   * kept as they are; the session adds only its own settings around them.
   */
  installedHooks?: boolean;
  /** Gemini CLI: folder trust on (its default), with no folder trusted; off otherwise. */
  folderTrust?: boolean;
  /** opencode: its environment, beyond what the session sets (OPENCODE_DISABLE_PROJECT_CONFIG...). */
  env?: Record<string, string>;
  /** Copilot CLI: run without `--allow-all-tools`, so its own permission service (and its permissionRequest hook) has a say. */
  copilotAsks?: boolean;
  hookTimeoutSeconds: number;
  /** MCP servers the CLI connects to (stdio). */
  mcpServers?: Record<string, { command: string; args: string[] }>;
  timeoutMs: number;
  resultFile: string;
  /**
   * `toolgate serve` in the same namespace, started first: `{SERVER}` in
   * the hook command (and Claude Code's `http` hook, with `http: true`) is
   * its URL, `$TOOLGATE_TOKEN` its token. `approve: 'inbox'` approves the
   * first call that waits, by clicking "Allow once" in the web inbox in
   * headless Chromium; `approve: 'after-pending'` waits until the model is
   * told that the call is pending (the hook's budget ran out), approves it
   * in the inbox then, and has the model make the same call again.
   */
  server?: { policyFile: string; store: string; approve: 'inbox' | 'after-pending' | 'none'; http?: boolean };
  /** A server on the session's loopback that accepts connections and never answers: `{BLACKHOLE}` in the hook command is its URL. */
  blackHole?: boolean;
  /** Claude Code's `onFailure` on the hook (`toolgate install` writes "block"); null leaves it out. */
  onFailure?: 'block' | 'continue' | null;
  /** Claude Code: an `http` hook posting to this URL (`{BLACKHOLE}` and `{SERVER}` replaced) instead of the command hook. */
  httpUrl?: string;
  /** Claude Code's `--permission-mode` (bypassPermissions: the hook is the only gate). */
  permissionMode?: string;
  /**
   * Claude Code: the hook in its managed settings (/etc/claude-code, as
   * `toolgate install claude-code --scope managed` writes it) instead of
   * `--settings`. The session then runs in a mount namespace of its own
   * (`unshare -m`), where a copy of /etc with that file is bound over /etc:
   * the machine's own /etc is never touched.
   */
  managedHook?: boolean;
}

export interface HostSessionResult {
  exitCode: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  /** The bodies of the model requests, in order. */
  requests: Array<Record<string, unknown>>;
  /** What the model was told of its (last) tool call, or null. */
  toolResult: string | null;
  /** What the model was told of each of its tool calls, in order. */
  toolResults: string[];
  /** What the inbox card showed, when the session approved a call there. */
  inboxCard: string | null;
  /** connect() calls to anything but loopback and local sockets, from strace. */
  outsideConnects: string[];
  timedOut: boolean;
}

/**
 * Gemini's `streamGenerateContent?alt=sse`, as Gemini CLI reads it (measured with 0.61): one `data:` line per chunk, no
 * `event:` lines; a tool call is a `functionCall` part, a result comes back as a `functionResponse` part.
 */
const geminiGenerateContent: Pick<WireFormat, 'turn'> = {
  turn(turn) {
    const parts = [...(turn.text === undefined ? [] : [{ text: turn.text }]), ...(turn.toolCalls ?? []).map((call) => ({ functionCall: { name: call.name, args: typeof call.args === 'string' ? JSON.parse(call.args) : call.args } }))];
    const chunk = { candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }], usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 }, modelVersion: 'gemini-2.5-flash' };
    return { kind: 'sse', events: [{ data: chunk }] };
  },
};

const FORMATS: Record<HostSessionSpec['host'], Pick<WireFormat, 'turn'>> = { 'claude-code': anthropicMessages, codex: openAIResponses, gemini: geminiGenerateContent, copilot: anthropicMessages, opencode: anthropicMessages };

/** The `functionResponse` parts of a Gemini request, in order. */
function geminiResults(body: Record<string, unknown>): unknown[] {
  const results: unknown[] = [];
  for (const content of (body.contents as Array<{ parts?: Array<{ functionResponse?: { response?: unknown } }> }> | undefined) ?? []) {
    for (const part of content.parts ?? []) if (part.functionResponse !== undefined) results.push(part.functionResponse.response);
  }
  return results;
}

/** The text of the last tool result in a request, in either format. */
function toolResultText(body: Record<string, unknown>): string | null {
  const blocks: unknown[] = [];
  for (const message of (body.messages as Array<{ content?: unknown }> | undefined) ?? []) {
    if (Array.isArray(message.content)) for (const block of message.content) if ((block as { type?: string }).type === 'tool_result') blocks.push((block as { content?: unknown }).content);
  }
  for (const item of (body.input as Array<{ type?: string; output?: unknown }> | undefined) ?? []) if (item.type === 'function_call_output') blocks.push(item.output);
  blocks.push(...geminiResults(body));
  if (blocks.length === 0) return null;
  const last = blocks.at(-1);
  if (typeof last === 'string') return last;
  if (Array.isArray(last)) return last.map((part) => (typeof part === 'string' ? part : String((part as { text?: unknown }).text ?? JSON.stringify(part)))).join('');
  return JSON.stringify(last);
}

/** How many tool results a request carries, in either format. */
function toolResultCount(body: Record<string, unknown>): number {
  let count = 0;
  for (const message of (body.messages as Array<{ content?: unknown }> | undefined) ?? []) {
    if (Array.isArray(message.content)) count += message.content.filter((block) => (block as { type?: string }).type === 'tool_result').length;
  }
  for (const item of (body.input as Array<{ type?: string }> | undefined) ?? []) if (item.type === 'function_call_output') count++;
  return count + geminiResults(body).length;
}

async function main(specFile: string): Promise<void> {
  const spec = JSON.parse(readFileSync(specFile, 'utf8')) as HostSessionSpec;
  execFileSync('ip', ['link', 'set', 'lo', 'up']);
  const format = FORMATS[spec.host];
  const requests: Array<Record<string, unknown>> = [];
  let toolResult: string | null = null;
  const toolResults: string[] = [];
  let retried: Promise<string> | undefined;
  let served: Awaited<ReturnType<typeof startServe>> | undefined;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      } catch {
        // Recorded as empty.
      }
      requests.push(body);
      const seen = toolResultText(body);
      if (seen !== null && seen !== toolResult) toolResults.push(seen);
      if (seen !== null) toolResult = seen;
      // Told it is pending: a person approves it in the inbox, and the model makes the same call again.
      const retry = seen !== null && retried === undefined && spec.server?.approve === 'after-pending' && /pending approval/.test(seen);
      if (retry) {
        retried = approveInInbox(served!.url, 60_000, undefined, () => served!.stderr());
        await retried.catch(() => {});
      }
      // A sequence: the next call once the previous one's result is in; the one call otherwise (again after a pending one was approved).
      const scripted = spec.calls === undefined ? (seen === null || retry ? spec.call : undefined) : spec.calls[toolResultCount(body)];
      // "{SESSION}" in a later call's input: the session id Codex gave the program the previous call left running (for write_stdin).
      const session = /session ID (\d+)/i.exec(seen ?? '')?.[1];
      const next = scripted === undefined ? undefined : (JSON.parse(JSON.stringify(scripted).replaceAll('"{SESSION}"', session ?? '0')) as typeof scripted);
      // opencode asks the same provider for the session's title, offering no tools: that gets text.
      const sideRequest = spec.host === 'opencode' && !(Array.isArray(body.tools) && body.tools.length > 0);
      const reply =
        sideRequest
          ? format.turn({ text: 'A title' })
          : next === undefined
          ? format.turn({ text: `FINAL: ${JSON.stringify(seen)}` })
          : format.turn({ toolCalls: [{ id: `call_${requests.length}${Math.random().toString(36).slice(2, 10)}`, name: next.name, args: next.input, ...(next.namespace === undefined ? {} : { namespace: next.namespace }) }] });
      if (reply.kind !== 'sse') throw new Error('the scripted model answers in SSE');
      response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      response.end(reply.events.map((event) => `${event.event === undefined ? '' : `event: ${event.event}\n`}data: ${typeof event.data === 'string' ? event.data : JSON.stringify(event.data)}\n\n`).join(''));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  served = spec.server === undefined ? undefined : await startServe(spec);
  if (served !== undefined) spec.hook = spec.hook.replaceAll('{SERVER}', served.url);
  if (served !== undefined && spec.httpUrl !== undefined) spec.httpUrl = spec.httpUrl.replaceAll('{SERVER}', served.url);
  const blackHole = spec.blackHole === true ? createNetServer(() => {}) : undefined;
  if (blackHole !== undefined) {
    await new Promise<void>((resolve) => blackHole.listen(0, '127.0.0.1', resolve));
    const blackHoleUrl = `http://127.0.0.1:${(blackHole.address() as AddressInfo).port}`;
    spec.hook = spec.hook.replaceAll('{BLACKHOLE}', blackHoleUrl);
    if (spec.httpUrl !== undefined) spec.httpUrl = spec.httpUrl.replaceAll('{BLACKHOLE}', blackHoleUrl);
  }
  const setups = { 'claude-code': () => claudeSetup(spec, port, served?.url), gemini: () => geminiSetup(spec, port), copilot: () => copilotSetup(spec, port), opencode: () => opencodeSetup(spec, port), codex: () => codexSetup(spec, port) };
  const { args, env } = setups[spec.host]();
  // The hook's token for toolgate serve (`--approver server`), whether or not a server runs here.
  env.TOOLGATE_TOKEN = SERVE_TOKEN;
  // Given up when the CLI exits: nothing waits for an approval then, and the card it never showed is worth reporting at once.
  const cliExited = new AbortController();
  const approving = served !== undefined && spec.server!.approve === 'inbox' ? approveInInbox(served.url, spec.timeoutMs, cliExited.signal, () => served!.stderr()) : Promise.resolve(null);
  // Read after the CLI exits; handled now, so that an approval that fails first (nothing to approve yet) cannot crash this script meanwhile.
  approving.catch(() => {});
  const straceFile = path.join(spec.home, 'connects.strace');
  const child = spawn('strace', ['-f', '-qq', '-e', 'trace=connect', '-o', straceFile, spec.cli, ...args], { cwd: spec.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, spec.timeoutMs);
  const [exitCode, signal] = await new Promise<[number | null, string | null]>((resolve) => child.once('exit', (code, killed) => resolve([code, killed])));
  clearTimeout(timer);
  cliExited.abort();
  server.close();
  blackHole?.close();
  const inboxCard = await (retried ?? approving).catch((error: unknown) => `(the inbox approval failed: ${error instanceof Error ? error.message : String(error)})`);
  served?.child.kill('SIGKILL');
  let outsideConnects: string[] = [];
  try {
    outsideConnects = readFileSync(straceFile, 'utf8')
      .split('\n')
      .filter((line) => line.includes('connect(') && !line.includes('AF_UNIX') && !line.includes('AF_NETLINK'))
      .filter((line) => !/inet_addr\("127\.|inet_pton\(AF_INET6, "::1"|sin6_addr=in6addr_loopback|"::ffff:127\./.test(line));
  } catch {
    outsideConnects = ['(strace wrote no trace)'];
  }
  const result: HostSessionResult = { exitCode, signal, stdout, stderr, requests, toolResult, toolResults, inboxCard, outsideConnects, timedOut };
  writeFileSync(spec.resultFile, JSON.stringify(result));
}

const SERVE_TOKEN = 'host-session-admin-token-0123456789';
const ROOT = path.join(path.dirname(new URL(import.meta.url).pathname), '..');

/** `toolgate serve` on the session's loopback: its URL once it listens. */
async function startServe(spec: HostSessionSpec): Promise<{ url: string; child: ReturnType<typeof spawn>; stderr: () => string }> {
  const child = spawn(
    process.execPath,
    [path.join(ROOT, 'src/cli/main.ts'), 'serve', '--policy', spec.server!.policyFile, '--port', '0', '--store', spec.server!.store, '--model', `script:${path.join(ROOT, 'test/fixtures/server/append-once.yaml')}`],
    { env: { ...process.env, TOOLGATE_ADMIN_TOKEN: SERVE_TOKEN }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const url = await new Promise<string>((resolve, reject) => {
    let stdout = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const match = /^listening on (http:\/\/127\.0\.0\.1:\d+)$/m.exec(stdout);
      if (match !== null) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`toolgate serve exited (${code}) before listening: ${stderr}`)));
  });
  return { url, child, stderr: () => stderr };
}

/**
 * Waits for the first call in the inbox and clicks "Allow once" on it in
 * headless Chromium; returns the card's text. Gives up when `stop` aborts
 * (the CLI exited) or after `timeoutMs`, saying what the page and the server
 * showed, so that a card that never came can be told from one the page missed.
 */
async function approveInInbox(url: string, timeoutMs = 60_000, stop?: AbortSignal, serverLog?: () => string): Promise<string> {
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const page = await browser.newPage();
  try {
    await page.goto(`${url}/login#token=${SERVE_TOKEN}`);
    const card = page.locator('.approval').first();
    // As long as the session may run: a CLI slow to make its call (a loaded machine) is not a failure of the approval.
    const stopped = new Promise<never>((_, reject) => {
      if (stop === undefined) return;
      const fail = (): void => reject(new Error('the CLI exited before a card showed'));
      if (stop.aborted) fail();
      else stop.addEventListener('abort', fail, { once: true });
    });
    stopped.catch(() => {});
    await Promise.race([card.waitFor({ timeout: timeoutMs }), stopped]);
    const text = (await card.textContent()) ?? '';
    await card.getByRole('button', { name: 'Allow once' }).click();
    await page.locator('.approval').waitFor({ state: 'detached', timeout: 20_000 });
    return text;
  } catch (error) {
    const shown = await page.locator('body').innerText({ timeout: 2_000 }).catch(() => '(no page)');
    const pending = await fetch(`${url}/approvals`, { headers: { authorization: `Bearer ${SERVE_TOKEN}` } })
      .then(async (response) => `${response.status} ${(await response.text()).slice(0, 1_000)}`)
      .catch((cause: unknown) => String(cause));
    throw new Error(`${error instanceof Error ? error.message : String(error)}; the page showed: ${JSON.stringify(shown.slice(0, 1_000))}; GET /approvals: ${pending}; the server's log ends: ${serverLog?.().slice(-2_000) ?? ''}`);
  } finally {
    await browser.close();
  }
}

/** Claude Code 2.1: settings with the hook, an API key and base URL pointing here, nothing else reached. */
function claudeSetup(spec: HostSessionSpec, port: number, serverUrl: string | undefined): { args: string[]; env: NodeJS.ProcessEnv } {
  const configDir = path.join(spec.home, '.claude');
  mkdirSync(configDir, { recursive: true });
  const settings = path.join(spec.home, 'settings.json');
  // Claude Code's http hook posts the same JSON to the server itself: no process per call.
  const url = spec.httpUrl ?? (spec.server?.http === true && serverUrl !== undefined ? `${serverUrl}/hooks/claude-code?timeout=${spec.hookTimeoutSeconds}` : undefined);
  const onFailure = { ...(spec.onFailure === undefined || spec.onFailure === null ? {} : { onFailure: spec.onFailure }), ...(spec.statusMessage === undefined ? {} : { statusMessage: spec.statusMessage }) };
  const handler =
    url !== undefined
      ? { type: 'http', url: url, headers: { Authorization: 'Bearer $TOOLGATE_TOKEN' }, allowedEnvVars: ['TOOLGATE_TOKEN'], timeout: spec.hookTimeoutSeconds, ...onFailure }
      : { type: 'command', command: spec.hook, timeout: spec.hookTimeoutSeconds, ...onFailure };
  const hooks = { hooks: { PreToolUse: [{ matcher: '*', hooks: [handler] }] } };
  writeFileSync(settings, JSON.stringify(spec.managedHook === true ? {} : hooks, null, 2));
  if (spec.managedHook === true) {
    // In this session's own mount namespace only (the caller ran `unshare -n -m`): /etc is a copy with Claude Code's managed settings in it.
    const etc = path.join(spec.home, 'etc');
    execFileSync('cp', ['-a', '/etc', etc]);
    mkdirSync(path.join(etc, 'claude-code'), { recursive: true });
    writeFileSync(path.join(etc, 'claude-code', 'managed-settings.json'), JSON.stringify(hooks, null, 2));
    execFileSync('mount', ['--make-rprivate', '/']);
    execFileSync('mount', ['--bind', etc, '/etc']);
  }
  const args = ['-p', spec.prompt, '--output-format', 'json', '--settings', settings, '--model', 'claude-sonnet-4-5', ...(spec.permissionMode === undefined ? [] : ['--permission-mode', spec.permissionMode])];
  if (spec.mcpServers !== undefined) {
    const mcp = path.join(spec.home, 'mcp.json');
    writeFileSync(mcp, JSON.stringify({ mcpServers: Object.fromEntries(Object.entries(spec.mcpServers).map(([name, server]) => [name, { type: 'stdio', command: server.command, args: server.args }])) }));
    args.push('--mcp-config', mcp, '--strict-mcp-config');
  }
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: spec.home,
    ...(spec.shell === undefined ? {} : { SHELL: spec.shell }),
    CLAUDE_CONFIG_DIR: configDir,
    ANTHROPIC_BASE_URL: `http://127.0.0.1:${port}`,
    ANTHROPIC_API_KEY: 'dummy-key',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    DISABLE_BUG_COMMAND: '1',
    DISABLE_COST_WARNINGS: '1',
    CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY: '1',
    NO_PROXY: '127.0.0.1,localhost',
    // The tests run as root (for unshare), where Claude Code refuses bypassPermissions unless told it is sandboxed.
    ...(spec.permissionMode === 'bypassPermissions' ? { IS_SANDBOX: '1' } : {}),
  };
  return { args, env };
}

/** Codex 0.171: config.toml with a provider on loopback and the plugin sync off, hooks.json with the hook. */
function codexSetup(spec: HostSessionSpec, port: number): { args: string[]; env: NodeJS.ProcessEnv } {
  const codexHome = path.join(spec.home, '.codex');
  mkdirSync(codexHome, { recursive: true });
  const mcp = Object.entries(spec.mcpServers ?? {})
    .map(([name, server]) => `[mcp_servers.${name}]\ncommand = ${JSON.stringify(server.command)}\nargs = ${JSON.stringify(server.args)}\n`)
    .join('\n');
  writeFileSync(
    path.join(codexHome, 'config.toml'),
    `model = "gpt-5.4"
model_provider = "fake"
approval_policy = "never"
sandbox_mode = "danger-full-access"
check_for_update_on_startup = false

[model_providers.fake]
name = "fake"
base_url = "http://127.0.0.1:${port}/v1"
env_key = "FAKE_OPENAI_KEY"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0

[analytics]
enabled = false
[feedback]
enabled = false
[otel]
exporter = "none"

[projects.${JSON.stringify(spec.cwd)}]
trust_level = "trusted"

[features]
plugins = false
remote_plugin = false
apps = false
in_app_updates = false
plugin_sharing = false

${mcp}`,
  );
  writeFileSync(path.join(codexHome, 'hooks.json'), JSON.stringify({ hooks: { PreToolUse: [{ matcher: '*', hooks: [{ type: 'command', command: spec.hook, timeout: spec.hookTimeoutSeconds }] }] } }, null, 2));
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: spec.home, ...(spec.shell === undefined ? {} : { SHELL: spec.shell }), CODEX_HOME: codexHome, FAKE_OPENAI_KEY: 'dummy-key', NO_PROXY: '127.0.0.1,localhost' };
  return { args: ['exec', '--skip-git-repo-check', '--json', '--dangerously-bypass-hook-trust', spec.prompt], env };
}

/**
 * Gemini CLI 0.61: its settings in the home (the API key auth, no telemetry, updates or folder trust; hooks on, the hook
 * under BeforeTool, its timeout in ms), the API's base URL on loopback, headless with `--approval-mode yolo` (otherwise its
 * shell and write tools are not offered to the model at all): the hook is the only gate.
 */
function geminiSetup(spec: HostSessionSpec, port: number): { args: string[]; env: NodeJS.ProcessEnv } {
  const geminiHome = path.join(spec.home, '.gemini');
  mkdirSync(geminiHome, { recursive: true });
  const settingsFile = path.join(geminiHome, 'settings.json');
  // Gemini CLI reads settings with comments (JSONC), as toolgate install keeps them.
  const installed = spec.installedHooks === true ? (parseJsonc(readFileSync(settingsFile, 'utf8')) as Record<string, unknown>) : undefined;
  const settings = {
    ...installed,
    security: { auth: { selectedType: 'gemini-api-key' }, folderTrust: { enabled: spec.folderTrust === true } },
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
    general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
    hooksConfig: { enabled: true, notifications: false },
    hooks: installed?.hooks ?? { BeforeTool: [{ matcher: '.*', hooks: [{ name: 'toolgate', type: 'command', command: spec.hook, timeout: spec.hookTimeoutSeconds * 1000 }] }] },
    ...(spec.mcpServers === undefined ? {} : { mcpServers: Object.fromEntries(Object.entries(spec.mcpServers).map(([name, server]) => [name, { command: server.command, args: server.args, trust: true }])) }),
  };
  writeFileSync(settingsFile, JSON.stringify(settings, null, 2));
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: spec.home,
    GEMINI_API_KEY: 'dummy-key',
    GOOGLE_GEMINI_BASE_URL: `http://127.0.0.1:${port}`,
    GEMINI_TELEMETRY_ENABLED: 'false',
    GEMINI_CLI_NO_RELAUNCH: 'true',
    NO_BROWSER: 'true',
    NO_PROXY: '127.0.0.1,localhost',
  };
  return { args: ['-p', spec.prompt, '--output-format', 'json', '-m', 'gemini-2.5-flash', '--approval-mode', 'yolo'], env };
}

/**
 * GitHub Copilot CLI 1.0.102: its own provider (BYOK) speaking Anthropic's
 * Messages to loopback, offline (no GitHub, no telemetry, no update), the
 * hook in `$COPILOT_HOME/hooks/` (where it reads hooks headless; a
 * repository's `.github/hooks` it ignores with `-p`) under `preToolUse`,
 * its timeout in seconds; every tool allowed by Copilot itself, so the hook
 * is the only gate. With `installedHooks`, the hook files are the ones
 * `toolgate install copilot` wrote there.
 */
function copilotSetup(spec: HostSessionSpec, port: number): { args: string[]; env: NodeJS.ProcessEnv } {
  const copilotHome = path.join(spec.home, '.copilot');
  mkdirSync(path.join(copilotHome, 'hooks'), { recursive: true });
  if (spec.installedHooks !== true) {
    writeFileSync(path.join(copilotHome, 'hooks', 'toolgate.json'), JSON.stringify({ version: 1, hooks: { preToolUse: [{ type: 'command', bash: spec.hook, timeoutSec: spec.hookTimeoutSeconds }] } }, null, 2));
  }
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: spec.home,
    COPILOT_HOME: copilotHome,
    COPILOT_OFFLINE: 'true',
    COPILOT_AUTO_UPDATE: 'false',
    COPILOT_PROVIDER_BASE_URL: `http://127.0.0.1:${port}`,
    COPILOT_PROVIDER_TYPE: 'anthropic',
    COPILOT_PROVIDER_API_KEY: 'dummy-key',
    COPILOT_MODEL: 'claude-sonnet-4.5',
    NO_PROXY: '127.0.0.1,localhost',
  };
  return { args: ['-p', spec.prompt, '--output-format', 'json', '--disable-client-telemetry', '--no-ask-user', ...(spec.copilotAsks === true ? [] : ['--allow-all-tools'])], env };
}

/**
 * opencode 1.18.33: its configuration in the home's XDG folders (Anthropic's
 * provider with its base URL on loopback, no updates or sharing, every tool
 * allowed by opencode itself, so the plugin is the only gate), toolgate's
 * plugin in its plugins folder (with `installedHooks`, the one `toolgate
 * install opencode` wrote there), run headless with `opencode run`. With a
 * plugin there, opencode installs @opencode-ai/plugin into the folder from
 * the registry when it starts (a 70 s stall offline): the folder's
 * package-lock.json says it is installed (toolgate's plugin imports nothing).
 */
function opencodeSetup(spec: HostSessionSpec, port: number): { args: string[]; env: NodeJS.ProcessEnv } {
  const configHome = path.join(spec.home, '.config');
  const opencodeHome = path.join(configHome, 'opencode');
  mkdirSync(path.join(opencodeHome, 'plugins'), { recursive: true });
  mkdirSync(path.join(opencodeHome, 'node_modules'), { recursive: true });
  writeFileSync(path.join(opencodeHome, 'package-lock.json'), JSON.stringify({ packages: { '': { dependencies: { '@opencode-ai/plugin': '1.18.33' } } } }));
  if (spec.installedHooks !== true) writeFileSync(path.join(opencodeHome, 'plugins', 'toolgate.js'), opencodePluginSource({ command: spec.hook, timeoutSeconds: spec.hookTimeoutSeconds }));
  const mcp = Object.fromEntries(Object.entries(spec.mcpServers ?? {}).map(([name, server]) => [name, { type: 'local', command: [server.command, ...server.args], enabled: true }]));
  writeFileSync(
    path.join(opencodeHome, 'opencode.json'),
    JSON.stringify({
      autoupdate: false,
      share: 'disabled',
      model: 'anthropic/claude-fake',
      small_model: 'anthropic/claude-fake',
      provider: { anthropic: { options: { baseURL: `http://127.0.0.1:${port}/v1`, apiKey: 'dummy-key' }, models: { 'claude-fake': { name: 'claude-fake', tool_call: true, limit: { context: 200000, output: 8192 } } } } },
      permission: { '*': 'allow' },
      ...(spec.mcpServers === undefined ? {} : { mcp }),
    }),
  );
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: spec.home,
    ...(spec.shell === undefined ? {} : { SHELL: spec.shell }),
    XDG_CONFIG_HOME: configHome,
    XDG_DATA_HOME: path.join(spec.home, '.local', 'share'),
    XDG_CACHE_HOME: path.join(spec.home, '.cache'),
    XDG_STATE_HOME: path.join(spec.home, '.local', 'state'),
    OPENCODE_DISABLE_AUTOUPDATE: '1',
    OPENCODE_DISABLE_MODELS_FETCH: '1',
    OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
    OPENCODE_DISABLE_DEFAULT_PLUGINS: '1',
    OPENCODE_DISABLE_SHARE: '1',
    OPENCODE_DISABLE_CLAUDE_CODE: '1',
    OPENCODE_DISABLE_EXTERNAL_SKILLS: '1',
    NO_PROXY: '127.0.0.1,localhost',
    ...spec.env,
  };
  return { args: ['run', spec.prompt], env };
}

if (import.meta.main) await main(process.argv[2]!);
