/**
 * A real PostgreSQL server for the tests, started from Debian's binaries
 * (`apt-get install postgresql`, which `scripts/ensure-test-packages.ts`
 * installs when missing) in a temporary directory, on a free loopback port,
 * with trust authentication for one superuser. PostgreSQL refuses to run as
 * root: as root it runs as the `postgres` user the package creates.
 * `freshDatabase` gives each test file (or test) its own empty database.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import pg from 'pg';

/** The environment variable the global setup passes the server's admin URL in. */
export const TEST_POSTGRES_URL_VARIABLE = 'TOOLGATE_TEST_POSTGRES_URL';

/** The same server's admin URL through its Unix socket (`socketUrl`). */
export const TEST_POSTGRES_SOCKET_URL_VARIABLE = 'TOOLGATE_TEST_POSTGRES_SOCKET_URL';

export interface TestPostgresServer {
  /** `postgres://toolgate@127.0.0.1:PORT/postgres`: the superuser on the maintenance database. */
  url: string;
  /**
   * The same through the server's Unix socket: the socket's directory as the
   * host, percent-encoded (`postgres://toolgate@%2Ftmp%2Ftoolgate-postgres-x:PORT/postgres`).
   */
  socketUrl: string;
  stop(): Promise<void>;
}

/**
 * The directory of `initdb` and `postgres`: on PATH, else Debian's
 * /usr/lib/postgresql/<version>/bin (the newest version installed).
 *
 * @example
 * postgresBinDirectory() // '/usr/lib/postgresql/15/bin'
 */
export function postgresBinDirectory(): string | undefined {
  const onPath = spawnSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' });
  if (onPath.status === 0 && onPath.stdout.trim() !== '' && existsSync(path.join(path.dirname(onPath.stdout.trim()), 'postgres'))) return path.dirname(onPath.stdout.trim());
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((entry) => /^\d+$/.test(entry) && existsSync(path.join(root, entry, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length === 0 ? undefined : path.join(root, versions[0]!, 'bin');
}

/**
 * Starts a server in a new directory (outside the tests' private TMPDIR, so
 * the `postgres` user can enter it) and waits until it accepts connections.
 *
 * @example
 * const server = await startTestPostgres();
 * process.env.TOOLGATE_TEST_POSTGRES_URL = server.url;
 */
export async function startTestPostgres(): Promise<TestPostgresServer> {
  const bin = postgresBinDirectory();
  if (bin === undefined) throw new Error('PostgreSQL is not installed: the store tests need a real server (apt-get install postgresql; npm test installs it when run as root)');
  const asUser = process.getuid?.() === 0 ? postgresUser() : undefined;
  const directory = mkdtempSync('/tmp/toolgate-postgres-');
  const data = path.join(directory, 'data');
  if (asUser !== undefined) {
    chownSync(directory, asUser.uid, asUser.gid);
    chmodSync(directory, 0o700);
  }
  const run = (command: string, args: string[]) => {
    const result = spawnSync(path.join(bin, command), args, { encoding: 'utf8', ...(asUser === undefined ? {} : { uid: asUser.uid, gid: asUser.gid }), env: { ...process.env, LC_ALL: 'C' } });
    if (result.status !== 0) throw new Error(`${command} failed (${result.status}): ${result.stderr || result.stdout}`);
  };
  run('initdb', ['-D', data, '-U', 'toolgate', '--auth=trust', '--encoding=UTF8', '--no-sync']);
  const port = await freePort();
  // fsync stays on: the store's durability is part of what is tested. The socket lives in the private directory.
  const server = spawn(path.join(bin, 'postgres'), ['-D', data, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', `unix_socket_directories=${directory}`, '-c', 'max_connections=300'], {
    stdio: ['ignore', 'ignore', 'pipe'],
    ...(asUser === undefined ? {} : { uid: asUser.uid, gid: asUser.gid }),
    env: { ...process.env, LC_ALL: 'C' },
  });
  let log = '';
  server.stderr!.on('data', (chunk: Buffer) => (log = (log + chunk.toString()).slice(-4000)));
  const url = `postgres://toolgate@127.0.0.1:${port}/postgres`;
  const socketUrl = `postgres://toolgate@${encodeURIComponent(directory)}:${port}/postgres`;
  const exited = new Promise<void>((resolve) => server.once('exit', () => resolve()));
  const stop = async () => {
    // SIGINT: PostgreSQL's fast shutdown (its sessions are ended, nothing waits for clients to leave).
    if (server.exitCode === null && server.signalCode === null) server.kill('SIGINT');
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000).unref())]);
    if (server.exitCode === null && server.signalCode === null) server.kill('SIGKILL');
    rmSync(directory, { recursive: true, force: true });
  };
  for (let attempt = 0; ; attempt++) {
    if (server.exitCode !== null) throw new Error(`postgres exited with ${server.exitCode}: ${log}`);
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      await client.end();
      return { url, socketUrl, stop };
    } catch (error) {
      await client.end().catch(() => undefined);
      if (attempt > 200) {
        await stop();
        throw new Error(`postgres did not accept connections: ${(error as Error).message}\n${log}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

let databases = 0;

/**
 * A new empty database on the test server, and a function that drops it.
 * Its URL reaches the server as the admin URL does (`admin`, by default the
 * one in `TOOLGATE_TEST_POSTGRES_URL`): over TCP, or through the Unix socket
 * when it names the socket.
 *
 * @example
 * const database = await freshDatabase();
 * const store = await openPostgresStore({ url: database.url });
 * await database.drop();
 */
export async function freshDatabase(options: { admin?: string } = {}): Promise<{ url: string; drop(): Promise<void> }> {
  const admin = options.admin ?? process.env[TEST_POSTGRES_URL_VARIABLE];
  if (admin === undefined) throw new Error(`${TEST_POSTGRES_URL_VARIABLE} is not set: the tests' global setup starts PostgreSQL (run them with npm test)`);
  const name = `toolgate_test_${process.pid}_${++databases}_${Date.now().toString(36)}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const dropper = new pg.Client({ connectionString: admin });
      await dropper.connect();
      try {
        await dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await dropper.end();
      }
    },
  };
}

function postgresUser(): { uid: number; gid: number } {
  const uid = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
  const gid = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
  if (uid.status !== 0 || gid.status !== 0) throw new Error('PostgreSQL refuses to run as root and there is no postgres user to run it as (the postgresql package creates one)');
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
