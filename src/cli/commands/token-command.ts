import { existsSync } from 'node:fs';
import path from 'node:path';
import { stateDirectory } from '../../config/load-policy-file.ts';
import { sanitizeTerminalText } from '../../core/sanitize-terminal-text.ts';
import { terminalSafeJson } from '../../core/terminal-safe-json.ts';
import { createApiToken, TOKEN_ROLES, TokenNameError, tokenNameProblem } from '../../server/tokens.ts';
import { openStore } from '../../store/open-store.ts';
import { describeStoreLocation, isPostgresLocation, resolveStoreLocation } from '../../store/store-location.ts';
import { StoreError } from '../../store/sqlite-store-error.ts';
import type { TokenRole, ToolgateStore } from '../../store/store.ts';
import { EXIT, type CliIo } from '../cli-io.ts';
import { policyForRun, UsageError } from '../cli-support.ts';
import { parseCommandLine } from '../parse-command-line.ts';

/** The store file beside a policy: `.toolgate/toolgate.db`. */
export const DEFAULT_STORE_NAME = 'toolgate.db';

export const TOKEN_HELP = `Usage:
  toolgate token create NAME --role submitter|approver|admin [--policy FILE] [--store FILE|URL]
  toolgate token list [--policy FILE] [--store FILE|URL] [--json]
  toolgate token revoke NAME [--policy FILE] [--store FILE|URL]

API tokens for \`toolgate serve\`, kept in the store the server uses. Only a
token's SHA-256 is stored: create prints the new token alone on one line,
this once; keep it (a lost token is revoked and replaced, never shown again).

Roles:
  submitter   starts runs (POST /runs) and sees its own
  approver    decides (POST /runs/:id/approve), sees every run and GET /approvals
  admin       everything, also GET /metrics and DELETE /sessions/...

Names are 1 to 64 letters, digits, ".", "_" or "-"; a name stays taken after
its token is revoked (decisions record who took them). A revoke takes effect
at once, also on a running server. The server's own admin token
(TOOLGATE_ADMIN_TOKEN or .toolgate/server-token) is not listed here.

Options:
  --role ROLE     create: submitter, approver or admin
  --policy FILE   the policy whose store to use: .toolgate/${DEFAULT_STORE_NAME} beside it
                  (default: ./toolgate.yaml, .yml or .json, else ./.toolgate/)
  --store FILE|URL  the store itself, as \`toolgate serve --store\`: a SQLite file
                  or a postgres:// URL (default TOOLGATE_STORE_URL when set)
  --json          list: one JSON object per token
  -h, --help      this help

Exit codes:
  0  done
  1  create: the name is taken; revoke: no live token of that name;
     or the store cannot be opened
  2  usage error (also a name that breaks the rules)
  3  the policy file is invalid
`;

/**
 * `toolgate token create | list | revoke`.
 *
 * @example
 * process.exitCode = await runTokenCommand(['create', 'alice', '--role', 'approver'], processIo());
 * // stdout: tg_... (the token, once)
 */
