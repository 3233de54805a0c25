/**
 * Copilot CLI's tools in Claude Code's terms: what each reads or writes, the
 * folder a search reads when given several, and arguments a model could get
 * wrong or shape against the judgement (refused, naming the field).
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { HostInputError } from '../host-call.ts';
import { copilotInClaudeTerms } from './copilot-tools.ts';

const cwd = mkdtempSync(path.join(os.tmpdir(), 'toolgate-copilot-tools-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));
mkdirSync(path.join(cwd, 'src'));
writeFileSync(path.join(cwd, 'src', 'a.ts'), '');
symlinkSync('/etc', path.join(cwd, 'etc-link'));

const map = (tool: string, input: Record<string, unknown>) => copilotInClaudeTerms({ tool, input, cwd });

describe('copilotInClaudeTerms', () => {
  it('maps its shell, file and search tools, relative paths against the session folder', () => {
    expect(map('bash', { command: 'ls', description: 'list', mode: 'async', detach: true })).toEqual({ tool: 'Bash', input: { command: 'ls' }, cwd });
    expect(map('view', { path: 'src/a.ts' })).toEqual({ tool: 'Read', input: { file_path: path.join(cwd, 'src/a.ts') }, cwd });
    // A folder is listed; a link to one outside is listed by its path, which the zones resolve.
    expect(map('view', { path: 'src' })).toEqual({ tool: 'LS', input: { path: path.join(cwd, 'src') }, cwd });
    expect(map('view', { path: 'etc-link' })).toEqual({ tool: 'LS', input: { path: path.join(cwd, 'etc-link') }, cwd });
    expect(map('create', { path: '../x', file_text: 'x' })).toEqual({ tool: 'Write', input: { file_path: path.join(path.dirname(cwd), 'x'), content: 'x' }, cwd });
    expect(map('edit', { path: 'src/a.ts', old_str: 'a', new_str: 'b' })).toMatchObject({ tool: 'Edit', input: { old_string: 'a', new_string: 'b' } });
    expect(map('task', { prompt: 'x' })).toMatchObject({ tool: 'TodoWrite' });
    expect(map('some_mcp_tool', { q: 1 })).toEqual({ tool: 'some_mcp_tool', input: { q: 1 }, cwd });
  });

  it('judges a search of several folders as a read of the folder holding them all, however far up', () => {
    expect(map('grep', { pattern: 'x' })).toMatchObject({ tool: 'Grep', input: { path: cwd } });
    expect(map('glob', { pattern: '*.ts', paths: ['src', 'src/..'] })).toMatchObject({ input: { path: cwd } });
    expect(map('grep', { pattern: 'x', paths: [path.join(cwd, 'src'), '/etc/ssh'], glob: '*.conf' })).toMatchObject({ input: { path: '/', glob: '*.conf' } });
  });

  it('refuses arguments it cannot judge, naming the field', () => {
    for (const [tool, input, field] of [
      ['bash', { command: ['rm', '-rf', '/'] }, "bash's command"],
      ['view', {}, "view's path"],
      ['create', { path: 'x', file_text: 42 }, "create's file_text"],
      ['grep', { pattern: 'x', paths: [] }, "grep's paths"],
      ['glob', { pattern: '*', paths: [1] }, "glob's paths"],
      ['glob', { pattern: '*', paths: null }, "glob's paths"],
    ] as const) {
      expect(() => map(tool, input as Record<string, unknown>), tool).toThrow(HostInputError);
      expect(() => map(tool, input as Record<string, unknown>), tool).toThrow(field);
    }
  });
});
