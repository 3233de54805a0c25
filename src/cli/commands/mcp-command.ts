import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { PassThrough, type Writable } from 'node:stream';
import { createServerApprover } from '../../approvers/server/server-approver.ts';
import { createTerminalApprover } from '../../approvers/terminal/terminal-approver.ts';
import type { Approver } from '../../core/approver.ts';
import { durationMs } from '../../core/policy/normalize-policy.ts';
import { createMcpGateway, type McpGateway } from '../../mcp/create-mcp-gateway.ts';
import { GatewayStdioTransport } from '../../mcp/gateway-stdio-transport.ts';
import { DEFAULT_CALL_TIMEOUT_MS, type ApproverChoice } from '../../mcp/mcp-gateway-options.ts';
import { generateGatewayToken, MIN_TOKEN_LENGTH, startHttpGateway, type HttpGateway } from '../../mcp/http-gateway.ts';
import { DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_IDLE_TIMEOUT_MS } from '../../mcp/http-session-pool.ts';
import { startMetricsEndpoint, type MetricsEndpoint } from '../../mcp/metrics-endpoint.ts';
import { createGateMetrics } from '../../metrics/create-metrics.ts';
import type { NamespacingMode } from '../../mcp/assign-client-names.ts';
import { EXIT, type CliIo } from '../cli-io.ts';
import { loadPolicyOrExplain, UsageError } from '../cli-support.ts';
import { parseCommandLine } from '../parse-command-line.ts';
import { RUN_MODE_OPTIONS, runModeFrom, runModeHelp } from '../run-mode-options.ts';
import { announcePolicy } from '../../config/policy-discovery.ts';
import { openControllingTerminal, type ControllingTerminal } from '../open-controlling-terminal.ts';

export const MCP_HELP = `Usage:
  toolgate mcp [--policy FILE] [options]

An MCP server in front of the MCP servers named in the policy (mcp.servers).
Clients see their tools; every tools/call goes through the policy, and asks
a person when the policy says so. Resources, prompts and logging pass through.

Options:
  --policy FILE            the policy (default: ./toolgate.yaml, .yml or .json)
  --http PORT              serve Streamable HTTP on http://127.0.0.1:PORT/mcp instead
                           of stdio (0: any free port). Requests need the bearer token.
  --token TOKEN            the bearer token for --http (default: $TOOLGATE_MCP_TOKEN;
                           else one is generated and printed to stderr). At least
                           ${MIN_TOKEN_LENGTH} characters; prefer the variable (argv is visible in ps).
  --session-idle-timeout DURATION
                           with --http: close a session that has had no request and no
                           open stream for this long, e.g. 10m, 1h (default ${DEFAULT_SESSION_IDLE_TIMEOUT_MS / 60_000}m);
                           its id then answers 404 and the client must initialize again
  --max-sessions N         with --http: open sessions at most (default ${DEFAULT_MAX_SESSIONS}). A new client
                           takes the place of the least recently used idle one; it is
                           refused (503) only when every session is busy. DELETE ends one.
  --namespace MODE         collisions (default): a tool keeps its name unless two servers
                           offer that name, then both are listed as <namespace>__<name>;
                           always: every tool is <namespace>__<name>. The namespace is the
                           server's \`namespace\`, else its name under mcp.servers.
  --call-timeout DURATION  deadline of each forwarded call, e.g. 30s, 2m (default ${DEFAULT_CALL_TIMEOUT_MS / 1000}s);
                           the call is then cancelled on the server
  --metrics-port PORT      serve Prometheus metrics on http://127.0.0.1:PORT/metrics
                           (no token; 0: any free port, printed). With --http they
                           are also at /metrics beside /mcp, behind the bearer token.
                           Names as in seed 004: tool_authorization_failures_total,
                           tool_consent_required_total, dangerous_operations_detected_total,
                           toolgate_decision_duration_seconds
${runModeHelp(24)}
  --approver WHO           how a person is asked: elicitation (MCP elicitation only),
                           terminal (this terminal only: for clients that answer
                           elicitation on their own), server (toolgate serve's web
                           inbox, with --server; anyone on the team with an
                           approver's token decides there), none (nobody: asks are
                           denied). Default: elicitation when the client supports
                           it, else the terminal
  --server URL             with --approver server: where toolgate serve listens
                           (http://127.0.0.1:8787). The token of a submitter goes
                           in TOOLGATE_TOKEN (toolgate token create NAME --role
                           submitter). This policy still decides what is allowed,
                           asked and blocked; the inbox only decides the asks, and
                           the call runs here. Unreachable, or a refused token:
                           the ask is denied
  --no-terminal            never ask in the terminal (/dev/tty)
  --stats-file FILE        on exit, write call statistics as JSON (benchmarks)
  -v, --verbose            relay every line the servers write to stderr, from their
                           start on, and every message about them. Without it, a
                           server's stderr is shown when it fails to start (its last
                           lines, with the reason and its environment's names), and
                           expected messages (roots no client shares, a message lost
                           to a server that stopped) are one line per server
  -h, --help               this help

Which rule decides a call (then the most restrictive of all that speak wins):
  mcp.servers.<server>.tools.<tool>  keyed by the tool's name on its server;
                                     its argument rules first
  tools.<name>                       keyed by the name clients see; when the
                                     server has no rule, the server default is
                                     not applied
  mcp.servers.<server>.default       for tools with no rule anywhere (ask when
                                     absent); trust_annotations: true lets a
                                     readOnlyHint tool be allowed (never a
                                     destructiveHint one); the policy's
                                     unknown_tools.dangerous_keywords raise it
                                     back to ask
  filter, ask_when                   apply to the names clients see; a server's
                                     own filter, ask_when and ask_always to
                                     the names on that server
A tool blocked whatever its arguments is not listed; called by name, its
rule refuses it.

How a person is asked (without --approver), first available wins: MCP
elicitation (when the client supports it), the terminal the gateway was
started from (/dev/tty), else the call is denied with a message saying how
to approve.

Runs until stdin closes or stdout breaks (stdio), or SIGINT/SIGTERM/SIGHUP;
then it stops every server with its whole process group. Should the gateway
itself be killed (kill -9), a watchdog process it started kills them.

Exit codes:
  0  stopped normally     2  usage error
  3  the policy file is missing or invalid, or names no MCP servers
`;

