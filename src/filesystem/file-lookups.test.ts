import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HeldLookups, holdingFilesStill, lstatSync, readdirSync, readlinkSync, readTextFileSync, realpathSync, statSync } from './file-lookups.ts';

let directory = '';
afterEach(() => {
  if (directory !== '') rmSync(directory, { recursive: true, force: true });
  directory = '';
});
function scratch(): string {
  directory = mkdtempSync(path.join(os.tmpdir(), 'toolgate-lookups-'));
  return directory;
}

describe('file lookups', () => {
  it('outside a held pass, look at the tree as it is each time', () => {
    const file = path.join(scratch(), 'a');
    expect(statSync(file, { throwIfNoEntry: false })).toBeUndefined();
    writeFileSync(file, 'one');
    expect(statSync(file).size).toBe(3);
    expect(readTextFileSync(file, { maxBytes: 1024 })).toBe('one');
    writeFileSync(file, 'three');
    expect(readTextFileSync(file, { maxBytes: 1024 })).toBe('three');
  });

  it('in a held pass, look once: what changes after is not seen until a new pass', async () => {
    const root = scratch();
    const file = path.join(root, 'a');
    const lookups = new HeldLookups();
    await holdingFilesStill(lookups, async () => {
      expect(lstatSync(file, { throwIfNoEntry: false })).toBeUndefined();
      expect(readdirSync(root)).toEqual([]);
      writeFileSync(file, 'x');
      await Promise.resolve();
      // Still the first answers, across an await.
      expect(lstatSync(file, { throwIfNoEntry: false })).toBeUndefined();
      expect(readdirSync(root)).toEqual([]);
    });
    await holdingFilesStill(new HeldLookups(), () => {
      expect(lstatSync(file).isFile()).toBe(true);
      expect(readdirSync(root)).toEqual(['a']);
    });
  });

  it('throws a remembered failure again, the same error, as often as it is asked', () => {
    const missing = path.join(scratch(), 'missing');
    holdingFilesStill(new HeldLookups(), () => {
      let first: unknown;
      try {
        realpathSync.native(missing);
      } catch (error) {
        first = error;
      }
      expect((first as NodeJS.ErrnoException).code).toBe('ENOENT');
      let again: unknown;
      try {
        realpathSync.native(missing);
      } catch (error) {
        again = error;
      }
      expect(again).toBe(first);
      // What callers read of it, kept; its stack trace (which holds the frames of whoever looked) not.
      expect(again).toMatchObject({ code: 'ENOENT', syscall: 'realpath', path: missing, message: expect.stringContaining('ENOENT') });
      expect(again).toBeInstanceOf(Error);
      expect((again as Error).stack).not.toContain('file-lookups');
      expect(() => statSync(missing)).toThrow(/ENOENT/);
      // The quiet form of the same lookup is its own answer.
      expect(statSync(missing, { throwIfNoEntry: false })).toBeUndefined();
    });
  });

  it('gives each caller its own copy of a folder listing, so one that sorts it changes nothing for the next', () => {
    const root = scratch();
    for (const name of ['b', 'a', 'c']) writeFileSync(path.join(root, name), '');
    holdingFilesStill(new HeldLookups(), () => {
      const listed = readdirSync(root);
      const order = [...listed];
      listed.reverse().push('z');
      expect(readdirSync(root)).toEqual(order);
      expect(readdirSync(root, { withFileTypes: true }).map((entry) => entry.name)).toEqual(order);
    });
  });

  it('never shows a held answer to work running outside the pass at the same time', async () => {
    const root = scratch();
    const file = path.join(root, 'a');
    let release = () => {};
    const paused = new Promise<void>((resolve) => (release = resolve));
    const held = holdingFilesStill(new HeldLookups(), async () => {
      expect(statSync(file, { throwIfNoEntry: false })).toBeUndefined();
      await paused;
      return statSync(file, { throwIfNoEntry: false });
    });
    writeFileSync(file, 'x');
    // Outside: the file as it is now.
    expect(statSync(file).isFile()).toBe(true);
    release();
    expect(await held).toBeUndefined();
  });

  it('follows links as node:fs does: realpath both ways, readlink, lstat of the link itself', () => {
    const root = scratch();
    mkdirSync(path.join(root, 'real'));
    symlinkSync(path.join(root, 'real'), path.join(root, 'link'));
    holdingFilesStill(new HeldLookups(), () => {
      expect(realpathSync(path.join(root, 'link'))).toBe(realpathSync.native(path.join(root, 'real')));
      expect(readlinkSync(path.join(root, 'link'))).toBe(path.join(root, 'real'));
      expect(lstatSync(path.join(root, 'link')).isSymbolicLink()).toBe(true);
      expect(statSync(path.join(root, 'link')).isDirectory()).toBe(true);
    });
  });

  it('keeps no answer for a very long path, nor a large file\'s text: a hostile transcript could name thousands', async () => {
    const root = scratch();
    const long = path.join(root, 'a/'.repeat(600), 'missing');
    const big = path.join(root, 'big');
    writeFileSync(big, 'x'.repeat(300 * 1024));
    const lookups = new HeldLookups();
    await holdingFilesStill(lookups, () => {
      expect(statSync(long, { throwIfNoEntry: false })).toBeUndefined();
      expect(readTextFileSync(big, { maxBytes: 1 << 20 }).length).toBe(300 * 1024);
    });
    mkdirSync(path.dirname(long), { recursive: true });
    writeFileSync(long, '');
    writeFileSync(big, 'small now');
    await holdingFilesStill(lookups, () => {
      // Looked at again, as they are now.
      expect(statSync(long, { throwIfNoEntry: false })?.isFile()).toBe(true);
      expect(readTextFileSync(big, { maxBytes: 1 << 20 })).toBe('small now');
    });
  });

  it('reads no more of a file than it is asked for, and refuses a named pipe without blocking on it', () => {
    const root = scratch();
    const huge = path.join(root, '.git');
    writeFileSync(huge, `gitdir: ../elsewhere\n${'x'.repeat(1 << 20)}`);
    expect(readTextFileSync(huge, { maxBytes: 4096 })).toBe(`gitdir: ../elsewhere\n${'x'.repeat(4096 - 21)}`);
    const fifo = path.join(root, 'commondir');
    execFileSync('mkfifo', [fifo]);
    expect(() => readTextFileSync(fifo, { maxBytes: 4096 })).toThrow(/not a regular file/);
    expect(() => holdingFilesStill(new HeldLookups(), () => readTextFileSync(fifo, { maxBytes: 4096 }))).toThrow(/not a regular file/);
  });
});
