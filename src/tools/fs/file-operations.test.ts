/**
 * The window between check and use, closed at the lowest level: each case
 * resolves a path, then swaps something on disk, then runs the operation
 * with the stale resolution. Nothing outside may be read or changed.
 */
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFileSync, closeSync, existsSync, fstatSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FsChangedSinceApprovalError } from './errors/fs-changed-since-approval-error.ts';
import { FsPathRejectedError } from './errors/fs-path-rejected-error.ts';
import { createFile, DIRECT_IO_BYTES, moveFile, readFileHead, readSnapshot, removeFile, replaceFile, type EntryLocation } from './file-operations.ts';
import { atEntry, resolveForCheck, snapshotOf, type ResolvedPath } from './fs-tool-support.ts';
import { createFsFixture, inWorkspace as inWorkspaceOf, type FsFixture } from '../../../test/fs-fixture.ts';
import { openVerifiedDirectory } from './verified-directory.ts';

let fixture: FsFixture;

beforeEach(() => {
  fixture = createFsFixture();
});

afterEach(() => fixture.cleanup());

function resolve(target: string, operation: 'read' | 'write' | 'delete'): ResolvedPath {
  const resolved = resolveForCheck({ context: { zones: fixture.zones, cwd: fixture.project, maxReadBytes: 1 << 20, protectedPaths: [] }, path: target, operation });
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
    const resolved = resolve('ws/sub/deep.txt', 'write');
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
    const resolved = resolve('ws/sub/inner/new.txt', 'write');
    const before = fixture.outsideState();
    swapForSymlink('ws/sub', path.join(fixture.outside, 'nested'));
    await expect(atEntry({ resolved, createMissing: true }, (location) => createFile({ ...location, tool: 'write_file', content: Buffer.from('pwned') }))).rejects.toBeInstanceOf(FsPathRejectedError);
    expect(fixture.outsideState()).toBe(before);
  });

  it('refuses a create when a symlink was planted at the name (O_EXCL never follows)', async () => {
    const resolved = resolve('ws/planted.txt', 'write');
    symlinkSync(path.join(fixture.outside, 'planted.txt'), path.join(fixture.project, 'ws/planted.txt'));
    await expect(atEntry({ resolved, createMissing: false }, (location) => createFile({ ...location, tool: 'write_file', content: Buffer.from('pwned') }))).rejects.toBeInstanceOf(
      FsChangedSinceApprovalError,
    );
    expect(existsSync(path.join(fixture.outside, 'planted.txt'))).toBe(false);
  });

  it('refuses to read a name that became a symlink (O_NOFOLLOW)', async () => {
    const resolved = resolve('ws/notes.txt', 'read');
    renameSync(path.join(fixture.project, 'ws/notes.txt'), path.join(fixture.project, 'ws/notes.old'));
    symlinkSync(path.join(fixture.outside, 'secret.txt'), path.join(fixture.project, 'ws/notes.txt'));
    await expect(atEntry({ resolved, createMissing: false }, (location) => readSnapshot({ ...location, contentLimit: 1 << 20 }))).rejects.toBeInstanceOf(FsPathRejectedError);
  });

  it('refuses a replace when the file was swapped after its snapshot, leaving the swap in place', async () => {
    const resolved = resolve('ws/notes.txt', 'write');
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
    const resolved = resolve('ws/notes.txt', 'delete');
    const snapshot = await snapshotOf(resolved);
    if (snapshot.kind !== 'file') throw new Error('expected a file');
    const notes = path.join(fixture.project, 'ws/notes.txt');
    renameSync(notes, `${notes}.old`);
    writeFileSync(notes, 'another file\n');
    await expect(atEntry({ resolved, createMissing: false }, (location) => removeFile({ ...location, tool: 'delete_file', expected: snapshot }))).rejects.toBeInstanceOf(FsChangedSinceApprovalError);
    const destination = resolve('ws/moved.txt', 'write');
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

describe('direct and thread-pool I/O, and the descriptors behind them', () => {
  const inWorkspace = <Result>(name: string, use: (location: EntryLocation) => Promise<Result>) => inWorkspaceOf(fixture, name, use);

  function bytes(length: number, seed: number): Buffer {
    const buffer = Buffer.alloc(length);
    for (let index = 0; index < length; index++) buffer[index] = (index * 31 + seed) & 0xff;
    return buffer;
  }

  it.each([0, 10, DIRECT_IO_BYTES, DIRECT_IO_BYTES + 1, 3 * DIRECT_IO_BYTES + 17])('creates, reads, replaces and reads the head of a %i-byte file byte for byte', async (size) => {
    const first = bytes(size, 1);
    const second = bytes(size + 5, 2);
    await inWorkspace('sized.bin', (location) => createFile({ ...location, tool: 'write_file', content: first }));
    expect(readFileSync(path.join(fixture.project, 'ws/sized.bin')).equals(first)).toBe(true);
    const snapshot = await inWorkspace('sized.bin', (location) => readSnapshot({ ...location, contentLimit: 16 << 20 }));
    if (snapshot.kind !== 'file') throw new Error('expected a file');
    expect(snapshot.content?.equals(first)).toBe(true);
    expect(snapshot.size).toBe(size);
    expect(snapshot.sha256).toBe(createHash('sha256').update(first).digest('hex'));
    // Above the content limit the file is only hashed, in chunks.
    const hashed = await inWorkspace('sized.bin', (location) => readSnapshot({ ...location, contentLimit: 0 }));
    expect(hashed).toMatchObject({ kind: 'file', content: size === 0 ? first : undefined, sha256: snapshot.sha256 });
    await inWorkspace('sized.bin', (location) => replaceFile({ ...location, tool: 'write_file', content: second, expected: snapshot }));
    expect(readFileSync(path.join(fixture.project, 'ws/sized.bin')).equals(second)).toBe(true);
    const head = await inWorkspace('sized.bin', (location) => readFileHead({ ...location, limit: DIRECT_IO_BYTES + 3 }));
    expect(head).toMatchObject({ kind: 'file', size: size + 5 });
    if (head.kind !== 'file') throw new Error('expected a file');
    expect(head.content.equals(second.subarray(0, DIRECT_IO_BYTES + 3))).toBe(true);
  });

  it('reads a file only as far as its size when it was opened, however much it grows meanwhile', async () => {
    const target = path.join(fixture.project, 'ws/growing.log');
    const start = bytes(DIRECT_IO_BYTES + 4096, 5);
    writeFileSync(target, start);
    // A writer appending while the file is read (through the thread pool, at this size).
    let reading = true;
    let appended = 0;
    const grow = () => {
      if (!reading || appended >= 32 << 20) return;
      appendFileSync(target, Buffer.alloc(64 * 1024, 0x61));
      appended += 64 * 1024;
      setImmediate(grow);
    };
    setImmediate(grow);
    const snapshot = await inWorkspace('growing.log', (location) => readSnapshot({ ...location, contentLimit: 16 << 20 })).finally(() => (reading = false));
    if (snapshot.kind !== 'file') throw new Error('expected a file');
    expect(snapshot.content?.equals(start)).toBe(true);
    expect(snapshot.size).toBe(start.length);
    expect(snapshot.sha256).toBe(createHash('sha256').update(start).digest('hex'));
  });

  it.runIf(process.platform === 'linux')('leaves no descriptor open and no temporary file behind, whether an operation succeeds or is refused', async () => {
    const open = () => readdirSync('/proc/self/fd').length;
    const before = open();
    const notes = path.join(fixture.project, 'ws/notes.txt');
    for (let round = 0; round < 20; round++) {
      const snapshot = await inWorkspace('notes.txt', (location) => readSnapshot({ ...location, contentLimit: 1 << 20 }));
      if (snapshot.kind !== 'file') throw new Error('expected a file');
      await inWorkspace('notes.txt', (location) => replaceFile({ ...location, tool: 'write_file', content: Buffer.from(`round ${round}\n`), expected: snapshot }));
      await inWorkspace('notes.txt', (location) => readFileHead({ ...location, limit: 4 }));
      // Refused: the file was swapped after it was read (the temporary file is written, then removed).
      const stale = await inWorkspace('notes.txt', (location) => readSnapshot({ ...location, contentLimit: 1 << 20 }));
      if (stale.kind !== 'file') throw new Error('expected a file');
      renameSync(notes, `${notes}.old`);
      writeFileSync(notes, 'swapped\n');
      await expect(inWorkspace('notes.txt', (location) => replaceFile({ ...location, tool: 'write_file', content: Buffer.from('x'), expected: stale }))).rejects.toBeInstanceOf(
        FsChangedSinceApprovalError,
      );
      await expect(inWorkspace('notes.txt', (location) => removeFile({ ...location, tool: 'delete_file', expected: stale }))).rejects.toBeInstanceOf(FsChangedSinceApprovalError);
      // Refused: the name exists (create), or is a symlink (read).
      await expect(inWorkspace('notes.txt', (location) => createFile({ ...location, tool: 'write_file', content: Buffer.from('x') }))).rejects.toBeInstanceOf(FsChangedSinceApprovalError);
      symlinkSync(path.join(fixture.outside, 'secret.txt'), path.join(fixture.project, 'ws/link.txt'));
      await expect(inWorkspace('link.txt', (location) => readSnapshot({ ...location, contentLimit: 1 << 20 }))).rejects.toBeInstanceOf(FsPathRejectedError);
      unlinkSync(path.join(fixture.project, 'ws/link.txt'));
      unlinkSync(`${notes}.old`);
      // A directory swapped for a symlink after it was checked.
      swapForSymlink('ws/sub', path.join(fixture.outside, 'nested'));
      await expect(openVerifiedDirectory({ absolute: path.join(fixture.project, 'ws/sub'), shown: 'ws/sub' })).rejects.toBeInstanceOf(FsPathRejectedError);
      unlinkSync(path.join(fixture.project, 'ws/sub'));
      renameSync(path.join(fixture.project, 'ws/sub.swapped'), path.join(fixture.project, 'ws/sub'));
    }
    expect(open()).toBe(before);
    expect(readdirSync(path.join(fixture.project, 'ws')).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it.runIf(process.platform === 'linux' && existsSync('/dev/shm'))('moves a file across filesystems by copying it, byte for byte and with its mode, and refuses a source swapped for a FIFO', async () => {
    const shm = mkdtempSync('/dev/shm/toolgate-move-');
    try {
      for (const size of [10, 3 * DIRECT_IO_BYTES + 17]) {
        const content = bytes(size, 3);
        writeFileSync(path.join(shm, 'source.bin'), content, { mode: 0o640 });
        const from = await openVerifiedDirectory({ absolute: shm, shown: 'shm' });
        try {
          const location = { directory: from, name: 'source.bin', shown: 'shm/source.bin' };
          const snapshot = await readSnapshot({ ...location, contentLimit: 16 << 20 });
          if (snapshot.kind !== 'file') throw new Error('expected a file');
          await inWorkspace('moved.bin', (destination) => moveFile({ source: location, destination, tool: 'move_file', expected: snapshot }));
        } finally {
          await from.close();
        }
        const moved = path.join(fixture.project, 'ws/moved.bin');
        expect(readFileSync(moved).equals(content)).toBe(true);
        expect(statSync(moved).mode & 0o777).toBe(0o640);
        expect(existsSync(path.join(shm, 'source.bin'))).toBe(false);
        unlinkSync(moved);
      }
      // The source is read, then swapped for a FIFO that nobody writes to: the copy must not wait for a writer.
      writeFileSync(path.join(shm, 'source.bin'), 'original\n');
      const from = await openVerifiedDirectory({ absolute: shm, shown: 'shm' });
      try {
        const location = { directory: from, name: 'source.bin', shown: 'shm/source.bin' };
        const snapshot = await readSnapshot({ ...location, contentLimit: 1 << 20 });
        if (snapshot.kind !== 'file') throw new Error('expected a file');
        const fifo = path.join(shm, 'source.bin');
        unlinkSync(fifo);
        execFileSync('mkfifo', [fifo]);
        // A writer that turns up after 2 s: an open that waited for one would end then, not hang the suite.
        const writer = spawn('sh', ['-c', 'sleep 2; : > "$0"', fifo], { stdio: 'ignore' });
        try {
          const started = performance.now();
          await expect(inWorkspace('moved.bin', (destination) => moveFile({ source: location, destination, tool: 'move_file', expected: snapshot }))).rejects.toBeInstanceOf(
            FsChangedSinceApprovalError,
          );
          expect(performance.now() - started).toBeLessThan(1500);
        } finally {
          writer.kill('SIGKILL');
        }
      } finally {
        await from.close();
      }
      expect(existsSync(path.join(fixture.project, 'ws/moved.bin'))).toBe(false);
    } finally {
      rmSync(shm, { recursive: true, force: true });
    }
  });

  it('closes a verified directory once, even when asked twice (its descriptor number may already name another file)', async () => {
    const directory = await openVerifiedDirectory({ absolute: path.join(fixture.project, 'ws'), shown: 'ws' });
    await directory.close();
    // The lowest free number: the one the directory had (on Linux its listing path names it).
    const other = openSync(path.join(fixture.project, 'ws/notes.txt'), 'r');
    try {
      if (process.platform === 'linux') expect(directory.listing).toBe(`/proc/self/fd/${other}`);
      await directory.close();
      expect(fstatSync(other).isFile()).toBe(true);
    } finally {
      closeSync(other);
    }
  });
});
