/**
 * The PostgreSQL store's connection: a pool of connections that prepare
 * every statement once (and a connection of its own for the lease's
 * heartbeat), the schema created or checked on opening, single statements,
 * transactions that roll back on any error, and failures to reach the
 * database turned into STORE_UNAVAILABLE.
 */
import { createHash } from 'node:crypto';
import pg from 'pg';
import { ensurePostgresSchema, POSTGRES_SCHEMA } from './postgres-schema.ts';
import { StoreError } from './sqlite-store-error.ts';
import { describeStoreLocation } from './store-location.ts';

/**
 * A connection that prepares each statement with parameters once, under a
 * name derived from its text, and from then on only binds and executes it:
 * PostgreSQL neither parses nor plans it again, and the text is not sent
 * again. Every statement text here is constant (values are always
 * parameters, also in the filters `sqlFilter` builds), so the names are few.
 */
class PreparingClient extends pg.Client {
  constructor(config?: string | pg.ClientConfig) {
    super(config);
    // A connection the database ends while it is checked out (a transaction under way, a backend terminated,
    // a failover) emits 'error' with no listener of the pool's: without this one that crashed the process.
    // The queries on it are rejected already, and the pool drops it when it is released as broken.
    this.on('error', () => undefined);
  }
}
const unprepared = pg.Client.prototype.query as (...args: unknown[]) => unknown;
PreparingClient.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  const [text, values, callback] = args;
  if (typeof text === 'string' && Array.isArray(values) && (args.length === 2 || (args.length === 3 && typeof callback === 'function'))) {
    return unprepared.call(this, { name: statementName(text), text, values }, ...args.slice(2));
  }
  return unprepared.apply(this, args);
} as typeof pg.Client.prototype.query;

const statementNames = new Map<string, string>();
function statementName(text: string): string {
  let name = statementNames.get(text);
  if (name === undefined) statementNames.set(text, (name = `toolgate_${createHash('sha256').update(text).digest('hex').slice(0, 32)}`));
  return name;
}

export interface PostgresStoreOptions {
  /** `postgres://user:password@host:port/database` (libpq's keywords in the query string: `?sslmode=require`...). */
  url: string;
  /** Connections this instance keeps open at most. Default 10. */
  maxConnections?: number;
  /** How long to wait for a connection before failing with STORE_UNAVAILABLE. Default 10 s. */
  connectTimeoutMs?: number;
  /** The clock for every stored time. Default `new Date()`. */
  now?: () => Date;
  /**
   * For `toolgate serve`: this server's id among the servers sharing the
   * database. Every run it creates or moves is stamped with it, and the store
   * offers `instances` (leases, orphaned runs) and `watch` (other servers'
   * events). Commands such as `toolgate token` leave it out.
   */
  instance?: string;
}

const BIGINT_OID = 20;

/** BIGINT ids and counts as numbers (they stay far below 2^53); every other type as node-postgres reads it. */
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === BIGINT_OID ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
};

/** One store's way to the database, shared by the parts of the store. */
export interface PostgresConnection {
  pool: pg.Pool;
  /** The store's location as people are shown it (no password). */
  where: string;
  /** This server's id among those sharing the database, or null (a command such as `toolgate token`). */
  instance: string | null;
  /** The time every stored record is stamped with. */
  now(): string;
  /** An error as the store throws it: STORE_UNAVAILABLE when the database cannot be reached. */
  failure(error: unknown): unknown;
  query<Row extends pg.QueryResultRow>(sql: string, values?: unknown[]): Promise<pg.QueryResult<Row>>;
  /** A statement on the lease's own connection. */
  leaseQuery(sql: string, values: unknown[]): Promise<void>;
  /** One transaction on one connection; any error rolls it back (a broken connection is dropped, not reused). */
  transaction<Result>(work: (client: pg.PoolClient) => Promise<Result>): Promise<Result>;
  /** Closes every connection (once what is checked out is released). */
  end(): Promise<void>;
}

