/**
 * The Inspector's `mcpdo` (`@modelcontextprotocol/inspector` v2) in front of
 * `toolgate mcp` over stdio, as real processes: mcpdo holds the connection in
 * its daemon and answers elicitation, so toolgate's approval dialog reaches a
 * client nobody here wrote. An approval runs the call, a denial with a reason
 * comes back as an error result with the reason, and both are audited as the
 * person's decisions.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureServer, makeScratch, MCP_ENTRY, NODE, readAudit } from './mcp-gateway-harness.ts';

const MCPDO = path.resolve(import.meta.dirname, '..', 'node_modules', '@modelcontextprotocol', 'inspector', 'clients', 'mcpdo', 'build', 'mcp-bin.js');
const run = promisify(execFile);

let scratch: { directory: string; workspace: string };
let policyPath: string;
let env: NodeJS.ProcessEnv;

/** One mcpdo invocation's JSON output, whatever its exit status (it exits non-zero for an isError result). */
async function mcpdo(args: string[]): Promise<any> {
  let stdout: string;
  try {
    // Before a `--`: what follows it is the server's command line.
    const end = args.indexOf('--') === -1 ? args.length : args.indexOf('--');
    stdout = (await run(NODE, [MCPDO, ...args.slice(0, end), '--format', 'json', ...args.slice(end)], { env, timeout: 60_000 })).stdout;
  } catch (error) {
    stdout = (error as { stdout?: string }).stdout ?? '';
    if (stdout.trim() === '') throw error;
  }
  return JSON.parse(stdout);
}

beforeAll(() => {
  scratch = makeScratch('toolgate-mcpdo-');
  mkdirSync(scratch.workspace, { recursive: true });
  const home = path.join(scratch.directory, 'home');
  mkdirSync(home);
  // mcpdo keeps its catalog, daemon socket and secrets under HOME: a scratch one, with a file secret store (no keychain here).
  env = { ...process.env, HOME: home, MCP_INSPECTOR_SECRET_STORE: 'file', MCP_CATALOG_PATH: path.join(scratch.directory, 'catalog.json') };
  policyPath = path.join(scratch.directory, 'toolgate.json');
  writeFileSync(policyPath, JSON.stringify({ mcp: { servers: { fixture: { ...fixtureServer(), tools: { echo: 'ask', pid: 'allow' } } } } }));
});

afterAll(async () => {
  await run(NODE, [MCPDO, 'daemon', 'stop'], { env, timeout: 30_000 }).catch(() => undefined);
  rmSync(scratch.directory, { recursive: true, force: true });
});

describe('mcpdo, toolgate mcp over stdio', { timeout: 180_000 }, () => {
  it("answers toolgate's approval dialog: approved runs, denied does not, and the audit says the person decided", async () => {
    const connected = await mcpdo(['connect', '--', NODE, MCP_ENTRY, '--policy', policyPath, '--no-terminal']);
    const connection = connected.name as string;
    expect(typeof connection).toBe('string');

    const pid = await mcpdo(['--connection', connection, 'tools/call', 'pid']);
    expect(pid.content[0].text).toMatch(/^\d+$/);

    const asked = await mcpdo(['--connection', connection, 'tools/call', 'echo', 'text:=hello from mcpdo']);
    expect(asked.elicitationPending).toMatchObject({ toolName: 'echo', origin: 'server-request' });
    expect(asked.elicitationPending.message).toContain('toolgate: approve this tool call?');
    expect(asked.elicitationPending.message).toContain('"echo" on MCP server "fixture"');
    expect(asked.elicitationPending.message).toContain('hello from mcpdo');
    expect(Object.keys(asked.elicitationPending.requestedSchema.properties)).toEqual(expect.arrayContaining(['decision', 'scope', 'reason']));
    const approved = await mcpdo(['elicitation/respond', asked.elicitationPending.elicitationId, 'decision:=approve', 'scope:=once']);
    expect(approved).toEqual({ content: [{ type: 'text', text: 'hello from mcpdo' }] });

    const again = await mcpdo(['--connection', connection, 'tools/call', 'echo', 'text:=not this one']);
    const denied = await mcpdo(['elicitation/respond', again.elicitationPending.elicitationId, 'decision:=deny', 'reason:=not today']);
    expect(denied.isError).toBe(true);
    expect(denied.content[0].text).toContain("the user's reason: not today");
    expect(denied.content[0].text).toContain('It did not run');

    const decisions = readAudit(path.join(scratch.directory, '.toolgate', 'audit.jsonl')).filter((line) => line.kind === 'decision' && line.tool === 'echo');
    expect(decisions.map((line) => [line.decision, line.source, line.server, line.rule])).toEqual([
      ['approved', 'person', 'fixture', 'mcp.servers.fixture.tools.echo'],
      ['denied', 'person', 'fixture', 'mcp.servers.fixture.tools.echo'],
    ]);
    await mcpdo(['disconnect', connection]);
  });
});
