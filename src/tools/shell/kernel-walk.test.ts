import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAtOrBelow, walkKernelPath } from './kernel-walk.ts';

let root: string;
let ws: string;

beforeAll(() => {
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-walk-')));
  ws = path.join(root, 'ws');
  mkdirSync(path.join(ws, 'sub', 'inner'), { recursive: true });
  writeFileSync(path.join(ws, 'file.txt'), 'x');
  symlinkSync('.', path.join(ws, 'self'));
  symlinkSync('sub/inner', path.join(ws, 'deep'));
  symlinkSync('deep', path.join(ws, 'via'));
  symlinkSync(path.join(root, 'ws', 'sub'), path.join(ws, 'absolute'));
  symlinkSync('loop-b', path.join(ws, 'loop-a'));
  symlinkSync('loop-a', path.join(ws, 'loop-b'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('walkKernelPath', () => {
  it('applies ".." after the symlink before it, as the kernel does', () => {
    expect(walkKernelPath({ input: 'self/../evil', cwd: ws })).toMatchObject({ ok: true, end: path.join(root, 'evil') });
    expect(walkKernelPath({ input: 'deep/../../file.txt', cwd: ws })).toMatchObject({ ok: true, end: path.join(ws, 'file.txt') });
    // Lexically both would be different places: ws/evil and root/file.txt.
    expect(path.resolve(ws, 'self/../evil')).toBe(path.join(ws, 'evil'));
  });

  it('reports every entry it looks at, including the links on the way and their targets', () => {
    const walk = walkKernelPath({ input: 'via/x', cwd: ws });
    expect(walk).toMatchObject({ ok: true, end: path.join(ws, 'sub', 'inner', 'x') });
    if (!walk.ok) return;
    expect(walk.entries).toEqual(expect.arrayContaining([path.join(ws, 'via'), path.join(ws, 'deep'), path.join(ws, 'sub'), path.join(ws, 'sub', 'inner'), path.join(ws, 'sub', 'inner', 'x')]));
  });

  it('follows absolute targets from the root', () => {
    expect(walkKernelPath({ input: 'absolute/inner', cwd: ws })).toMatchObject({ ok: true, end: path.join(ws, 'sub', 'inner') });
  });

  it('keeps the last component when asked (what rm and ln act on)', () => {
    expect(walkKernelPath({ input: 'self', cwd: ws, keepLast: true })).toMatchObject({ ok: true, end: path.join(ws, 'self') });
    expect(walkKernelPath({ input: 'self', cwd: ws })).toMatchObject({ ok: true, end: ws });
  });

  it('walks missing names lexically and fails on loops and files used as directories', () => {
    expect(walkKernelPath({ input: 'new/dir/x', cwd: ws })).toMatchObject({ ok: true, end: path.join(ws, 'new', 'dir', 'x') });
    expect(walkKernelPath({ input: 'loop-a/x', cwd: ws })).toMatchObject({ ok: false, reason: expect.stringMatching(/more than 40 symlinks/) });
    expect(walkKernelPath({ input: 'file.txt/x', cwd: ws })).toMatchObject({ ok: false, reason: expect.stringMatching(/ENOTDIR/) });
  });
});

describe('isAtOrBelow', () => {
  it('is separator-aware', () => {
    expect(isAtOrBelow({ candidate: '/p/ws/d/x', location: '/p/ws/d' })).toBe(true);
    expect(isAtOrBelow({ candidate: '/p/ws/d', location: '/p/ws/d' })).toBe(true);
    expect(isAtOrBelow({ candidate: '/p/ws/d-other', location: '/p/ws/d' })).toBe(false);
    expect(isAtOrBelow({ candidate: '/anything', location: '/' })).toBe(true);
  });
});
