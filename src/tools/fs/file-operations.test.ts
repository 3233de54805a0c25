/**
 * The window between check and use, closed at the lowest level: each case
 * resolves a path, then swaps something on disk, then runs the operation
 * with the stale resolution. Nothing outside may be read or changed.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FsChangedSinceApprovalError } from './errors/fs-changed-since-approval-error.ts';
import { FsPathRejectedError } from './errors/fs-path-rejected-error.ts';
import { createFile, moveFile, readSnapshot, removeFile, replaceFile } from './file-operations.ts';
import { atEntry, resolveForCheck, snapshotOf, type ResolvedPath } from './fs-tool-support.ts';
import { createFsFixture, type FsFixture } from '../../../test/fs-fixture.ts';
import { openVerifiedDirectory } from './verified-directory.ts';

let fixture: FsFixture;

beforeEach(() => {
  fixture = createFsFixture();
});

afterEach(() => fixture.cleanup());

async function resolve(target: string, operation: 'read' | 'write' | 'delete'): Promise<ResolvedPath> {
  const resolved = await resolveForCheck({ context: { zones: fixture.zones, cwd: fixture.project, maxReadBytes: 1 << 20, protectedPaths: [] }, path: target, operation });
  if ('reason' in resolved) throw new Error(resolved.reason);
  return resolved;
}

/** Replaces a directory of the project with a symlink to `target`. */
function swapForSymlink(relative: string, target: string): void {
  const at = path.join(fixture.project, relative);
  renameSync(at, `${at}.swapped`);
  symlinkSync(target, at);
}

describe('stale resolutions are refused at the point of use', () => {
  it('refuses a replace when the parent directory became a symlink out of the zone', async () => {
    writeFileSync(path.join(fixture.outside, 'nested', 'deep.txt'), 'outside twin\n');
    const resolved = await resolve('ws/sub/deep.txt', 'write');
    const snapshot = await snapshotOf(resolved);
    if (snapshot.kind !== 'file') throw new Error('expected a file');
    const before = fixture.outsideState();
    swapForSymlink('ws/sub', path.join(fixture.outside, 'nested'));
    await expect(atEntry({ resolved, createMissing: true }, (location) => replaceFile({ ...location, tool: 'write_file', content: Buffer.from('pwned'), expected: snapshot }))).rejects.toBeInstanceOf(
      FsPathRejectedError,
    );
    expect(fixture.outsideState()).toBe(before);
  });

  it('refuses when a grandparent became a symlink (the open follows it; the descriptor check catches it)', async () => {
    mkdirSync(path.join(fixture.project, 'ws/sub/inner'));
    mkdirSync(path.join(fixture.outside, 'nested', 'inner'));
    const resolved = await resolve('ws/sub/inner/new.txt', 'write');
    const before = fixture.outsideState();
    swapForSymlink('ws/sub', path.join(fixture.outside, 'nested'));
    await expect(atEntry({ resolved, createMissing: true }, (location) => createFile({ ...location, tool: 'write_file', content: Buffer.from('pwned') }))).rejects.toBeInstanceOf(FsPathRejectedError);
    expect(fixture.outsideState()).toBe(before);
  });

  it('refuses a create when a symlink was planted at the name (O_EXCL never follows)', async () => {
    const resolved = await resolve('ws/planted.txt', 'write');
    symlinkSync(path.join(fixture.outside, 'planted.txt'), path.join(fixture.project, 'ws/planted.txt'));
    await expect(atEntry({ resolved, createMissing: false }, (location) => createFile({ ...location, tool: 'write_file', content: Buffer.from('pwned') }))).rejects.toBeInstanceOf(
      FsChangedSinceApprovalError,
    );
    expect(existsSync(path.join(fixture.outside, 'planted.txt'))).toBe(false);
  });

  it('refuses to read a name that became a symlink (O_NOFOLLOW)', async () => {
    const resolved = await resolve('ws/notes.txt', 'read');
    renameSync(path.join(fixture.project, 'ws/notes.txt'), path.join(fixture.project, 'ws/notes.old'));
    symlinkSync(path.join(fixture.outside, 'secret.txt'), path.join(fixture.project, 'ws/notes.txt'));
    await expect(atEntry({ resolved, createMissing: false }, (location) => readSnapshot({ ...location, contentLimit: 1 << 20 }))).rejects.toBeInstanceOf(FsPathRejectedError);
  });

  it('refuses a replace when the file was swapped after its snapshot, leaving the swap in place', async () => {
    const resolved = await resolve('ws/notes.txt', 'write');
    const snapshot = await snapshotOf(resolved);
    if (snapshot.kind !== 'file') throw new Error('expected a file');
    const notes = path.join(fixture.project, 'ws/notes.txt');
    renameSync(notes, `${notes}.old`);
    symlinkSync(path.join(fixture.outside, 'secret.txt'), notes);
    const before = fixture.outsideState();
    await expect(atEntry({ resolved, createMissing: false }, (location) => replaceFile({ ...location, tool: 'write_file', content: Buffer.from('pwned'), expected: snapshot }))).rejects.toBeInstanceOf(
      FsChangedSinceApprovalError,
    );
    expect(fixture.outsideState()).toBe(before);
    expect(readFileSync(notes, 'utf8')).toBe('top secret\n');
  });

  it('refuses a delete or move when the file was replaced after its snapshot', async () => {
    const resolved = await resolve('ws/notes.txt', 'delete');
    const snapshot = await snapshotOf(resolved);
    if (snapshot.kind !== 'file') throw new Error('expected a file');
    const notes = path.join(fixture.project, 'ws/notes.txt');
    renameSync(notes, `${notes}.old`);
    writeFileSync(notes, 'another file\n');
    await expect(atEntry({ resolved, createMissing: false }, (location) => removeFile({ ...location, tool: 'delete_file', expected: snapshot }))).rejects.toBeInstanceOf(FsChangedSinceApprovalError);
    const destination = await resolve('ws/moved.txt', 'write');
    await expect(
      atEntry({ resolved, createMissing: false }, (source) =>
        atEntry({ resolved: destination, createMissing: false }, (target) => moveFile({ source, destination: target, tool: 'move_file', expected: snapshot })),
      ),
    ).rejects.toBeInstanceOf(FsChangedSinceApprovalError);
    expect(readFileSync(notes, 'utf8')).toBe('another file\n');
    expect(existsSync(path.join(fixture.project, 'ws/moved.txt'))).toBe(false);
  });

  it('refuses to open a verified directory that is now a symlink, or names that are not single names', async () => {
    swapForSymlink('ws/sub', fixture.outside);
    await expect(openVerifiedDirectory({ absolute: path.join(fixture.project, 'ws/sub'), shown: 'ws/sub' })).rejects.toBeInstanceOf(FsPathRejectedError);
    const directory = await openVerifiedDirectory({ absolute: path.join(fixture.project, 'ws'), shown: 'ws' });
    try {
      for (const name of ['..', '.', '', 'a/b', 'a\u0000b']) expect(() => directory.entry(name)).toThrow(FsPathRejectedError);
    } finally {
      await directory.close();
    }
  });
});
