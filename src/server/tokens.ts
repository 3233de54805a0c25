/**
 * API tokens of `toolgate serve`: `tg_` and 32 random bytes (base64url).
 * Only a token's SHA-256 is ever stored; the token itself is shown once, when
 * it is made. The admin token (from `TOOLGATE_ADMIN_TOKEN` or
 * `.toolgate/server-token`) is not in the store: the server keeps its hash and
 * compares in constant time.
 */
import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Principal } from './run-service.ts';
import type { TokenRole, ToolgateStore } from '../store/store.ts';

export const TOKEN_ROLES: readonly TokenRole[] = ['submitter', 'approver', 'admin'];

/** The principal name of the server's own admin token, and the other names decisions use for nobody in particular. */
export const ADMIN_PRINCIPAL_NAME = 'admin';
const RESERVED_NAMES = new Set([ADMIN_PRINCIPAL_NAME, 'timeout', 'system']);

const TOKEN_NAME = /^[A-Za-z0-9._-]{1,64}$/;
const TOKEN_SHAPE = /^tg_[A-Za-z0-9_-]{43}$/;

/** A token name that breaks the rules, or is taken. */
export class TokenNameError extends Error {
  readonly code: 'TOKEN_NAME_INVALID' | 'TOKEN_NAME_TAKEN' | 'TOKEN_ROLE_INVALID';

  constructor(message: string, code: TokenNameError['code']) {
    super(message);
    this.name = 'TokenNameError';
    this.code = code;
  }
}

/**
 * A new random token.
 *
 * @example
 * newToken() // 'tg_3q2-7wEj...' (46 characters)
 */
export function newToken(): string {
  return `tg_${randomBytes(32).toString('base64url')}`;
}

/**
 * The SHA-256 of a token, hex: what the store keeps and looks tokens up by.
 *
 * @example
 * hashToken('tg_abc') // '5f1e...' (64 hex digits)
 */
export function hashToken(token: string): string {
  return hash('sha256', token, 'hex');
}

/**
 * Why `name` cannot name a token, or undefined when it can.
 *
 * @example
 * tokenNameProblem('ci bot') // 'token name "ci bot" may hold only letters, digits, ".", "_" and "-" (1 to 64 of them)'
 */
export function tokenNameProblem(name: string): string | undefined {
  if (!TOKEN_NAME.test(name)) return `token name ${JSON.stringify(name)} may hold only letters, digits, ".", "_" and "-" (1 to 64 of them)`;
  if (RESERVED_NAMES.has(name.toLowerCase())) return `token name ${JSON.stringify(name)} is reserved (the server's admin token and decisions nobody took use it): choose another`;
  return undefined;
}

/**
 * Makes a token for `name` with `role`, stores its hash, and returns the
 * token: the only time it exists outside the caller's hands. Throws
 * `TokenNameError` for a bad name or role, or a name already used (also by a
 * revoked token: names stay unique, so a decision's approver stays one person).
 *
 * @example
 * const token = await createApiToken({ store, name: 'alice', role: 'approver' });
 */
export async function createApiToken(options: { store: ToolgateStore; name: string; role: TokenRole }): Promise<string> {
  const problem = tokenNameProblem(options.name);
  if (problem !== undefined) throw new TokenNameError(problem, 'TOKEN_NAME_INVALID');
  if (!TOKEN_ROLES.includes(options.role)) throw new TokenNameError(`role ${JSON.stringify(options.role)} is not one of ${TOKEN_ROLES.join(', ')}`, 'TOKEN_ROLE_INVALID');
  const token = newToken();
  const created = await options.store.createToken({ name: options.name, role: options.role, hash: hashToken(token) });
  if (!created) throw new TokenNameError(`a token named ${JSON.stringify(options.name)} exists already (names stay taken after a revoke): choose another name`, 'TOKEN_NAME_TAKEN');
  return token;
}

/**
 * Whether `token` is the admin token whose hash is `adminTokenHash`: the
 * hashes compared in constant time.
 *
 * @example
 * isAdminToken({ token: presented, adminTokenHash: hashToken(adminToken) }) // true
 */
export function isAdminToken(options: { token: string; adminTokenHash: string }): boolean {
  return hashIsAdmin(hashToken(options.token), options.adminTokenHash);
}

function hashIsAdmin(presentedHash: string, adminTokenHash: string): boolean {
  const presented = Buffer.from(presentedHash, 'hex');
  const expected = Buffer.from(adminTokenHash, 'hex');
  // A malformed configured hash never matches (timingSafeEqual needs equal lengths).
  return expected.length === presented.length && timingSafeEqual(presented, expected);
}

/**
 * Who `token` is: the admin token, or a live token of the store (looked up on
 * every call, so a revoke takes effect at once). Undefined when neither.
 *
 * @example
 * await principalForToken({ token, store, adminTokenHash }) // { name: 'alice', role: 'approver' } | undefined
 */
export async function principalForToken(options: { token: string; store: ToolgateStore; adminTokenHash: string }): Promise<Principal | undefined> {
  const tokenHash = hashToken(options.token);
  if (hashIsAdmin(tokenHash, options.adminTokenHash)) return { name: ADMIN_PRINCIPAL_NAME, role: 'admin' };
  // Anything not shaped like a token cannot be one: no store round trip for garbage.
  if (!TOKEN_SHAPE.test(options.token)) return undefined;
  const stored = await options.store.findToken(tokenHash);
  if (stored === undefined || stored.revokedAt !== null) return undefined;
  return { name: stored.name, role: stored.role };
}
