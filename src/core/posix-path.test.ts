import { describe, expect, it } from 'vitest';
import { isInsidePath, isNormalizedPath, normalizePosixPath, resolvePosixPath } from './posix-path.ts';

describe('normalizePosixPath', () => {
  it('resolves ., .. and repeated slashes like path.posix.normalize (without the trailing slash)', () => {
    expect(normalizePosixPath('/home/me/notes/drafts/../important.md')).toBe('/home/me/notes/important.md');
    expect(normalizePosixPath('/home//me/./notes/')).toBe('/home/me/notes');
    expect(normalizePosixPath('/../../etc/passwd')).toBe('/etc/passwd');
    expect(normalizePosixPath('/')).toBe('/');
    expect(normalizePosixPath('//')).toBe('/');
    expect(normalizePosixPath('a/b/../../..')).toBe('..');
    expect(normalizePosixPath('./a/./b')).toBe('a/b');
    expect(normalizePosixPath('.')).toBe('.');
    expect(normalizePosixPath('a/..')).toBe('.');
    expect(normalizePosixPath('/a/...')).toBe('/a/...');
  });

  it('resolves a relative value against an absolute base; an absolute one stands alone', () => {
    expect(resolvePosixPath('/home/me/notes', 'drafts/../x.md')).toBe('/home/me/notes/x.md');
    expect(resolvePosixPath('/home/me/notes', '../../../../etc')).toBe('/etc');
    expect(resolvePosixPath('/home/me/notes', '/tmp/x')).toBe('/tmp/x');
  });
});

describe('isInsidePath', () => {
  it('compares whole segments', () => {
    expect(isInsidePath('/home/me/notes/drafts/a.md', '/home/me/notes/drafts')).toBe(true);
    expect(isInsidePath('/home/me/notes/drafts', '/home/me/notes/drafts')).toBe(true);
    expect(isInsidePath('/home/me/notes/drafts-old/a.md', '/home/me/notes/drafts')).toBe(false);
    expect(isInsidePath('/home/me/notes', '/home/me/notes/drafts')).toBe(false);
    expect(isInsidePath('/anything', '/')).toBe(true);
  });
});

describe('isNormalizedPath', () => {
  it('is false for ., .. and empty segments, true otherwise', () => {
    for (const value of ['/a/../b', '../b', 'a/..', '/a/./b', './a', '/a//b', '//a', 'drafts/../important.md']) expect(isNormalizedPath(value), value).toBe(false);
    for (const value of ['/a/b', 'a/b', '/a/b/', '/', 'file.txt', '/a/...', '/a/..b', 'a..b', 'hello world', '']) expect(isNormalizedPath(value), value).toBe(true);
  });

  it('judges only the path of a URL', () => {
    expect(isNormalizedPath('https://example.com/docs/')).toBe(true);
    expect(isNormalizedPath('https://example.com/docs?next=//x/../y')).toBe(true);
    expect(isNormalizedPath('https://example.com/docs/../admin')).toBe(false);
    expect(isNormalizedPath('file:///etc/../root')).toBe(false);
  });
});
