/**
 * POSIX path arithmetic as pure string logic (src/core imports no Node
 * modules): what `path.posix` would say, for judging path arguments without
 * touching the file system. Symbolic links are not followed; the tools do
 * that on their side.
 */

/**
 * Collapses `.` segments, `..` segments and repeated slashes, and drops a
 * trailing slash. `..` never climbs above `/`; in a relative path leading
 * `..` segments are kept.
 *
 * @example
 * normalizePosixPath('/home/me/notes/drafts/../important.md') // '/home/me/notes/important.md'
 * normalizePosixPath('a//b/./c/') // 'a/b/c'
 */
export function normalizePosixPath(value: string): string {
  const absolute = value.startsWith('/');
  const kept: string[] = [];
  for (const segment of value.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (kept.length > 0 && kept[kept.length - 1] !== '..') kept.pop();
      else if (!absolute) kept.push('..');
      continue;
    }
    kept.push(segment);
  }
  const joined = kept.join('/');
  if (absolute) return `/${joined}`;
  return joined === '' ? '.' : joined;
}

/**
 * `value` resolved against the absolute directory `base` (an absolute `value` stands alone), normalised.
 *
 * @example
 * resolvePosixPath('/home/me/notes', 'drafts/../x.md') // '/home/me/notes/x.md'
 */
export function resolvePosixPath(base: string, value: string): string {
  return normalizePosixPath(value.startsWith('/') ? value : `${base}/${value}`);
}

/**
 * Whether the normalised absolute path `child` is `parent` or below it (segment-wise: `/a/bc` is not inside `/a/b`).
 *
 * @example
 * isInsidePath('/home/me/notes/drafts/a.md', '/home/me/notes/drafts') // true
 * isInsidePath('/home/me/notes/drafts-old/a.md', '/home/me/notes/drafts') // false
 */
export function isInsidePath(child: string, parent: string): boolean {
  if (parent === '/') return child.startsWith('/');
  return child === parent || child.startsWith(`${parent}/`);
}

/**
 * False when a value could mean another path than it reads as: it has a `.`
 * or `..` segment or an empty one (`//`). A trailing slash is fine. For a URL
 * (`scheme://host/path?query`) only the path is judged.
 *
 * @example
 * isNormalizedPath('/home/me/notes/drafts/../important.md') // false
 * isNormalizedPath('https://example.com/docs/') // true
 */
export function isNormalizedPath(value: string): boolean {
  let path = value;
  const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*/.exec(value);
  if (scheme !== null) path = value.slice(scheme[0].length).split(/[?#]/, 1)[0]!;
  const segments = path.split('/');
  for (let index = 0; index < segments.length; index++) {
    const segment = segments[index]!;
    if (segment === '.' || segment === '..') return false;
    if (segment === '' && index > 0 && index < segments.length - 1) return false;
  }
  return true;
}
