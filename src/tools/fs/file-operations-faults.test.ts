/**
 * The fs tools' writes when the disk fails them: a full disk during the
 * write, an I/O error at the fsync. The original file stays as it was, no
 * temporary or half-written file is left, and no descriptor stays open.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createFsFixture, inWorkspace as inWorkspaceOf, type FsFixture } from '../../../test/fs-fixture.ts';
import { createFile, readSnapshot, replaceFile, type EntryLocation } from './file-operations.ts';

const faults = vi.hoisted(() => ({ write: undefined as string | undefined, fsync: undefined as string | undefined }));

vi.mock('node:fs', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs')>();
  const fail = (code: string, call: string) => Object.assign(new Error(`${code}: injected, ${call}`), { code });
  return {
    ...actual,
    writeSync(...args: Parameters<typeof actual.writeSync>) {
      if (faults.write !== undefined) throw fail(faults.write, 'write');
      return actual.writeSync(...args);
    },
    fsync(descriptor: number, callback: (error: NodeJS.ErrnoException | null) => void) {
      if (faults.fsync !== undefined) {
        const error = fail(faults.fsync, 'fsync');
        setImmediate(() => callback(error));
        return;
      }
      actual.fsync(descriptor, callback);
    },
  };
});

let fixture: FsFixture;
beforeEach(() => {
  fixture = createFsFixture();
  faults.write = undefined;
  faults.fsync = undefined;
});
afterEach(() => fixture.cleanup());

const inWorkspace = <Result>(name: string, use: (location: EntryLocation) => Promise<Result>) => inWorkspaceOf(fixture, name, use);

const openDescriptors = () => (process.platform === 'linux' ? readdirSync('/proc/self/fd').length : 0);

describe.each([
  { fault: 'write', code: 'ENOSPC' },
  { fault: 'fsync', code: 'EIO' },
] as const)('a failing $fault ($code)', ({ fault, code }) => {
  it('leaves the replaced file as it was, and no temporary file or descriptor behind', async () => {
    const notes = path.join(fixture.project, 'ws/notes.txt');
    const before = readFileSync(notes, 'utf8');
    const snapshot = await inWorkspace('notes.txt', (location) => readSnapshot({ ...location, contentLimit: 1 << 20 }));
    if (snapshot.kind !== 'file') throw new Error('expected a file');
    const descriptors = openDescriptors();
    faults[fault] = code;
    await expect(inWorkspace('notes.txt', (location) => replaceFile({ ...location, tool: 'write_file', content: Buffer.from('new content\n'), expected: snapshot }))).rejects.toMatchObject({ code });
    faults[fault] = undefined;
    expect(readFileSync(notes, 'utf8')).toBe(before);
    expect(readdirSync(path.join(fixture.project, 'ws')).filter((name) => name.endsWith('.tmp'))).toEqual([]);
    expect(openDescriptors()).toBe(descriptors);
  });

  it('removes the file it was creating, and leaves no descriptor open', async () => {
    const descriptors = openDescriptors();
    faults[fault] = code;
    await expect(inWorkspace('new.txt', (location) => createFile({ ...location, tool: 'write_file', content: Buffer.from('new\n') }))).rejects.toMatchObject({ code });
    faults[fault] = undefined;
    expect(existsSync(path.join(fixture.project, 'ws/new.txt'))).toBe(false);
    expect(openDescriptors()).toBe(descriptors);
    // The name is free again: a later write creates it.
    await inWorkspace('new.txt', (location) => createFile({ ...location, tool: 'write_file', content: Buffer.from('new\n') }));
    expect(readFileSync(path.join(fixture.project, 'ws/new.txt'), 'utf8')).toBe('new\n');
  });
});
