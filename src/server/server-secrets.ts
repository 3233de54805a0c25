/**
 * The server's two secrets, each from the environment or a 0600 file in the
 * policy's `.toolgate/` (made on first start): the admin token
 * (`TOOLGATE_ADMIN_TOKEN`, `.toolgate/server-token`) and the key that signs
 * approvals and seals stored runs (`TOOLGATE_SERVER_SECRET`,
 * `.toolgate/server-secret`; every process sharing a store needs the same).
 */
import { makeDirectoriesSync } from '../filesystem/make-directories.ts';
import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { ToolgateError } from '../core/errors/toolgate-error.ts';
import { newToken } from './tokens.ts';

const MINIMUM_SECRET_BYTES = 32;

export interface ServerSecrets {
  adminToken: string;
  /** Where the admin token came from: the environment or the file (named). */
  adminTokenSource: string;
  secret: string;
  /** Where the secret came from: TOOLGATE_SERVER_SECRET or the file (named). */
  secretSource: string;
}

/**
 * @example
 * const { adminToken, secret } = loadServerSecrets({ stateDirectory: '/srv/project/.toolgate', env: process.env });
 */
export function loadServerSecrets(options: { stateDirectory: string; env: NodeJS.ProcessEnv }): ServerSecrets {
  const { env, stateDirectory } = options;
  const tokenFile = path.join(stateDirectory, 'server-token');
  const fromEnv = env.TOOLGATE_ADMIN_TOKEN?.trim();
  if (fromEnv !== undefined && fromEnv !== '' && fromEnv.length < 16) {
    throw new ToolgateError({ code: 'USAGE', message: 'TOOLGATE_ADMIN_TOKEN is too short to be a secret (at least 16 characters; unset it to have one generated)' });
  }
  const adminToken = fromEnv !== undefined && fromEnv !== '' ? fromEnv : readOrCreate(tokenFile, newToken);
  const secretFromEnv = env.TOOLGATE_SERVER_SECRET?.trim();
  if (secretFromEnv !== undefined && secretFromEnv !== '' && Buffer.byteLength(secretFromEnv) < MINIMUM_SECRET_BYTES) {
    throw new ToolgateError({ code: 'USAGE', message: `TOOLGATE_SERVER_SECRET must be at least ${MINIMUM_SECRET_BYTES} bytes (e.g. \`openssl rand -base64 32\`)` });
  }
  const secret = secretFromEnv !== undefined && secretFromEnv !== '' ? secretFromEnv : readOrCreate(path.join(stateDirectory, 'server-secret'), () => randomBytes(32).toString('base64url'));
  const secretSource = secretFromEnv !== undefined && secretFromEnv !== '' ? 'TOOLGATE_SERVER_SECRET' : path.join(stateDirectory, 'server-secret');
  return { adminToken, adminTokenSource: fromEnv !== undefined && fromEnv !== '' ? 'TOOLGATE_ADMIN_TOKEN' : tokenFile, secret, secretSource };
}

/** The file's first line, or a new value written to a new 0600 file (never over an existing one). */
function readOrCreate(file: string, make: () => string): string {
  try {
    const existing = readFileSync(file, 'utf8').trim();
    if (existing !== '') return existing;
    throw new ToolgateError({ code: 'USAGE', message: `${file} is empty; delete it to have a new one made` });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  makeDirectoriesSync(path.dirname(file), 0o700);
  const value = make();
  let fd: number;
  try {
    fd = openSync(file, 'wx', 0o600);
  } catch (error) {
    // Another process made it first: use theirs.
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return readFileSync(file, 'utf8').trim();
    throw error;
  }
  try {
    writeSync(fd, `${value}\n`);
  } finally {
    closeSync(fd);
  }
  chmodSync(file, 0o600);
  return value;
}
