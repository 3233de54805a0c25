import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fileWritePreview } from './file-write-preview.ts';

let directory: string;
beforeEach(() => {
  directory = mkdtempSync(path.join(os.tmpdir(), 'toolgate-preview-'));
  writeFileSync(path.join(directory, 'a.txt'), 'one\ntwo\nthree\n');
});
afterEach(() => rmSync(directory, { recursive: true, force: true }));

describe('fileWritePreview', () => {
  it('diffs a write_file against the file as it is, a relative path resolved against the server cwd', async () => {
    const preview = await fileWritePreview({ tool: 'write_file', args: { path: 'a.txt', content: 'one\nTWO\nthree\n' }, cwd: directory });
    expect(preview?.type).toBe('diff');
    expect(preview?.content).toContain(`--- ${path.join(directory, 'a.txt')}`);
    expect(preview?.content).toContain('-two\n+TWO');
  });

  it('shows the content of a new file, and applies edit_file edits in turn', async () => {
    expect(await fileWritePreview({ tool: 'write_file', args: { path: path.join(directory, 'new.txt'), content: 'hello\n' }, cwd: directory })).toMatchObject({ type: 'file_content', content: 'hello\n' });
    const edited = await fileWritePreview({ tool: 'edit_file', args: { path: path.join(directory, 'a.txt'), edits: [{ oldText: 'one', newText: 'ONE' }, { oldText: 'ONE\ntwo', newText: 'ONE\n2' }] }, cwd: directory });
    expect(edited?.content).toContain('-one\n-two\n+ONE\n+2');
  });

  it('gives no preview for an edit it cannot place exactly, another tool, or arguments of another shape', async () => {
    expect(await fileWritePreview({ tool: 'edit_file', args: { path: path.join(directory, 'a.txt'), edits: [{ oldText: 'four', newText: 'x' }] }, cwd: directory })).toBeUndefined();
    expect(await fileWritePreview({ tool: 'move_file', args: { path: path.join(directory, 'a.txt'), content: 'x' }, cwd: directory })).toBeUndefined();
    expect(await fileWritePreview({ tool: 'write_file', args: { path: 3, content: 'x' }, cwd: directory })).toBeUndefined();
  });

  it.skipIf(process.platform === 'win32')('does not hang on a FIFO put where the file should be', async () => {
    const fifo = path.join(directory, 'pipe');
    execFileSync('mkfifo', [fifo]);
    const started = Date.now();
    expect(await fileWritePreview({ tool: 'write_file', args: { path: fifo, content: 'x' }, cwd: directory })).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(2000);
  });
});
