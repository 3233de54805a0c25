/**
 * Stable codes for what a store refuses: callers switch on these, never on
 * messages. Kept apart from `ToolgateErrorCode` (src/core) because only the
 * server's stores throw them; a PostgreSQL store can throw the same class.
 */
export type StoreErrorCode =
  /** The file exists but is not a SQLite database. */
  | 'STORE_NOT_A_DATABASE'
  /** The file is a SQLite database that some other program made (tables, but no toolgate `meta`). */
  | 'STORE_NOT_TOOLGATE'
  /** The database was written by a newer toolgate (its schema version is higher than ours). */
  | 'STORE_SCHEMA_NEWER'
  /** A query's argument is malformed: a `before` cursor this store did not make, a limit that is not a positive integer. */
  | 'STORE_INVALID_QUERY'
  /** A record the caller asked to write breaks a rule of the store (a new run that is not `running`, finishing a call never begun). */
  | 'STORE_INVALID_RECORD'
  /** A server wrote to a run it no longer drives (its lease ran out, or another server took the run over): nothing was written. */
  | 'STORE_FENCED'
  /** The SQLite store is held by a running `toolgate serve`: one server per store file. */
  | 'STORE_IN_USE'
  /** The database cannot be reached now (PostgreSQL down, restarting, out of connections): the server answers 503 and retries later. */
  | 'STORE_UNAVAILABLE';

/**
 * An error a store throws on purpose: `code` is stable, `message` names the
 * file or field and what was expected.
 *
 * @example
 * try { openSqliteStore({ file }); }
 * catch (error) { if (error instanceof StoreError && error.code === 'STORE_SCHEMA_NEWER') console.error(error.message); }
 */
export class StoreError extends Error {
  readonly code: StoreErrorCode;

  constructor(options: { code: StoreErrorCode; message: string; cause?: unknown }) {
    super(options.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'StoreError';
    this.code = options.code;
  }
}
