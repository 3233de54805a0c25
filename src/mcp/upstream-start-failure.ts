import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { errorMessage } from '../core/run-tool-check.ts';
import { ProcessGroupStdioTransport } from './process-group-stdio-transport.ts';
import type { UpstreamServerConfig } from './upstream-server-config.ts';

/** Lines of a failing server's stderr shown with the reason, and characters of each. */
const TAIL_LINES = 10;
const LINE_CHARACTERS = 300;

/**
 * Variables that a server commonly needs to reach the network or a package
 * registry, and that the gateway does not pass on unless asked: when one is
 * set where toolgate runs, the report names it (never its value).
 */
const OFTEN_NEEDED = [
  'NODE_EXTRA_CA_CERTS',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'REQUESTS_CA_BUNDLE',
  'HTTPS_PROXY',
  'HTTP_PROXY',
  'NO_PROXY',
  'https_proxy',
  'http_proxy',
  'no_proxy',
  'NPM_CONFIG_REGISTRY',
  'npm_config_registry',
  'NPM_CONFIG_CAFILE',
  'npm_config_cafile',
  'PIP_INDEX_URL',
  'UV_INDEX_URL',
];

export interface StartFailureOptions {
  config: UpstreamServerConfig;
  /** The transport of the attempt that failed. */
  transport: Transport;
  error: unknown;
  /** Whether the server answered initialize (then a list request failed). */
  initialized: boolean;
  connectTimeoutMs: number;
  /** Where `mcp.servers` is written, to say where `env_from` goes. */
  policyPath?: string;
  /** toolgate's own environment: which of the often needed variables are set here but not passed. */
  environment: Readonly<Record<string, string | undefined>>;
}

/**
 * Why a server could not start, in one line: it did not answer (which
 * request, within how long), it exited (code or signal), or its command
 * could not be run.
 *
 * @example
 * startFailureReason({ config, transport, error, initialized: false, connectTimeoutMs: 30_000, environment: process.env })
 * // 'it did not answer the MCP initialize request within 30 s'
 */
export function startFailureReason(options: StartFailureOptions): string {
  const { error, transport } = options;
  const exit = transport instanceof ProcessGroupStdioTransport ? transport.exit : undefined;
  if (exit !== undefined) return exit.signal !== null ? `it was killed by ${exit.signal} before it was ready` : `it exited with code ${exit.code} before it was ready`;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOENT' && options.config.transport.kind === 'stdio') {
    return `its command ${JSON.stringify(options.config.transport.command)} was not found (is it installed, and on the PATH toolgate passes it?)`;
  }
  if (code === 'EACCES' && options.config.transport.kind === 'stdio') return `its command ${JSON.stringify(options.config.transport.command)} is not executable`;
  if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
    const seconds = Math.round(options.connectTimeoutMs / 100) / 10;
    return options.initialized ? `it answered initialize, then did not list its tools, prompts or resources within ${seconds} s` : `it did not answer the MCP initialize request within ${seconds} s`;
  }
  return errorMessage(error);
}

/**
 * The full account of a server that could not start, one line per item, for
 * the gateway's log: the reason; the tail of its stderr (at most 10 lines of
 * 300 characters; the log escapes control characters); for a local server,
 * the names of the environment variables it got (never their values), which
 * often needed ones are set where toolgate runs but were not passed, and how
 * to pass them (`env_from:`).
 *
 * @example
 * startFailureReport({ config, transport, error, initialized: false, connectTimeoutMs: 30_000, policyPath: 'toolgate.yaml', environment: process.env })
 * // ['server "files" could not start: it exited with code 1 before it was ready', '  its stderr (last 2 of 2 lines):', '  | Error: ...', ...]
 */
export function startFailureReport(options: StartFailureOptions): string[] {
  const { config, transport } = options;
  const lines = [`server ${JSON.stringify(config.name)} could not start: ${startFailureReason(options)}`];
  if (transport instanceof ProcessGroupStdioTransport) {
    const written = trimBlankEnds(transport.stderrTail);
    const shown = written.slice(-TAIL_LINES);
    if (shown.length === 0) lines.push('  it wrote nothing to stderr');
    else {
      lines.push(`  its stderr (${shown.length === written.length && transport.stderrLineCount === written.length ? `${shown.length} ${shown.length === 1 ? 'line' : 'lines'}` : `last ${shown.length} of ${transport.stderrLineCount} lines`}):`);
      for (const line of shown) lines.push(`  | ${line.length > LINE_CHARACTERS ? `${line.slice(0, LINE_CHARACTERS)}…` : line}`);
    }
  }
  if (config.transport.kind === 'stdio' && transport instanceof ProcessGroupStdioTransport) {
    const got = transport.environmentNames;
    lines.push(`  its environment (names only): ${got.length === 0 ? 'none' : got.join(', ')}`);
    const missing = OFTEN_NEEDED.filter((name) => options.environment[name] !== undefined && !got.includes(name));
    const where = `mcp.servers.${config.name}.env_from${options.policyPath === undefined ? '' : ` in ${options.policyPath}`}`;
    lines.push(
      '  toolgate passes a server only a few basic variables and those its env: and env_from: name' +
        (missing.length > 0 ? `; set here but not passed: ${missing.join(', ')}` : ''),
    );
    lines.push(`  to pass variables of toolgate's environment as they are, list them under ${where}, e.g. env_from: [${(missing.length > 0 ? missing.slice(0, 3) : ['NODE_EXTRA_CA_CERTS']).join(', ')}]`);
  }
  lines.push('  toolgate keeps retrying it in the background, waiting longer each time');
  return lines;
}

function trimBlankEnds(lines: readonly string[]): string[] {
  let start = 0;
  let end = lines.length;
  while (start < end && lines[start]!.trim() === '') start++;
  while (end > start && lines[end - 1]!.trim() === '') end--;
  return lines.slice(start, end);
}
