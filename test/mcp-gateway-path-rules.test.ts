/**
 * Path arguments are judged as paths, through `toolgate mcp` (the real CLI
 * entry, over stdio) in front of the real filesystem server: with the
 * README's rule, `drafts/../important.md` is asked about and never written
 * without approval, while `drafts/ok.md` is allowed. The same with the old
 * plain-pattern rule: a `..` path is no longer allowed by it.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { filesystemServer, makeScratch, MCP_ENTRY, NODE, readAudit, resultText } from './mcp-gateway-harness.ts';

let scratch: { directory: string; workspace: string };

beforeAll(() => {
  scratch = makeScratch('toolgate-mcp-paths-');
  mkdirSync(path.join(scratch.workspace, 'drafts'), { recursive: true });
  writeFileSync(path.join(scratch.workspace, 'important.md'), 'keep me\n');
  // Links planted inside drafts that lead out of it, and a directory a rule blocks.
  symlinkSync('../important.md', path.join(scratch.workspace, 'drafts', 'imp.md'));
  symlinkSync('..', path.join(scratch.workspace, 'drafts', 'up'));
  mkdirSync(path.join(scratch.workspace, 'caf\u00e9'));
  writeFileSync(path.join(scratch.workspace, 'caf\u00e9', 'secret.md'), 'private\n');
});
afterAll(() => rmSync(scratch.directory, { recursive: true, force: true }));

function writePolicy(name: string, condition: string, blocked?: string): string {
  const server = filesystemServer(scratch.workspace);
  const policyPath = path.join(scratch.directory, name);
  writeFileSync(
    policyPath,
    [
      'audit: { path: ' + JSON.stringify(`.toolgate/${name}.audit.jsonl`) + ' }',
      'mcp:',
      '  servers:',
      '    files:',
      `      command: ${JSON.stringify(server.command)}`,
      `      args: ${JSON.stringify(server.args)}`,
      '      default: ask',
      '      tools:',
      '        write_file:',
      `          rules: [${blocked === undefined ? '' : `{ args: { path: { inside: ${JSON.stringify(blocked)} } }, decision: block }, `}{ args: { path: ${condition} }, decision: allow }]`,
      '',
    ].join('\n'),
  );
  return policyPath;
}

async function connect(policyPath: string, elicit: boolean): Promise<{ client: Client; asked: string[] }> {
  const asked: string[] = [];
  const client = new Client({ name: 'path-rules-test', version: '1.0.0' }, { capabilities: elicit ? { elicitation: {} } : {} });
  if (elicit) {
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params.message);
      return { action: 'accept', content: { decision: 'deny', reason: 'not outside drafts' } };
    });
  }
  await client.connect(new StdioClientTransport({ command: NODE, args: [MCP_ENTRY, '--policy', policyPath, '--no-terminal'], stderr: 'pipe' }));
  return { client, asked };
}

describe('toolgate mcp judges path arguments as paths', () => {
  it('{inside: drafts}: drafts/ok.md is allowed; drafts/../important.md asks, and a denial leaves the file as it was', async () => {
    const drafts = path.join(scratch.workspace, 'drafts');
    const policyPath = writePolicy('inside.yaml', `{ inside: ${JSON.stringify(drafts)} }`);
    const { client, asked } = await connect(policyPath, true);
    try {
      const ok = await client.callTool({ name: 'write_file', arguments: { path: path.join(drafts, 'ok.md'), content: 'draft' } });
      expect(ok.isError).toBeFalsy();
      expect(readFileSync(path.join(drafts, 'ok.md'), 'utf8')).toBe('draft');
      expect(asked).toHaveLength(0);

      const escape = `${drafts}/../important.md`;
      const refused = await client.callTool({ name: 'write_file', arguments: { path: escape, content: 'overwritten' } });
      expect(refused.isError).toBe(true);
      expect(asked).toHaveLength(1);
      expect(asked[0]).toContain('important.md');
      expect(readFileSync(path.join(scratch.workspace, 'important.md'), 'utf8')).toBe('keep me\n');

      // A relative path cannot be judged against an absolute directory: it asks too.
      const relative = await client.callTool({ name: 'write_file', arguments: { path: 'drafts/../important.md', content: 'overwritten' } });
      expect(relative.isError).toBe(true);
      expect(asked).toHaveLength(2);
      expect(readFileSync(path.join(scratch.workspace, 'important.md'), 'utf8')).toBe('keep me\n');
    } finally {
      await client.close();
    }
    const audit = readAudit(path.join(scratch.directory, '.toolgate', 'inside.yaml.audit.jsonl'));
    const decisions = audit.filter((record) => record.kind === 'decision' || record.decision !== 'ask').map((record) => [record.args && (record.args as { path?: string }).path, record.decision]);
    expect(decisions).toContainEqual([path.join(drafts, 'ok.md'), 'allow']);
    expect(decisions).toContainEqual([`${drafts}/../important.md`, 'denied']);
  }, 60_000);

  it('the old plain pattern drafts/.* no longer allows drafts/../important.md: without a way to ask, it is refused and nothing is written', async () => {
    const drafts = path.join(scratch.workspace, 'drafts');
    const policyPath = writePolicy('pattern.yaml', JSON.stringify(`${drafts}/.*`));
    const { client } = await connect(policyPath, false);
    try {
      const ok = await client.callTool({ name: 'write_file', arguments: { path: path.join(drafts, 'ok2.md'), content: 'draft' } });
      expect(ok.isError).toBeFalsy();
      expect(existsSync(path.join(drafts, 'ok2.md'))).toBe(true);
      for (const escape of [`${drafts}/../important.md`, `${drafts}/./../important.md`, `${drafts}//../important.md`]) {
        const refused = await client.callTool({ name: 'write_file', arguments: { path: escape, content: 'overwritten' } });
        expect(refused.isError, escape).toBe(true);
        expect(resultText(refused)).toMatch(/not a normalised path|cannot show an approval dialog/);
      }
      expect(readFileSync(path.join(scratch.workspace, 'important.md'), 'utf8')).toBe('keep me\n');
    } finally {
      await client.close();
    }
  }, 60_000);
});

describe('toolgate mcp judges path arguments where they lead', () => {
  it('a symlink inside drafts that leads out asks (and a denial writes nothing); a blocked directory reached through a link, or spelled with a combining accent, is blocked', async () => {
    const drafts = path.join(scratch.workspace, 'drafts');
    const blocked = path.join(scratch.workspace, 'caf\u00e9');
    const policyPath = writePolicy('links.yaml', `{ inside: ${JSON.stringify(drafts)} }`, blocked);
    const { client, asked } = await connect(policyPath, true);
    try {
      const throughLink = await client.callTool({ name: 'write_file', arguments: { path: path.join(drafts, 'imp.md'), content: 'overwritten' } });
      expect(throughLink.isError).toBe(true);
      expect(asked).toHaveLength(1);
      expect(asked[0]).toContain('imp.md');
      expect(readFileSync(path.join(scratch.workspace, 'important.md'), 'utf8')).toBe('keep me\n');

      const intoBlocked = await client.callTool({ name: 'write_file', arguments: { path: path.join(drafts, 'up', 'caf\u00e9', 'secret.md'), content: 'overwritten' } });
      expect(intoBlocked.isError).toBe(true);
      expect(resultText(intoBlocked)).toContain('toolgate blocked');

      // The same directory typed decomposed (e + U+0301): server-filesystem would find it.
      const decomposed = await client.callTool({ name: 'write_file', arguments: { path: path.join(scratch.workspace, 'cafe\u0301', 'secret.md'), content: 'overwritten' } });
      expect(decomposed.isError).toBe(true);
      expect(resultText(decomposed)).toContain('toolgate blocked');
      expect(asked).toHaveLength(1);
      expect(readFileSync(path.join(blocked, 'secret.md'), 'utf8')).toBe('private\n');

      // A plain file in drafts is still allowed without asking.
      const ok = await client.callTool({ name: 'write_file', arguments: { path: path.join(drafts, 'plain.md'), content: 'draft' } });
      expect(ok.isError).toBeFalsy();
      expect(asked).toHaveLength(1);
    } finally {
      await client.close();
    }
  }, 60_000);
});
