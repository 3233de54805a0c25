/**
 * What a `--store` value names: a PostgreSQL database (`postgres://` or
 * `postgresql://` URL, passed as it is) or a SQLite file (a path, relative to
 * where toolgate was started). One reading for every command that takes it.
 */

const POSTGRES_URL = /^postgres(ql)?:\/\//i;

/**
 * Whether the location is a PostgreSQL URL.
 *
 * @example
 * isPostgresLocation('postgres://db/toolgate') // true
 */
export function isPostgresLocation(location: string): boolean {
  return POSTGRES_URL.test(location);
}

/**
 * The location a `--store` value names, or the problem with it: a URL of
 * another scheme is not taken for a file name.
 *
 * @example
 * resolveStoreLocation('state/toolgate.db', '/srv') // { location: '/srv/state/toolgate.db' }
 */
export function resolveStoreLocation(value: string, cwd: string, resolvePath: (cwd: string, file: string) => string): { location: string } | { problem: string } {
  if (value === '') return { problem: '--store needs a SQLite file or a postgres:// URL' };
  if (isPostgresLocation(value)) return { location: value };
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) return { problem: `--store takes a SQLite file or a postgres:// URL, not a ${JSON.stringify(value.split('://')[0])}:// URL` };
  return { location: resolvePath(cwd, value) };
}

/**
 * A store location as it may be shown: a PostgreSQL URL with its password
 * masked, a file as it is.
 *
 * @example
 * describeStoreLocation('postgres://app:s3cret@db/toolgate') // 'postgres://app:***@db/toolgate'
 */
export function describeStoreLocation(location: string): string {
  if (!isPostgresLocation(location)) return location;
  try {
    const parsed = new URL(location);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'a PostgreSQL URL (malformed)';
  }
}