export async function runTokenCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandLine({
    argv,
    allowPositionals: true,
    options: {
      role: { type: 'string' },
      policy: { type: 'string' },
      store: { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [action, ...names] = positionals;
  if (values.help === true || action === undefined) {
    io.stdout.write(TOKEN_HELP);
    return values.help === true ? EXIT.ok : EXIT.usage;
  }
  if (action !== 'create' && action !== 'list' && action !== 'revoke') throw new UsageError(`unknown action ${JSON.stringify(action)}: use create, list or revoke`);
  if (action === 'list' && names.length > 0) throw new UsageError('list takes no name');
  if (action !== 'list' && names.length !== 1) throw new UsageError(`${action} takes one token name`);
  if (values.role !== undefined && action !== 'create') throw new UsageError('--role is for create');
  if (values.json === true && action !== 'list') throw new UsageError('--json is for list');
  const name = names[0] ?? '';
  let role: TokenRole | undefined;
  if (action === 'create') {
    if (values.role === undefined) throw new UsageError(`create needs --role ${TOKEN_ROLES.join('|')}`);
    if (!(TOKEN_ROLES as readonly string[]).includes(values.role)) throw new UsageError(`--role must be one of ${TOKEN_ROLES.join(', ')}, not ${JSON.stringify(values.role)}`);
    role = values.role as TokenRole;
    const problem = tokenNameProblem(name);
    if (problem !== undefined) throw new UsageError(problem);
  }
  const file = await storeFile({ store: values.store, policy: values.policy, io });
  // Listing or revoking in a store that does not exist changes nothing: no empty database is made for it.
  if (action !== 'create' && !isPostgresLocation(file) && !existsSync(file)) {
    if (action === 'list') {
      io.stdout.write(`no tokens: there is no store at ${sanitizeTerminalText(file)}\n`);
      return EXIT.ok;
    }
    io.stderr.write(`toolgate token: no live token named ${sanitizeTerminalText(JSON.stringify(name))}: there is no store at ${sanitizeTerminalText(file)}\n`);
    return EXIT.blockedOrDenied;
  }
  let store: ToolgateStore;
  try {
    store = await openStore({ location: file });
  } catch (error) {
    if (!(error instanceof StoreError)) throw error;
    io.stderr.write(`toolgate token: cannot open the store ${sanitizeTerminalText(describeStoreLocation(file))}: ${sanitizeTerminalText(error.message)}\n`);
    return EXIT.blockedOrDenied;
  }
  try {
    if (action === 'create') return await create({ store, name, role: role!, file, io });
    if (action === 'list') return await list({ store, json: values.json === true, file, io });
    return await revoke({ store, name, file, io });
  } finally {
    await store.close();
  }
}

async function create(options: { store: ToolgateStore; name: string; role: TokenRole; file: string; io: CliIo }): Promise<number> {
  const { io } = options;
  let token: string;
  try {
    token = await createApiToken({ store: options.store, name: options.name, role: options.role });
  } catch (error) {
    if (!(error instanceof TokenNameError)) throw error;
    io.stderr.write(`toolgate token: ${sanitizeTerminalText(error.message)}\n`);
    return error.code === 'TOKEN_NAME_TAKEN' ? EXIT.blockedOrDenied : EXIT.usage;
  }
  io.stdout.write(`${token}\n`);
  io.stderr.write(`toolgate: token ${JSON.stringify(options.name)} (${options.role}) created in ${sanitizeTerminalText(options.file)}; it is shown only this once\n`);
  return EXIT.ok;
}

async function list(options: { store: ToolgateStore; json: boolean; file: string; io: CliIo }): Promise<number> {
  const { io } = options;
  const tokens = await options.store.listTokens();
  if (options.json) {
    for (const token of tokens) io.stdout.write(`${terminalSafeJson({ name: token.name, role: token.role, created_at: token.createdAt, revoked_at: token.revokedAt })}\n`);
    return EXIT.ok;
  }
  if (tokens.length === 0) {
    io.stdout.write(`no tokens in ${sanitizeTerminalText(options.file)}\n`);
    return EXIT.ok;
  }
  const rows = [['NAME', 'ROLE', 'CREATED', 'REVOKED'], ...tokens.map((token) => [token.name, token.role, token.createdAt, token.revokedAt ?? '-'].map((cell) => sanitizeTerminalText(cell)))];
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  for (const row of rows) io.stdout.write(`${row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!))).join('  ')}\n`);
  return EXIT.ok;
}

async function revoke(options: { store: ToolgateStore; name: string; file: string; io: CliIo }): Promise<number> {
  const { io, name } = options;
  if (!(await options.store.revokeToken(name))) {
    io.stderr.write(`toolgate token: no live token named ${sanitizeTerminalText(JSON.stringify(name))} in ${sanitizeTerminalText(options.file)} (see \`toolgate token list\`): nothing revoked\n`);
    return EXIT.blockedOrDenied;
  }
  io.stdout.write(`revoked ${sanitizeTerminalText(name)} in ${sanitizeTerminalText(options.file)}: it stops working at once, also on a running server that uses this store\n`);
  return EXIT.ok;
}

/**
 * The store `toolgate serve` would use: `--store`, else `.toolgate/toolgate.db`
 * beside the policy it would load (`--policy`, the one in the working
 * directory, else the built-in default policy's, in the working directory).
 */
async function storeFile(options: { store: string | undefined; policy: string | undefined; io: CliIo }): Promise<string> {
  const value = options.store ?? options.io.env.TOOLGATE_STORE_URL;
  if (value !== undefined) {
    const resolved = resolveStoreLocation(value, options.io.cwd, path.resolve);
    if ('problem' in resolved) throw new UsageError(resolved.problem);
    return resolved.location;
  }
  const { loaded } = await policyForRun({ policy: options.policy, cwd: options.io.cwd });
  return path.join(stateDirectory(loaded.directory), DEFAULT_STORE_NAME);
}
