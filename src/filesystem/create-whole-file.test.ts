import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createWholeFile } from './create-whole-file.ts';

let directory = '';
afterEach(() => rmSync(directory, { recursive: true, force: true }));
function scratch(): string {
  directory = mkdtempSync(path.join(os.tmpdir(), 'toolgate-whole-file-'));
  return directory;
}

describe('createWholeFile', () => {
  it('creates the file with its content and mode, leaving nothing else beside it', () => {
    const file = path.join(scratch(), 'secret');
    expect(createWholeFile(file, 'a value\n', 0o600)).toBe(true);
    expect(readFileSync(file, 'utf8')).toBe('a value\n');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(directory)).toEqual(['secret']);
  });

  it('creates an empty file when asked to', () => {
    const file = path.join(scratch(), 'audit.jsonl');
    expect(createWholeFile(file, '', 0o600)).toBe(true);
    expect(statSync(file).size).toBe(0);
  });

  it('never writes over an existing file, nor through a link in its place, dangling or not', () => {
    const root = scratch();
    const file = path.join(root, 'secret');
    writeFileSync(file, 'theirs\n');
    expect(createWholeFile(file, 'mine\n', 0o600)).toBe(false);
    expect(readFileSync(file, 'utf8')).toBe('theirs\n');
    const link = path.join(root, 'link');
    symlinkSync(path.join(root, 'nowhere'), link);
    expect(createWholeFile(link, 'mine\n', 0o600)).toBe(false);
    expect(() => statSync(path.join(root, 'nowhere'))).toThrow();
    expect(readdirSync(root).sort()).toEqual(['link', 'secret']);
  });

  it('on a file system without hard links (link answers EPERM, ENOTSUP...), makes the file with O_EXCL instead, still never over one', () => {
    const root = scratch();
    for (const code of ['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS']) {
      const noLinks = () => {
        throw Object.assign(new Error(`${code}: operation not permitted, link`), { code });
      };
      const file = path.join(root, `secret-${code}`);
      expect(createWholeFile(file, 'mine\n', 0o600, noLinks)).toBe(true);
      expect(readFileSync(file, 'utf8')).toBe('mine\n');
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(createWholeFile(file, 'again\n', 0o600, noLinks)).toBe(false);
      expect(readFileSync(file, 'utf8')).toBe('mine\n');
    }
    const link = path.join(root, 'link');
    symlinkSync(path.join(root, 'nowhere'), link);
    const noLinks = () => {
      throw Object.assign(new Error('EPERM'), { code: 'EPERM' });
    };
    expect(createWholeFile(link, 'mine\n', 0o600, noLinks), 'not through a link in its place either').toBe(false);
    expect(() => statSync(path.join(root, 'nowhere'))).toThrow();
    // Any other failure of link is the caller's to see, and leaves no temporary file.
    const broken = () => {
      throw Object.assign(new Error('EIO: i/o error, link'), { code: 'EIO' });
    };
    expect(() => createWholeFile(path.join(root, 'other'), 'x', 0o600, broken)).toThrow(/EIO/);
    expect(readdirSync(root).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('throws what the file system says when the folder is missing', () => {
    expect(() => createWholeFile(path.join(scratch(), 'no', 'such'), 'x', 0o600)).toThrow(/ENOENT/);
  });
});
