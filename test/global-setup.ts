import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestPostgres, TEST_POSTGRES_SOCKET_URL_VARIABLE, TEST_POSTGRES_URL_VARIABLE } from './postgres-server.ts';

/**
 * Runs once around the suite: says which Node runs it (toolgate needs >= 22),
 * and gives the run its own temporary directory. Every test file's
 * `os.tmpdir()` (and every process they start) is under it, so whatever a
 * test forgets to remove, or leaves behind when it fails or times out, goes
 * with the run instead of piling up in /tmp. And starts the run's PostgreSQL
 * server (`postgres-server.ts`), whose admin URL the workers inherit, and
 * toolgate's config and state homes of its own.
 */
export default async function setup(): Promise<() => Promise<void>> {
  const major = Number(process.versions.node.split('.')[0]);
  process.stdout.write(`toolgate tests on Node ${process.version}\n`);
  if (major < 22) throw new Error(`toolgate needs Node >= 22, the tests run on ${process.version}: run them through npm (npm test), which uses the pinned node devDependency`);
  const previous = process.env.TMPDIR;
  // Workers are started after this and inherit the environment.
  const directory = mkdtempSync(path.join(os.tmpdir(), 'toolgate-tests-'));
  process.env.TMPDIR = directory;
  // toolgate's folders in the home (the user-level policy, trusted policies, run records): the run's own, never this machine's.
  const homes = { TOOLGATE_CONFIG_HOME: process.env.TOOLGATE_CONFIG_HOME, TOOLGATE_STATE_HOME: process.env.TOOLGATE_STATE_HOME };
  process.env.TOOLGATE_CONFIG_HOME = path.join(directory, 'toolgate-config-home');
  process.env.TOOLGATE_STATE_HOME = path.join(directory, 'toolgate-state-home');
  // One PostgreSQL server for the run; each test that needs it makes its own database (postgres-server.ts).
  const postgres = await startTestPostgres();
  process.env[TEST_POSTGRES_URL_VARIABLE] = postgres.url;
  process.env[TEST_POSTGRES_SOCKET_URL_VARIABLE] = postgres.socketUrl;
  return async () => {
    await postgres.stop();
    delete process.env[TEST_POSTGRES_URL_VARIABLE];
    delete process.env[TEST_POSTGRES_SOCKET_URL_VARIABLE];
    for (const [name, value] of Object.entries(homes)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    try {
      rmSync(directory, { recursive: true, force: true, maxRetries: 3 });
    } catch (error) {
      process.stderr.write(`could not remove the tests' temporary directory ${directory}: ${(error as Error).message}\n`);
    }
  };
}
