/**
 * The server's two secrets, each from the environment or a 0600 file in the
 * policy's `.toolgate/` (made on first start): the admin token
 * (`TOOLGATE_ADMIN_TOKEN`, `.toolgate/server-token`) and the key that signs
 * approvals and seals stored runs (`TOOLGATE_SERVER_SECRET`,
 * `.toolgate/server-secret`; every process sharing a store needs the same).
 */
import { createWholeFile } from '../filesystem/create-whole-file.ts';
import { makeDirectoriesSync } from '../filesystem/make-directories.ts';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { ToolgateError } from '../core/errors/toolgate-error.ts';
import { readSecretFile } from './read-secret-file.ts';
import { newToken } from './tokens.ts';

const MINIMUM_ADMIN_TOKEN_CHARACTERS = 16;
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
  const fromEnv = env.TOOLGATE_ADMIN_TOKEN?.trim();
  if (fromEnv !== undefined && fromEnv !== '' && adminTokenTooShort(fromEnv)) {
    throw new ToolgateError({ code: 'USAGE', message: `TOOLGATE_ADMIN_TOKEN is too short to be a secret (at least ${MINIMUM_ADMIN_TOKEN_CHARACTERS} characters; unset it to have one generated)` });
  }
  const secretFromEnv = env.TOOLGATE_SERVER_SECRET?.trim();
  if (secretFromEnv !== undefined && secretFromEnv !== '' && secretTooShort(secretFromEnv)) {
    throw new ToolgateError({ code: 'USAGE', message: `TOOLGATE_SERVER_SECRET must be at least ${MINIMUM_SECRET_BYTES} bytes (e.g. \`openssl rand -base64 32\`)` });
  }
  const tokenFile = path.join(stateDirectory, 'server-token');
  const secretFile = path.join(stateDirectory, 'server-secret');
  const adminToken = fromEnv !== undefined && fromEnv !== '' ? fromEnv : readOrCreate({ file: tokenFile, what: 'admin token', make: newToken, tooShort: adminTokenTooShort });
  const secret =
    secretFromEnv !== undefined && secretFromEnv !== ''
      ? secretFromEnv
      : readOrCreate({ file: secretFile, what: 'server secret', make: () => randomBytes(32).toString('base64url'), tooShort: secretTooShort });
  const secretSource = secretFromEnv !== undefined && secretFromEnv !== '' ? 'TOOLGATE_SERVER_SECRET' : secretFile;
  return { adminToken, adminTokenSource: fromEnv !== undefined && fromEnv !== '' ? 'TOOLGATE_ADMIN_TOKEN' : tokenFile, secret, secretSource };
}

/** Why `token` is too short to guard the admin API, or `undefined`. */
function adminTokenTooShort(token: string): string | undefined {
  return token.length < MINIMUM_ADMIN_TOKEN_CHARACTERS ? `${token.length} character${token.length === 1 ? '' : 's'} long (at least ${MINIMUM_ADMIN_TOKEN_CHARACTERS} are needed)` : undefined;
}

/** Why `secret` is too short to sign approvals and seal runs, or `undefined`. */
function secretTooShort(secret: string): string | undefined {
  const bytes = Buffer.byteLength(secret);
  return bytes < MINIMUM_SECRET_BYTES ? `${bytes} byte${bytes === 1 ? '' : 's'} long (at least ${MINIMUM_SECRET_BYTES} are needed)` : undefined;
}

interface SecretFile {
  file: string;
  /** The secret's name in messages. */
  what: string;
  make: () => string;
  /** The same length rule the environment variable has: a file is no excuse for a guessable secret. */
  tooShort: (value: string) => string | undefined;
}

/** The file's content, checked, or a new value put in a new 0600 file that appears whole (never over an existing one). */
function readOrCreate(secretFile: SecretFile): string {
  const existing = readChecked(secretFile);
  if (existing !== undefined) return existing;
  const { file } = secretFile;
  makeDirectoriesSync(path.dirname(file), 0o700);
  const value = secretFile.make();
  if (createWholeFile(file, `${value}\n`, 0o600)) return value;
  // Another process made it first: use theirs, checked like any other.
  return readChecked(secretFile) ?? readOrCreate(secretFile);
}

/** The secret in `file` if there is one, refused when the file is unsafe, empty or too short. */
function readChecked(secretFile: SecretFile): string | undefined {
  const { file, what } = secretFile;
  const value = readSecretFile({ file, what });
  if (value === undefined) return undefined;
  if (value === '') throw new ToolgateError({ code: 'USAGE', message: `${file} is empty; delete it to have a new one made` });
  const tooShort = secretFile.tooShort(value);
  if (tooShort !== undefined) {
    throw new ToolgateError({ code: 'USAGE', message: `${file} (the ${what}) is too short to be a secret: ${tooShort}; delete it to have a new one generated` });
  }
  return value;
}
