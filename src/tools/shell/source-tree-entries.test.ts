import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sourceTreeEntries } from './source-tree-entries.ts';

let root: string;

beforeAll(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'toolgate-source-tree-'));
  mkdirSync(path.join(root, 'evil', '.vscode'), { recursive: true });
  writeFileSync(path.join(root, 'evil', '.envrc'), 'x\n');
  writeFileSync(path.join(root, 'evil', '.vscode', 'tasks.json'), '{}\n');
  mkdirSync(path.join(root, 'elsewhere', 'deep'), { recursive: true });
  writeFileSync(path.join(root, 'elsewhere', 'deep', 'hidden.txt'), 'x\n');
  symlinkSync(path.join(root, 'elsewhere'), path.join(root, 'evil', 'link'));
  writeFileSync(path.join(root, 'file.txt'), 'x\n');
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('sourceTreeEntries', () => {
  it('lists every name under a directory, symlinks listed but not followed', () => {
    const tree = sourceTreeEntries({ directory: path.join(root, 'evil') });
    expect(tree.kind).toBe('entries');
    expect(tree.kind === 'entries' ? [...tree.entries].sort() : []).toEqual(['.envrc', '.vscode', '.vscode/tasks.json', 'link']);
  });

  it('says a file or a missing path is not a directory', () => {
    expect(sourceTreeEntries({ directory: path.join(root, 'file.txt') })).toEqual({ kind: 'not-a-directory' });
    expect(sourceTreeEntries({ directory: path.join(root, 'missing') })).toEqual({ kind: 'not-a-directory' });
    // A symlink to a directory is copied as a link unless the copy follows links (which asks on its own).
    expect(sourceTreeEntries({ directory: path.join(root, 'evil', 'link') })).toEqual({ kind: 'not-a-directory' });
  });

  it('past the bound the names are unknown', () => {
    expect(sourceTreeEntries({ directory: path.join(root, 'evil'), limit: 2 })).toEqual({ kind: 'unknown', reason: 'it holds more than 2 entries' });
  });
});
