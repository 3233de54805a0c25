import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { filesystemPathForms } from './path-forms.ts';

let root: string;
beforeAll(() => {
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-path-forms-')));
  mkdirSync(path.join(root, 'real'));
  symlinkSync(path.join(root, 'real'), path.join(root, 'link'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('filesystemPathForms', () => {
  it('resolves links in the existing part and joins the rest', () => {
    expect(filesystemPathForms(path.join(root, 'link', 'new', 'file.md'))).toEqual([path.join(root, 'real', 'new', 'file.md')]);
  });

  it('adds the other Unicode spellings, each resolved', () => {
    const forms = filesystemPathForms(path.join(root, 'link', 'cafe\u0301'));
    expect(forms).toContain(path.join(root, 'link', 'caf\u00e9'));
    expect(forms).toContain(path.join(root, 'real', 'caf\u00e9'));
    expect(forms).toContain(path.join(root, 'real', 'cafe\u0301'));
  });

  it('returns nothing more for a real path in one spelling, and never throws', () => {
    expect(filesystemPathForms(path.join(root, 'real', 'plain.txt'))).toEqual([]);
    expect(filesystemPathForms(`/${'x'.repeat(5000)}`)).toEqual([]);
    expect(filesystemPathForms('/a\u0000b')).toEqual([]);
  });
});
