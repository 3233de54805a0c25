/**
 * `toolgate check` and replay judge an MCP server's tools by
 * `mcp.servers.<name>`, through the code the gateway's gate runs: one call
 * (`--server`, or a namespaced name), batch lines naming a server, and a real
 * gateway's audit log replayed against the same and a changed policy.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from './cli-harness.ts';
import { fixtureServer, startGatewayHarness, type GatewayHarness } from './mcp-gateway-harness.ts';

const POLICY = {
  mcp: {
    servers: {
      files: {
        command: 'node',
        args: ['server.js', '${FILES_TOKEN}'],
        default: 'allow',
        ask_when: ['edit_.*'],
        tools: {
          write_file: { decision: 'ask', rules: [{ args: { path: { inside: '/notes/drafts' } }, decision: 'allow' }] },
          move_file: 'block',
        },
      },
    },
  },
};

function policyFile(document: unknown = POLICY): string {
  const directory = mkdtempSync(path.join(os.tmpdir(), 'toolgate-check-mcp-'));
  const file = path.join(directory, 'toolgate.json');
  writeFileSync(file, JSON.stringify(document));
  return file;
}

const json = (text: string) => JSON.parse(text) as Record<string, unknown>;
const env = { FILES_TOKEN: 'token-value' };

describe('toolgate check --server', () => {
  it('--show prints the prompt as the gateway shows it: the server named first, and the rule that asked', async () => {
    const policy = policyFile();
    const shown = await runCli(['check', '--policy', policy, '--show', '--server', 'files', '--tool', 'write_file', '--args', '{"path":"/notes/important.md"}'], { env });
    expect(shown.code).toBe(5);
    expect(shown.stdout).toContain('MCP server "files"');
    expect(shown.stdout).toMatch(/asked by mcp\.servers\.files\.tools\.write_file/);
    // Namespaced, the prompt names the tool's own name on its server too.
    const namespaced = await runCli(['check', '--policy', policy, '--show', '--tool', 'files__edit_file'], { env });
    expect(namespaced.stdout).toContain('MCP server "files", tool "edit_file"');
    // A tool of no server is shown as itself.
    const plain = await runCli(['check', '--policy', policy, '--show', '--tool', 'send_email'], { env });
    expect(plain.stdout).not.toContain('MCP server "');
    expect(plain.stdout).toContain('send_email');
  });

  it("judges a server's tool by its section: argument rules, blocks, ask_when, the server default", async () => {
    const policy = policyFile();
    const check = (args: string[]) => runCli(['check', '--policy', policy, '--json', ...args], { env });

    const drafts = await check(['--server', 'files', '--tool', 'write_file', '--args', '{"path":"/notes/drafts/a.md"}']);
    expect(drafts.code).toBe(0);
    expect(json(drafts.stdout)).toMatchObject({ decision: 'allow', rule: 'mcp.servers.files.tools.write_file.rules[0]' });
    expect(String(json(drafts.stdout).note)).toContain('without starting the server');

    const escaped = await check(['--server', 'files', '--tool', 'write_file', '--args', '{"path":"/notes/drafts/../important.md"}']);
    expect(escaped.code).toBe(5);
    expect(json(escaped.stdout)).toMatchObject({ decision: 'ask', rule: 'mcp.servers.files.tools.write_file' });

    const moved = await check(['--server', 'files', '--tool', 'move_file']);
    expect(moved.code).toBe(1);
    expect(json(moved.stdout)).toMatchObject({ decision: 'block', rule: 'mcp.servers.files.tools.move_file' });

    const edited = await check(['--server', 'files', '--tool', 'edit_file']);
    expect(json(edited.stdout)).toMatchObject({ decision: 'ask', rule: 'mcp.servers.files.ask_when[0]' });

    const other = await check(['--server', 'files', '--tool', 'list_directory']);
    expect(json(other.stdout)).toMatchObject({ decision: 'allow', rule: 'mcp.servers.files.default' });
  });

  it('takes the public namespaced name without --server, and with it', async () => {
    const policy = policyFile();
    for (const args of [['--tool', 'files__move_file'], ['--server', 'files', '--tool', 'files__move_file']]) {
      const result = await runCli(['check', '--policy', policy, '--json', ...args], { env });
      expect(json(result.stdout), args.join(' ')).toMatchObject({ decision: 'block', rule: 'mcp.servers.files.tools.move_file' });
    }
  });

  it('without --server a plain name is judged as before, and the note says how to name the server', async () => {
    const result = await runCli(['check', '--policy', policyFile(), '--json', '--tool', 'move_file'], { env });
    expect(json(result.stdout)).toMatchObject({ decision: 'ask', rule: 'unknown_tools.decision' });
    expect(String(json(result.stdout).note)).toContain('give --server NAME');
  });

  it('refuses a server the policy does not name (exit 2, naming the servers it has), and --server with --batch', async () => {
    const policy = policyFile();
    const unknown = await runCli(['check', '--policy', policy, '--server', 'nope', '--tool', 'x'], { env });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('--server: the policy has no MCP server "nope" (its servers: files)');
    const batch = await runCli(['check', '--policy', policy, '--server', 'files', '--batch', '-'], { env, stdin: '' });
    expect(batch.code).toBe(2);
    expect(batch.stderr).toContain('--args, --server and --answer go with --tool');
  });

  it('simulates without the secrets the gateway needs, and says the identity differs', async () => {
    const result = await runCli(['check', '--policy', policyFile(), '--json', '--server', 'files', '--tool', 'move_file'], { env: {} });
    expect(json(result.stdout)).toMatchObject({ decision: 'block' });
    expect(String(json(result.stdout).note)).toContain('FILES_TOKEN is not set here');
  });

  it('batch lines name their server; a plain line of the same name afterwards is judged as itself', async () => {
    const policy = policyFile({ ...POLICY, tools: { move_file: 'allow' } });
    const stdin = [
      JSON.stringify({ tool: 'move_file', server: 'files', args: {} }),
      JSON.stringify({ tool: 'move_file', args: {} }),
      JSON.stringify({ tool: 'x', server: 'nope', args: {} }),
      JSON.stringify({ tool: 'x', server: 7, args: {} }),
    ].join('\n');
    const result = await runCli(['check', '--policy', policy, '--batch', '-'], { env, stdin });
    const lines = result.stdout.trim().split('\n').map(json);
    expect(lines[0]).toMatchObject({ line: 1, tool: 'move_file', server: 'files', decision: 'block', rule: 'mcp.servers.files.tools.move_file' });
    expect(lines[1]).toMatchObject({ line: 2, tool: 'move_file', decision: 'allow', rule: 'tools.move_file' });
    expect(lines[2]).toMatchObject({ line: 3, error: expect.stringContaining('no MCP server "nope"') });
    expect(lines[3]).toMatchObject({ line: 4, error: '"server" must be a string' });
    expect(result.code).toBe(4);
  });
});

describe("replaying a real gateway's audit log", () => {
  let harness: GatewayHarness | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  it('comes to the decisions the gateway came to, and shows what a changed policy would have done', async () => {
    const servers = (tools: Record<string, unknown>) => ({ mcp: { servers: { fixture: { ...fixtureServer(), default: 'allow', tools } } } });
    const rules = { echo: { decision: 'allow', rules: [{ args: { text: 'secret.*' }, decision: 'block' }] }, pid: 'ask' };
    harness = await startGatewayHarness({ policy: () => servers(rules), elicit: () => ({ action: 'accept', content: { decision: 'approve', scope: 'once' } }) });
    await harness.client.callTool({ name: 'echo', arguments: { text: 'hello' } });
    await harness.client.callTool({ name: 'echo', arguments: { text: 'secret plans' } });
    await harness.client.callTool({ name: 'pid', arguments: {} });
    const auditFile = path.join(harness.directory, '.toolgate', 'audit.jsonl');
    const recorded = harness.audit().filter((line) => line.kind === 'decision' || (line.kind === 'verdict' && line.verdict !== 'ask'));
    expect(recorded.map((line) => [line.tool, line.decision, line.rule])).toEqual([
      ['echo', 'allow', 'mcp.servers.fixture.tools.echo'],
      ['echo', 'block', 'mcp.servers.fixture.tools.echo.rules[0]'],
      ['pid', 'approved', 'mcp.servers.fixture.tools.pid'],
    ]);

    const same = await runCli(['check', '--policy', path.join(harness.directory, 'toolgate.json'), '--batch', auditFile]);
    const replayed = same.stdout.trim().split('\n').map(json);
    expect(replayed.map((line) => [line.tool, line.server, line.decision, line.rule])).toEqual([
      ['echo', 'fixture', 'allow', 'mcp.servers.fixture.tools.echo'],
      ['echo', 'fixture', 'block', 'mcp.servers.fixture.tools.echo.rules[0]'],
      ['pid', 'fixture', 'approved', 'mcp.servers.fixture.tools.pid'],
    ]);
    // The audit line's identity lets the simulation know the definition it was decided on.
    expect(String(replayed[0]!.note)).not.toContain('"always" approvals');

    const stricter = policyFile(servers({ echo: 'ask' }));
    const changed = (await runCli(['check', '--policy', stricter, '--batch', auditFile])).stdout.trim().split('\n').map(json);
    expect(changed.map((line) => [line.tool, line.decision, line.rule])).toEqual([
      ['echo', 'ask', 'mcp.servers.fixture.tools.echo'],
      ['echo', 'ask', 'mcp.servers.fixture.tools.echo'],
      ['pid', 'allow', 'mcp.servers.fixture.default'],
    ]);
  });
});