/**
 * Connects to the database and creates or checks the schema; throws a
 * `StoreError` (STORE_UNAVAILABLE, STORE_SCHEMA_NEWER, STORE_NOT_TOOLGATE).
 *
 * @example
 * const db = await openPostgresConnection({ url: 'postgres://toolgate@db.internal/toolgate' });
 */
export async function openPostgresConnection(options: PostgresStoreOptions): Promise<PostgresConnection> {
  const where = describeStoreLocation(options.url);
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.maxConnections ?? 10,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
    options: `-c search_path=${POSTGRES_SCHEMA}`,
    types,
    Client: PreparingClient,
    // Messages sent before an answer arrives go out together (the group commit sends BEGIN and savepoints ahead).
    pipeline: true,
  });
  // An idle connection the server drops (a restart, a failover) must not crash the process: the pool replaces it.
  pool.on('error', () => undefined);
  // The lease's heartbeat has a connection of its own: behind a pool busy with a burst of commits, a renewal
  // waited its turn past the lease itself, and other servers took over the runs of a server that was working.
  const leasePool =
    options.instance === undefined
      ? undefined
      : new pg.Pool({ connectionString: options.url, max: 1, connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000, options: `-c search_path=${POSTGRES_SCHEMA}`, types, Client: PreparingClient });
  leasePool?.on('error', () => undefined);
  const now = () => (options.now ?? (() => new Date()))().toISOString();
  const instance = options.instance ?? null;
  const failure = (error: unknown): unknown => unavailable(error, where);

  try {
    const client = await pool.connect();
    try {
      await ensurePostgresSchema(client, where);
    } finally {
      client.release();
    }
  } catch (error) {
    await pool.end().catch(() => undefined);
    await leasePool?.end().catch(() => undefined);
    throw failure(error);
  }

  const query = async <Row extends pg.QueryResultRow>(sql: string, values: unknown[] = []): Promise<pg.QueryResult<Row>> => {
    try {
      return await pool.query<Row>(sql, values);
    } catch (error) {
      throw failure(error);
    }
  };

  const leaseQuery = async (sql: string, values: unknown[]): Promise<void> => {
    try {
      await (leasePool ?? pool).query(sql, values);
    } catch (error) {
      throw failure(error);
    }
  };

  async function transaction<Result>(work: (client: pg.PoolClient) => Promise<Result>): Promise<Result> {
    let client: pg.PoolClient;
    try {
      client = await pool.connect();
    } catch (error) {
      throw failure(error);
    }
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      try {
        await client.query('ROLLBACK');
      } catch (rollbackError) {
        broken = rollbackError as Error;
      }
      throw failure(error);
    } finally {
      client.release(broken);
    }
  }

  return {
    pool,
    where,
    instance,
    now,
    failure,
    query,
    leaseQuery,
    transaction,
    end: async () => {
      await pool.end();
      await leasePool?.end();
    },
  };
}

/**
 * SQLSTATEs of a database that cannot serve now: connection exceptions (08),
 * shutdown and restart (57P01-57P04), too many connections (53300), no such
 * database (3D000), refused logins (28), and a database closed to
 * connections (55000 "not currently accepting connections").
 */
const UNAVAILABLE_STATES = /^(08|57P0[1-4]|53300|3D000|28)/;
// ENOENT and EACCES: a Unix socket that is not there (no server in that directory) or that this user may not open.
const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EPIPE', 'EAI_AGAIN', 'ENOENT', 'EACCES']);

/**
 * A failure to reach the database as a StoreError STORE_UNAVAILABLE (the
 * server answers 503); any other error as it is (a constraint, a bug).
 */
function unavailable(error: unknown, where: string): unknown {
  if (error instanceof StoreError) return error;
  const code = (error as { code?: unknown }).code;
  const message = (error as Error)?.message ?? String(error);
  const lost =
    (typeof code === 'string' && (UNAVAILABLE_STATES.test(code) || UNAVAILABLE_CODES.has(code) || (code === '55000' && /accepting connections/i.test(message)))) ||
    /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(message);
  if (!lost) return error;
  return new StoreError({ code: 'STORE_UNAVAILABLE', message: `the PostgreSQL store at ${where} cannot be reached: ${message}`, cause: error });
}
