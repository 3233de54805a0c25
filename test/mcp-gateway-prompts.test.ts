/**
 * What the person is shown and what is recorded for an MCP tool call, through
 * the real gateway in front of server-filesystem: the server is named in the
 * terminal prompt as in the elicitation dialog; an overwriting write_file and
 * an edit_file show a diff against the file as it is; and the audit log and
 * the prompt name the rule that really asked (`ask_when` over the default).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createTerminalApprover } from '../src/approvers/terminal/terminal-approver.ts';
import { createFakeTerminal, type FakeTerminal } from './fake-terminal.ts';
import { approve, filesystemServer, resultText, startGatewayHarness, type GatewayHarness } from './mcp-gateway-harness.ts';

let harness: GatewayHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

// No default (ask) and an ask_when naming edit_file: both ask, and ask_when is the rule that names it.
const policy = ({ workspace }: { workspace: string }) => ({ mcp: { servers: { files: { ...filesystemServer(workspace), ask_when: ['edit_.*'], tools: { read_text_file: 'allow' } } } } });
const setup = ({ workspace }: { workspace: string }) => {
  writeFileSync(path.join(workspace, 'notes.txt'), 'first line\nsecond line\nthird line\n');
};

describe('an MCP tool call asked about', () => {
  it('names the server in the terminal prompt, shows the diff of an overwriting write_file, and runs it once approved', async () => {
    const terminal: FakeTerminal = createFakeTerminal({ columns: 100, rows: 60 });
    const terminalApprover = createTerminalApprover({ input: terminal.input, output: terminal.output, env: {} });
    harness = await startGatewayHarness({ policy, setup: (scratch) => setup(scratch), gateway: { terminalApprover, approverChoice: 'terminal' } });
    const target = path.join(harness.workspace, 'notes.txt');
    const call = harness.client.callTool({ name: 'write_file', arguments: { path: target, content: 'first line\nSECOND LINE\nthird line\n' } });
    const shown = await terminal.waitFor('approve?');
    expect(shown).toContain('MCP server "files"');
    expect(shown).toContain('-second line');
    expect(shown).toContain('+SECOND LINE');
    terminal.type('y');
    const result = await call;
    expect(result.isError).toBeFalsy();
    expect(readFileSync(target, 'utf8')).toBe('first line\nSECOND LINE\nthird line\n');
  });

  it('shows the diff of an edit_file in the elicitation dialog, and records ask_when as the rule that asked', async () => {
    harness = await startGatewayHarness({ policy, setup: (scratch) => setup(scratch), elicit: approve('once') });
    const target = path.join(harness.workspace, 'notes.txt');
    const result = await harness.client.callTool({ name: 'edit_file', arguments: { path: target, edits: [{ oldText: 'third line', newText: 'THIRD LINE' }] } });
    expect(result.isError).toBeFalsy();
    expect(readFileSync(target, 'utf8')).toBe('first line\nsecond line\nTHIRD LINE\n');
    const message = harness.elicitations.at(-1)!.message;
    expect(message).toContain('"edit_file" on MCP server "files"');
    expect(message).toContain('-third line');
    expect(message).toContain('+THIRD LINE');
    const records = harness.audit().filter((record) => record.tool === 'edit_file');
    expect(records.length).toBeGreaterThan(0);
    for (const record of records) {
      expect(record.rule).toBe('mcp.servers.files.ask_when[0]');
      expect(String(record.reason)).not.toContain('has no rule');
    }
  });

  it('shows the new content of a write_file that creates a file, and the arguments when there is no file to compare with', async () => {
    harness = await startGatewayHarness({ policy, setup: (scratch) => setup(scratch), elicit: approve('once') });
    const created = path.join(harness.workspace, 'new.txt');
    await harness.client.callTool({ name: 'write_file', arguments: { path: created, content: 'brand new\n' } });
    expect(harness.elicitations.at(-1)!.message).toContain('brand new');
    // An edit whose text is not in the file cannot be previewed: the arguments are shown, and the server says what it says.
    const result = await harness.client.callTool({ name: 'edit_file', arguments: { path: created, edits: [{ oldText: 'not there', newText: 'x' }] } });
    expect(harness.elicitations.at(-1)!.message).toContain('"oldText": "not there"');
    expect(resultText(result)).toContain('Could not find exact match');
  });
});
