import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { realPathOf } from './real-path-of.ts';

let root: string;
beforeAll(() => {
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-real-path-')));
  mkdirSync(path.join(root, 'real', 'deep'), { recursive: true });
  writeFileSync(path.join(root, 'real', 'file'), '');
  symlinkSync(path.join(root, 'real'), path.join(root, 'link'));
  symlinkSync(path.join(root, 'nowhere'), path.join(root, 'dangling'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The definition: the real path of the nearest ancestor that resolves, joined with the rest. */
function byComponents(absolute: string): string {
  try {
    return realpathSync.native(absolute);
  } catch {
    const parent = path.dirname(absolute);
    return parent === absolute ? absolute : path.join(byComponents(parent), path.basename(absolute));
  }
}

describe('realPathOf', () => {
  it('resolves the nearest existing ancestor and joins the rest, as a walk up one component at a time would', () => {
    for (const relative of ['real/deep', 'link/deep/new/x.md', 'link/new', 'link/file/below', 'dangling/x', 'missing/a/b/c', 'link', '.']) {
      const target = path.join(root, relative);
      expect(realPathOf(target), relative).toBe(byComponents(target));
    }
    expect(realPathOf(path.join(root, 'link', 'new', 'x'))).toBe(path.join(root, 'real', 'new', 'x'));
    expect(realPathOf('/')).toBe('/');
  });

  it('answers for a path of 2,000 missing components below a link', () => {
    const target = path.join(root, 'link', ...Array.from({ length: 2000 }, () => 'a'));
    expect(realPathOf(target)).toBe(path.join(root, 'real', ...Array.from({ length: 2000 }, () => 'a')));
  });
});
