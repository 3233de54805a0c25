import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeDirectoriesSync } from './make-directories.ts';

let root: string;
beforeAll(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'toolgate-mkdirs-'));
  writeFileSync(path.join(root, 'file'), '');
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const name = 'nested';
const make = async (directory: string, mode: number) => makeDirectoriesSync(directory, mode);

describe('makeDirectoriesSync', () => {
  it('makes the missing parents with the mode, and leaves existing ones', async () => {
    const target = path.join(root, name, 'a', 'b');
    await make(target, 0o700);
    expect(statSync(target).isDirectory()).toBe(true);
    expect(statSync(path.join(root, name, 'a')).mode & 0o777).toBe(0o700);
    await make(target, 0o700);
    expect(existsSync(target)).toBe(true);
  });

  it('refuses a file in the way', async () => {
    await expect(make(path.join(root, 'file', 'below'), 0o700)).rejects.toMatchObject({ code: 'ENOTDIR' });
  });

  // fs.mkdir with { recursive: true } never returns here: the test would time out.
  it('refuses at once where the system refuses a child (/proc)', async () => {
    await expect(make('/proc/toolgate-nope/audit', 0o700)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
