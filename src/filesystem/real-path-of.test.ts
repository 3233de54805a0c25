import { lstatSync, mkdirSync, mkdtempSync, readlinkSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { realPathOf, withRealPathMemo } from './real-path-of.ts';

let root: string;
beforeAll(() => {
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-real-path-')));
  mkdirSync(path.join(root, 'real', 'deep'), { recursive: true });
  writeFileSync(path.join(root, 'real', 'file'), '');
  symlinkSync(path.join(root, 'real'), path.join(root, 'link'));
  symlinkSync(path.join(root, 'nowhere'), path.join(root, 'dangling'));
  symlinkSync('real/new-dir', path.join(root, 'ahead'));
  symlinkSync('ahead', path.join(root, 'chain'));
  symlinkSync('loop-b', path.join(root, 'loop-a'));
  symlinkSync('loop-a', path.join(root, 'loop-b'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/**
 * The definition: the real path of the nearest ancestor that resolves, joined
 * with the rest, where a symlink that leads nowhere yet is followed (as many
 * times as Linux would).
 */
function byComponents(absolute: string, links = 0): string {
  try {
    return realpathSync.native(absolute);
  } catch {
    const parent = path.dirname(absolute);
    if (parent === absolute) return absolute;
    const base = byComponents(parent, links);
    const here = path.join(base, path.basename(absolute));
    let target: string | undefined;
    try {
      target = lstatSync(here).isSymbolicLink() ? readlinkSync(here) : undefined;
    } catch {
      target = undefined;
    }
    return target === undefined || links >= 40 ? here : byComponents(path.resolve(base, target), links + 1);
  }
}

describe('realPathOf', () => {
  it('resolves the nearest existing ancestor and joins the rest, as a walk up one component at a time would', () => {
    for (const relative of ['real/deep', 'link/deep/new/x.md', 'link/new', 'link/file/below', 'dangling/x', 'missing/a/b/c', 'link', '.', 'ahead/x.json', 'chain/a/b', 'loop-a/x']) {
      const target = path.join(root, relative);
      expect(realPathOf(target), relative).toBe(byComponents(target));
    }
    expect(realPathOf(path.join(root, 'link', 'new', 'x'))).toBe(path.join(root, 'real', 'new', 'x'));
    expect(realPathOf('/')).toBe('/');
    // A link that leads nowhere yet is where creating through it would land: `ahead -> real/new-dir`, once new-dir is made.
    expect(realPathOf(path.join(root, 'ahead', 'approvals.json'))).toBe(path.join(root, 'real', 'new-dir', 'approvals.json'));
    expect(realPathOf(path.join(root, 'chain', 'x'))).toBe(path.join(root, 'real', 'new-dir', 'x'));
    expect(realPathOf(path.join(root, 'dangling', 'x'))).toBe(path.join(root, 'nowhere', 'x'));
  });

  it('answers the same inside one pass that finds each real path once, and sees the files as they are again after it', () => {
    const relatives = ['real/deep', 'link/deep/new/x.md', 'dangling/x', 'missing/a/b/c', 'ahead/x.json', 'chain/a/b', 'loop-a/x', 'link/deep/new/x.md'];
    const inPass = withRealPathMemo(() => relatives.map((relative) => realPathOf(path.join(root, relative))));
    expect(inPass).toEqual(relatives.map((relative) => byComponents(path.join(root, relative))));
    // A pass inside a pass is the same pass.
    expect(withRealPathMemo(() => withRealPathMemo(() => realPathOf(path.join(root, 'link', 'file'))))).toBe(path.join(root, 'real', 'file'));
    // Made after the pass (a link that led nowhere now leads somewhere real): the next pass, and every call outside one, sees it.
    const before = withRealPathMemo(() => realPathOf(path.join(root, 'later', 'x')));
    mkdirSync(path.join(root, 'real', 'later-target'));
    symlinkSync(path.join(root, 'real', 'later-target'), path.join(root, 'later'));
    try {
      expect(before).toBe(path.join(root, 'later', 'x'));
      expect(withRealPathMemo(() => realPathOf(path.join(root, 'later', 'x')))).toBe(path.join(root, 'real', 'later-target', 'x'));
      expect(realPathOf(path.join(root, 'later', 'x'))).toBe(path.join(root, 'real', 'later-target', 'x'));
    } finally {
      rmSync(path.join(root, 'later'));
    }
  });

  it('answers for a path of 2,000 missing components below a link', () => {
    const target = path.join(root, 'link', ...Array.from({ length: 2000 }, () => 'a'));
    expect(realPathOf(target)).toBe(path.join(root, 'real', ...Array.from({ length: 2000 }, () => 'a')));
  });
});
