/**
 * Shared set-up for the MCP gateway tests: real upstream servers spawned over
 * stdio (server-filesystem, server-everything, the fixture), the gateway
 * built from a policy file in a temporary directory, and the SDK's real
 * `Client` connected to it over an in-memory transport.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ElicitRequestSchema, type ElicitRequest, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { loadPolicyFile } from '../src/config/load-policy-file.ts';
import { createMcpGateway, type McpGateway } from '../src/mcp/create-mcp-gateway.ts';
import type { McpGatewayOptions } from '../src/mcp/mcp-gateway-options.ts';

export const ROOT = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
/** The pinned Node (24): the machine's may be too old for the servers and for type stripping. */
export const NODE = path.join(ROOT, 'node_modules', '.bin', 'node');
export const FILESYSTEM_SERVER = path.join(ROOT, 'node_modules', '@modelcontextprotocol', 'server-filesystem', 'dist', 'index.js');
export const EVERYTHING_SERVER = path.join(ROOT, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
export const FIXTURE_SERVER = path.join(ROOT, 'test', 'fixtures', 'mcp-fixture-server.ts');
export const MCP_ENTRY = path.join(ROOT, 'src', 'cli', 'mcp-entry.ts');

export const filesystemServer = (directory: string) => ({ command: NODE, args: [FILESYSTEM_SERVER, directory] });
export const everythingServer = () => ({ command: NODE, args: [EVERYTHING_SERVER, 'stdio'] });
export const fixtureServer = () => ({ command: NODE, args: [FIXTURE_SERVER] });

export type ElicitHandler = (request: ElicitRequest) => ElicitResult | Promise<ElicitResult>;

export interface GatewayHarness {
  client: Client;
  gateway: McpGateway;
  /** The temporary directory holding the policy, its .toolgate state and a `ws` workspace. */
  directory: string;
  workspace: string;
  /** Every approval form the client received (the first dialog of each ask). */
  elicitations: ElicitRequest['params'][];
  /** Every second step of a wide approval ("for this session", "always") the client received. */
  confirmations: ElicitRequest['params'][];
  logs: string[];
  /** Lines of the audit log, parsed. */
  audit(): Record<string, unknown>[];
  /** A second client on the same gateway (another session). */
  connectClient(options?: { elicit?: ElicitHandler }): Promise<Client>;
  /** Connects a client the test built (its own capabilities and handlers) as another session; closed with the harness. */
  attach(client: Client): Promise<Client>;
  close(): Promise<void>;
}

/** A scratch directory with a `ws` workspace inside, resolved through symlinks (macOS /tmp). */
export function makeScratch(prefix: string): { directory: string; workspace: string } {
  const directory = realpathSync(mkdtempSync(path.join(os.tmpdir(), prefix)));
  const workspace = path.join(directory, 'ws');
  writeFileSync(path.join(directory, '.keep'), '');
  return { directory, workspace };
}

/**
 * Writes `policy` (a policy document; functions of the scratch directory are
 * allowed) to a temporary policy file, starts the gateway on it and connects a
 * client. `elicit` answers elicitations; without it the client does not
 * declare the capability at all.
 */
export async function startGatewayHarness(options: {
  policy: (scratch: { directory: string; workspace: string }) => Record<string, unknown>;
  elicit?: ElicitHandler;
  gateway?: Omit<McpGatewayOptions, 'loaded'>;
  setup?: (scratch: { directory: string; workspace: string }) => void;
}): Promise<GatewayHarness> {
  const scratch = makeScratch('toolgate-mcp-');
  const { directory, workspace } = scratch;
  mkdirSync(workspace, { recursive: true });
  options.setup?.(scratch);
  const policyPath = path.join(directory, 'toolgate.json');
  writeFileSync(policyPath, JSON.stringify(options.policy(scratch), null, 2));
  const logs: string[] = [];
  const gateway = createMcpGateway({
    loaded: await loadPolicyFile(policyPath),
    restart: { initialDelayMs: 100, maxDelayMs: 1000 },
    log: (line) => void logs.push(line),
    ...options.gateway,
  });
  const clients: Client[] = [];
  const elicitations: ElicitRequest['params'][] = [];
  const confirmations: ElicitRequest['params'][] = [];
  async function connectClient(clientOptions: { elicit?: ElicitHandler } = {}): Promise<Client> {
    const client = new Client({ name: 'toolgate-test', version: '1.0.0' }, { capabilities: clientOptions.elicit === undefined ? {} : { elicitation: {} } });
    if (clientOptions.elicit !== undefined) {
      const elicit = clientOptions.elicit;
      client.setRequestHandler(ElicitRequestSchema, async (request) => {
        (isConfirmation(request) ? confirmations : elicitations).push(request.params);
        return elicit(request);
      });
    }
    return attach(client);
  }
  async function attach(client: Client): Promise<Client> {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await gateway.connect(serverSide);
    await client.connect(clientSide);
    clients.push(client);
    return client;
  }
  try {
    await gateway.start();
    const client = await connectClient({ elicit: options.elicit });
    return {
      client,
      gateway,
      directory,
      workspace,
      elicitations,
      confirmations,
      logs,
      audit: () => readAudit(path.join(directory, '.toolgate', 'audit.jsonl')),
      connectClient,
      attach,
      async close() {
        await Promise.allSettled(clients.map((each) => each.close()));
        await gateway.close();
        rmSync(directory, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await gateway.close();
    rmSync(directory, { recursive: true, force: true });
    throw error;
  }
}

export function readAudit(file: string): Record<string, unknown>[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** The answer of a person who approves. */
/** The second step of a wide approval: its form asks for `confirm`. */
export function isConfirmation(request: ElicitRequest): boolean {
  return 'confirm' in ((request.params as { requestedSchema?: { properties?: object } }).requestedSchema?.properties ?? {});
}

export const approve =
  (scope: 'once' | 'session' | 'always' = 'once'): ElicitHandler =>
  (request): ElicitResult =>
    // The second step of "for this session" and "always" (what it covers, then confirm): confirmed.
    isConfirmation(request)
      ? { action: 'accept', content: { confirm: 'yes' } }
      : { action: 'accept', content: { decision: 'approve', scope } };

/** The text of a tool result's first content block. */
export function resultText(result: unknown): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? [];
  return content.map((block) => block.text ?? '').join('\n');
}

/** Retries `attempt` until it returns a value or `timeoutMs` passes. */
export async function eventually<Value>(attempt: () => Promise<Value | undefined>, timeoutMs = 10_000): Promise<Value> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await attempt();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** `toolgate mcp --http 0` as a process of its own. */
export interface HttpGatewayProcess {
  /** `http://127.0.0.1:<port>/mcp`, as the gateway printed it. */
  url: string;
  child: ChildProcess;
  /** SIGTERM, then its exit code. */
  stop(): Promise<number | null>;
}

/**
 * Starts the real CLI entry with `--http 0 --no-terminal` on `policyPath`,
 * the token in TOOLGATE_MCP_TOKEN, and waits for its listening line.
 *
 * @example
 * const gateway = await startHttpGatewayProcess({ policyPath, token: 'test-token-0123456789abcdef' });
 */
export async function startHttpGatewayProcess(options: { policyPath: string; token: string }): Promise<HttpGatewayProcess> {
  const child = spawn(NODE, [MCP_ENTRY, '--policy', options.policyPath, '--http', '0', '--no-terminal'], { env: { ...process.env, TOOLGATE_MCP_TOKEN: options.token }, stdio: ['ignore', 'ignore', 'pipe'] });
  const url = await new Promise<string>((resolve, reject) => {
    let stderr = '';
    const timer = setTimeout(() => reject(new Error(`no URL printed: ${stderr}`)), 20_000);
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr);
      if (match !== null) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.once('exit', (code) => reject(new Error(`exited with ${code}: ${stderr}`)));
  });
  return {
    url,
    child,
    stop: () => {
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      return exited;
    },
  };
}
