/**
 * The MCP Inspector's CLI (`@modelcontextprotocol/inspector`, v2, run on the
 * pinned Node as it needs >= 22.19) against `toolgate mcp`, as real
 * processes, over stdio and over Streamable HTTP with the bearer token: the
 * list, an allowed call, a blocked one, and one that asks — the CLI cannot
 * show a dialog, so it is denied with the message saying how to approve, and
 * nothing is written.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { everythingServer, filesystemServer, makeScratch, MCP_ENTRY, NODE, startHttpGatewayProcess, type HttpGatewayProcess } from './mcp-gateway-harness.ts';

const INSPECTOR = path.resolve(import.meta.dirname, '..', 'node_modules', '@modelcontextprotocol', 'inspector', 'clients', 'launcher', 'build', 'index.js');
const token = 'inspector-token-0123456789';
const run = promisify(execFile);

let scratch: { directory: string; workspace: string };
let policyPath: string;

beforeAll(() => {
  scratch = makeScratch('toolgate-inspector-');
  mkdirSync(scratch.workspace, { recursive: true });
  writeFileSync(path.join(scratch.workspace, 'readme.txt'), 'read me\n');
  const server = filesystemServer(scratch.workspace);
  policyPath = path.join(scratch.directory, 'toolgate.yaml');
  writeFileSync(policyPath, ['mcp:', '  servers:', '    filesystem:', `      command: ${JSON.stringify(server.command)}`, `      args: ${JSON.stringify(server.args)}`, '      tools:', '        read_text_file: allow', '        move_file: { decision: ask, rules: [{ args: { destination: ".*gone.txt" }, decision: block }] }', '        create_directory: block', ''].join('\n'));
});

afterAll(() => rmSync(scratch.directory, { recursive: true, force: true }));

/** One Inspector CLI invocation: its exit status and JSON output (it exits non-zero for a tool result with isError). */
async function inspectorRun(target: string[], args: string[]): Promise<{ ok: boolean; output: any }> {
  try {
    const { stdout } = await run(NODE, [INSPECTOR, '--cli', ...target, ...args], {
      env: { ...process.env, MCP_CATALOG_PATH: path.join(scratch.directory, 'inspector-catalog.json') },
      timeout: 60_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    return { ok: true, output: JSON.parse(stdout) };
  } catch (error) {
    const stdout = (error as { stdout?: string }).stdout ?? '';
    if (stdout.trim() === '') throw error;
    return { ok: false, output: JSON.parse(stdout) };
  }
}

async function inspector(target: string[], args: string[]): Promise<any> {
  const result = await inspectorRun(target, args);
  if (!result.ok) throw new Error(`the Inspector CLI failed: ${JSON.stringify(result.output)}`);
  return result.output;
}

function checks(target: () => string[]) {
  it('lists the tools the policy lets clients see', async () => {
    const listed = await inspector(target(), ['--method', 'tools/list']);
    const names = listed.tools.map((tool: { name: string }) => tool.name);
    expect(names).toContain('read_text_file');
    expect(names).toContain('move_file');
    // Blocked whatever its arguments: never offered.
    expect(names).not.toContain('create_directory');
  });

  it('runs an allowed call, refuses a blocked one, and denies an ask it cannot show, saying how to approve', async () => {
    const read = await inspector(target(), ['--method', 'tools/call', '--tool-name', 'read_text_file', '--tool-arg', `path=${path.join(scratch.workspace, 'readme.txt')}`]);
    expect(JSON.stringify(read.content)).toContain('read me');
    const moved = await inspectorRun(target(), ['--method', 'tools/call', '--tool-name', 'move_file', '--tool-arg', `source=${path.join(scratch.workspace, 'readme.txt')}`, `destination=${path.join(scratch.workspace, 'gone.txt')}`]);
    expect(moved).toMatchObject({ ok: false, output: { isError: true } });
    expect(JSON.stringify(moved.output.content)).toContain('toolgate blocked this call to move_file');
    expect(existsSync(path.join(scratch.workspace, 'readme.txt'))).toBe(true);
    const target_ = path.join(scratch.workspace, `asked-${Date.now()}.txt`);
    const write = await inspectorRun(target(), ['--method', 'tools/call', '--tool-name', 'write_file', '--tool-arg', `path=${target_}`, 'content=never']);
    expect(write).toMatchObject({ ok: false, output: { isError: true } });
    expect(JSON.stringify(write.output.content)).toContain('needs approval');
    // The refusal says why nobody was asked, and never suggests a rule or mode that would let the call through.
    expect(JSON.stringify(write.output.content)).toContain('nobody who can approve it is reachable here');
    expect(JSON.stringify(write.output.content)).not.toMatch(/approve_all|: allow/);
    expect(existsSync(target_)).toBe(false);
    expect(readFileSync(path.join(scratch.workspace, 'readme.txt'), 'utf8')).toBe('read me\n');
  });
}

// Each Inspector CLI run is a process that starts the gateway and its server: seconds each on a busy machine.
describe('the MCP Inspector CLI, toolgate mcp over stdio', { timeout: 120_000 }, () => {
  checks(() => [NODE, MCP_ENTRY, '--policy', policyPath, '--no-terminal']);
});

// Each Inspector CLI run is a process that starts the gateway and its server: seconds each on a busy machine.
describe('the MCP Inspector CLI, toolgate mcp --http', { timeout: 120_000 }, () => {
  let gateway: HttpGatewayProcess;
  let url: string;
  beforeAll(async () => {
    gateway = await startHttpGatewayProcess({ policyPath, token });
    url = gateway.url;
  }, 30_000);
  afterAll(async () => {
    await gateway.stop();
  });

  checks(() => [url, '--transport', 'http', '--header', `Authorization: Bearer ${token}`]);

  it('is refused without the token', async () => {
    await expect(inspector([url, '--transport', 'http'], ['--method', 'tools/list'])).rejects.toThrow(/401|Unauthorized|bearer|auth/i);
  });
});

// Each Inspector CLI run is a process that starts the gateway and its server: seconds each on a busy machine.
describe('the MCP Inspector CLI: hidden tools, resources and prompts through the policy', { timeout: 120_000 }, () => {
  let everythingPolicy: string;
  beforeAll(() => {
    const server = everythingServer();
    everythingPolicy = path.join(scratch.directory, 'everything.yaml');
    writeFileSync(
      everythingPolicy,
      [
        'mcp:',
        '  servers:',
        '    everything:',
        `      command: ${JSON.stringify(server.command)}`,
        `      args: ${JSON.stringify(server.args)}`,
        '      default: allow',
        '      filter: { deny: [get-env] }',
        '      resources: { default: block, rules: [{ uri: "demo://resource/static/document/.*", decision: allow }] }',
        '      prompts: { default: block, rules: [{ name: simple-prompt, decision: allow }] }',
        '',
      ].join('\n'),
    );
  });
  const target = () => [NODE, MCP_ENTRY, '--policy', everythingPolicy, '--no-terminal'];

  it('does not list a hidden tool and refuses it by name', async () => {
    const listed = await inspector(target(), ['--method', 'tools/list']);
    const names = listed.tools.map((tool: { name: string }) => tool.name);
    expect(names).toContain('echo');
    expect(names).not.toContain('get-env');
    await expect(inspector(target(), ['--method', 'tools/call', '--tool-name', 'get-env'])).rejects.toThrow(/Unknown tool|get-env/);
  });

  it('lists and reads only the resources, and gets only the prompts, the policy allows', async () => {
    const resources = (await inspector(target(), ['--method', 'resources/list'])).resources.map((resource: { uri: string }) => resource.uri);
    expect(resources.length).toBeGreaterThan(0);
    for (const uri of resources) expect(uri).toMatch(/^demo:\/\/resource\/static\/document\//);
    expect((await inspector(target(), ['--method', 'resources/read', '--uri', resources[0]])).contents.length).toBeGreaterThan(0);
    await expect(inspector(target(), ['--method', 'resources/read', '--uri', 'demo://resource/dynamic/text/1'])).rejects.toThrow(/blocked by mcp\.servers\.everything\.resources\.default/);
    expect((await inspector(target(), ['--method', 'prompts/list'])).prompts.map((prompt: { name: string }) => prompt.name)).toEqual(['simple-prompt']);
    expect((await inspector(target(), ['--method', 'prompts/get', '--prompt-name', 'simple-prompt'])).messages.length).toBeGreaterThan(0);
  });
});