/**
 * \`toolgate mcp\`: the MCP gateway on stdio or Streamable HTTP.
 *
 * @example
 * process.exitCode = await runMcpCommand(['--policy', 'toolgate.yaml'], processIo());
 */
export async function runMcpCommand(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseCommandLine({
    argv,
    allowNegative: true,
    options: {
      policy: { type: 'string' },
      http: { type: 'string' },
      token: { type: 'string' },
      namespace: { type: 'string' },
      'call-timeout': { type: 'string' },
      'session-idle-timeout': { type: 'string' },
      'max-sessions': { type: 'string' },
      'metrics-port': { type: 'string' },
      approver: { type: 'string' },
      server: { type: 'string' },
      ...RUN_MODE_OPTIONS,
      terminal: { type: 'boolean', default: true },
      'stats-file': { type: 'string' },
      verbose: { type: 'boolean', short: 'v' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help === true) {
    io.stdout.write(MCP_HELP);
    return EXIT.ok;
  }
  const mode = runModeFrom(values);
  const namespacing = values.namespace ?? 'collisions';
  if (namespacing !== 'collisions' && namespacing !== 'always') throw new UsageError(`--namespace must be collisions or always, not ${JSON.stringify(namespacing)}`);
  const callTimeoutMs = values['call-timeout'] === undefined ? DEFAULT_CALL_TIMEOUT_MS : parseDuration('--call-timeout', values['call-timeout']);
  const port = values.http === undefined ? undefined : parsePort('--http', values.http);
  const metricsPort = values['metrics-port'] === undefined ? undefined : parsePort('--metrics-port', values['metrics-port']);
  const approverChoice = parseApproverChoice(values.approver);
  const server = inboxServer(approverChoice, values.server, io.env);
  if (approverChoice === 'terminal' && values.terminal === false) throw new UsageError('--approver terminal asks in the terminal; --no-terminal forbids it: give one of them');
  const sessionIdleTimeoutMs = values['session-idle-timeout'] === undefined ? undefined : parseDuration('--session-idle-timeout', values['session-idle-timeout']);
  const maxSessions = values['max-sessions'] === undefined ? undefined : parseSessionCount(values['max-sessions']);
  if (port === undefined && (sessionIdleTimeoutMs !== undefined || maxSessions !== undefined)) {
    throw new UsageError(`${sessionIdleTimeoutMs !== undefined ? '--session-idle-timeout' : '--max-sessions'} applies only with --http`);
  }
  const token = port === undefined ? undefined : (values.token ?? io.env.TOOLGATE_MCP_TOKEN);
  if (token !== undefined && token.length < MIN_TOKEN_LENGTH) throw new UsageError(`the token must have at least ${MIN_TOKEN_LENGTH} characters`);
  if (port === undefined && values.token !== undefined) throw new UsageError('--token applies only with --http');

  const loaded = await loadPolicyOrExplain({ policy: values.policy, io });
  // Which file, and whether an earlier run's agent could have planted it (src/config/policy-discovery.ts).
  announcePolicy({ loaded, origin: values.policy === undefined ? 'found' : 'flag', cwd: io.cwd, env: io.env, write: (text) => io.stderr.write(text), record: true });
  const log = (line: string) => void io.stderr.write(`toolgate mcp: ${line}\n`);
  if (Object.keys(loaded.policy.document.mcp?.servers ?? {}).length === 0) {
    io.stderr.write(
      `toolgate mcp: ${loaded.path} names no MCP servers: add them under mcp.servers, for example these lines:\n` +
        'mcp:\n  servers:\n    files: { command: npx, args: ["-y", "@modelcontextprotocol/server-filesystem", "."] }\n',
    );
    return EXIT.policy;
  }
  const terminal: ControllingTerminal | undefined =
    values.terminal && approverChoice !== 'elicitation' && approverChoice !== 'none' && approverChoice !== 'server' ? openControllingTerminal() : undefined;
  if (approverChoice === 'terminal' && terminal === undefined) {
    io.stderr.write('toolgate mcp: --approver terminal needs a terminal (/dev/tty), and none is attached: start it from a terminal, or choose another --approver\n');
    return EXIT.usage;
  }
  const terminalApprover: Approver | undefined =
    terminal === undefined ? undefined : createTerminalApprover({ input: terminal.input, output: terminal.output, env: io.env });
  let gateway: McpGateway | undefined;
  let http: HttpGateway | undefined;
  let metricsEndpoint: MetricsEndpoint | undefined;
  const metrics = createGateMetrics();
  // Read from the start, into a buffer: a client that leaves while the servers are still starting is seen leaving.
  const input = port === undefined ? io.stdin.pipe(new PassThrough()) : undefined;
  const stopped = waitForStop({ io, stdio: port === undefined });
  try {
    const approver =
      server === undefined
        ? undefined
        : createServerApprover({ ...server, caller: (request) => callerText(request.context.caller), ...(loaded.policy.approvalTimeoutMs === undefined ? {} : { approvalTimeoutMs: loaded.policy.approvalTimeoutMs }) });
    gateway = createMcpGateway({
      loaded,
      mode,
      namespacing: namespacing as NamespacingMode,
      callTimeoutMs,
      terminalApprover,
      ...(approver === undefined ? {} : { approver }),
      log,
      observer: metrics,
      approverChoice,
      verbose: values.verbose === true,
      environment: io.env,
    });
    // A signal or a client gone while a server is still starting stops the gateway now, not after the start timeout.
    if ((await Promise.race([gateway.start().then(() => 'started' as const), stopped.promise.then(() => 'stopped' as const)])) === 'stopped') return EXIT.ok;
    const upstreams = gateway.upstreams();
    const down = upstreams.filter((upstream) => upstream.state !== 'ready').map((upstream) => upstream.name);
    log(
      `serving ${gateway.tools().length} tools from ${upstreams.length - down.length} of ${upstreams.length} servers` +
        `${down.length > 0 ? ` (not running yet: ${down.join(', ')})` : ''}; approvals by ${server === undefined ? approverText(approverChoice, terminal !== undefined) : `toolgate serve's inbox at ${server.url}`}`,
    );
    if (metricsPort !== undefined) {
      metricsEndpoint = await startMetricsEndpoint({ port: metricsPort, registry: metrics.registry });
      log(`metrics on ${metricsEndpoint.url}`);
    }
    if (port !== undefined) {
      const effectiveToken = token ?? generateGatewayToken();
      http = await startHttpGateway({ gateway, port, token: effectiveToken, log, sessionIdleTimeoutMs, maxSessions, metrics: metrics.registry });
      log(`listening on ${http.url}`);
      if (token === undefined) log(`bearer token (send "Authorization: Bearer <token>"): ${effectiveToken}`);
    } else {
      // The protocol needs the real streams, not just something with write().
      await gateway.connect(new GatewayStdioTransport({ input: input!, output: io.stdout as unknown as Writable }));
    }
    await stopped.promise;
    return EXIT.ok;
  } finally {
    stopped.dispose();
    await http?.close();
    await metricsEndpoint?.close();
    if (values['stats-file'] !== undefined && gateway !== undefined) {
      writeFileSync(path.resolve(io.cwd, values['stats-file']), `${JSON.stringify({ stats: gateway.stats(), upstreams: gateway.upstreams() }, null, 2)}\n`);
    }
    await gateway?.close();
    terminal?.close();
  }
}

const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * Resolves on SIGINT, SIGTERM or SIGHUP, and for stdio when the client went
 * away: stdin ended, or stdout broke (EPIPE). A broken stdout or stderr is
 * never an unhandled error: the gateway then stops its servers and exits.
 */
function waitForStop(options: { io: CliIo; stdio: boolean }): { promise: Promise<void>; dispose(): void } {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => (resolve = done));
  const stop = () => resolve();
  for (const signal of STOP_SIGNALS) process.once(signal, stop);
  const stdout = emitter(options.io.stdout);
  // Kept after dispose: a write still in flight may report the broken pipe later.
  ignoreStreamErrors(options.io.stderr);
  ignoreStreamErrors(options.io.stdout);
  if (options.stdio) {
    options.io.stdin.once('end', stop);
    options.io.stdin.once('close', stop);
    stdout?.once('error', stop);
  }
  return {
    promise,
    dispose() {
      for (const signal of STOP_SIGNALS) process.off(signal, stop);
      options.io.stdin.off('end', stop);
      options.io.stdin.off('close', stop);
      stdout?.off('error', stop);
    },
  };
}

const quieted = new WeakSet<object>();

/** A closed stdout or stderr (the client or the terminal went away) must not crash the gateway. */
function ignoreStreamErrors(stream: CliIo['stdout']): void {
  const events = emitter(stream);
  if (events === undefined || quieted.has(events)) return;
  quieted.add(events);
  events.on('error', () => undefined);
}

function emitter(stream: CliIo['stdout']): NodeJS.EventEmitter | undefined {
  return typeof (stream as Partial<NodeJS.EventEmitter>).on === 'function' ? (stream as unknown as NodeJS.EventEmitter) : undefined;
}

function parseDuration(flag: string, text: string): number {
  const value = /^\d+(\.\d+)?$/.test(text) ? durationMs(Number(text)) : durationMs(text);
  if (value === undefined || value <= 0) throw new UsageError(`${flag} must be a duration such as 30s, 500ms or 2m, not ${JSON.stringify(text)}`);
  // setTimeout cannot wait longer than 2^31 - 1 ms (about 24.8 days).
  if (value > 2_147_483_647) throw new UsageError(`${flag} must be at most 24 days, not ${JSON.stringify(text)}`);
  return value;
}

function parseSessionCount(text: string): number {
  const count = Number(text);
  if (!/^\d+$/.test(text) || count < 1 || count > 100_000) throw new UsageError(`--max-sessions must be a whole number from 1 to 100000, not ${JSON.stringify(text)}`);
  return count;
}

function parseApproverChoice(text: string | undefined): ApproverChoice {
  if (text === undefined) return 'auto';
  if (text === 'elicitation' || text === 'terminal' || text === 'server' || text === 'none') return text;
  throw new UsageError(`--approver must be elicitation, terminal, server or none, not ${JSON.stringify(text)}`);
}

/** `--approver server`'s server: its URL and the submitter's token (TOOLGATE_TOKEN). */
function inboxServer(choice: ApproverChoice, server: string | undefined, env: NodeJS.ProcessEnv): { url: string; token: string } | undefined {
  if (choice !== 'server') {
    if (server !== undefined) throw new UsageError('--server goes with --approver server');
    return undefined;
  }
  if (server === undefined) throw new UsageError('--approver server needs --server URL (where toolgate serve listens, e.g. http://127.0.0.1:8787)');
  let url: URL;
  try {
    url = new URL(server);
  } catch {
    throw new UsageError(`--server must be a URL such as http://127.0.0.1:8787, not ${JSON.stringify(server)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`--server must be an http or https URL, not ${JSON.stringify(server)}`);
  const token = env.TOOLGATE_TOKEN;
  if (token === undefined || token === '') throw new UsageError('--approver server needs the token of a submitter in TOOLGATE_TOKEN (toolgate token create NAME --role submitter)');
  return { url: url.href, token };
}

/** Who asks, as the inbox's card says it: the MCP client's name is the client's to choose, so only printable text of it. */
function callerText(caller: string | undefined): string {
  const client = caller?.startsWith('mcp:') === true ? caller.slice('mcp:'.length) : caller;
  const printable = (client ?? '').replace(/[^\x20-\x7e]/g, '?').slice(0, 100);
  return printable === '' ? 'toolgate mcp' : `toolgate mcp (client ${printable})`;
}

function approverText(choice: ApproverChoice, hasTerminal: boolean): string {
  if (choice === 'none') return 'nobody (--approver none: asks are denied)';
  if (choice === 'terminal') return 'this terminal only';
  return hasTerminal ? 'MCP elicitation or this terminal' : 'MCP elicitation only';
}

function parsePort(flag: string, text: string): number {
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65535) throw new UsageError(`${flag} must be a port number (0-65535), not ${JSON.stringify(text)}`);
  return port;
}
