/**
 * The decider: one warm process that answers the installed hook's calls
 * over a Unix socket (`hook-decider-client.ts` says why). Each call runs
 * `toolgate hook` exactly as a hook process would — the same command, its
 * arguments, working directory, environment and stdin those of the hook
 * process that sent it — so a call is judged the same either way; only the
 * loading and warming up are paid once. Nothing of a call outlives it but
 * what a hook process leaves too (files in toolgate's homes).
 *
 * It goes away by itself: idle for ten minutes; its socket removed or
 * replaced (the state home deleted, another decider in its place); the
 * toolgate it runs rewritten or removed (an upgrade); after many calls or a
 * large heap (whatever a call left behind cannot grow without bound).
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, mkdirSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { Readable } from 'node:stream';
import type { CliIo } from './cli-io.ts';
import { runHookCommand } from './commands/hook-command.ts';
import { DECIDER_PROTOCOL, deciderFile, privateDirectory } from './hook-decider-client.ts';
import { runCliCommand } from './run-cli-command.ts';

const IDLE_MS = 10 * 60 * 1000;
const CHECK_EVERY_MS = 2000;
const MAX_CALLS = 10_000;
const MAX_HEAP_BYTES = 512 * 1024 * 1024;
/** The header (arguments, directory, environment) of a call; its stdin follows, read by the hook under its own limit. */
const MAX_HEADER_BYTES = 4 * 1024 * 1024;
/** A hook process sends its header as it connects: a connection silent this long is dropped (it would keep the decider alive). */
const HEADER_WITHIN_MS = 10_000;

interface Header {
  token: string;
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  argv0: string;
}

/**
 * Listens on `socket` until one of the reasons above ends it, then exits.
 * Another decider already listening there: exits at once.
 *
 * @example
 * await serveHookDecider({ socket: '/home/me/.local/state/toolgate/deciders/1f3a….sock', bundle: '/p/node_modules/toolgate/dist/hook/toolgate-hook.mjs' });
 */
export async function serveHookDecider(options: { socket: string; bundle: string }): Promise<void> {
  const { socket: socketPath, bundle } = options;
  // Holds no project's folder open.
  process.chdir('/');
  const directory = socketPath.slice(0, socketPath.lastIndexOf('/'));
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  chmodSync(directory, 0o700);
  if (!privateDirectory(directory)) process.exit(1);
  const bundleIdentity = identityOf(bundle);
  if (bundleIdentity === undefined) process.exit(1);

  // The secret a caller proves it may ask with (hook-decider-client.ts): written once this decider listens, read by hooks.
  const token = randomBytes(32).toString('hex');
  let calls = 0;
  let inFlight = 0;
  let lastActivity = Date.now();
  let stopping = false;
  const server = createServer({ allowHalfOpen: true }, (connection) => {
    calls += 1;
    inFlight += 1;
    lastActivity = Date.now();
    void answer(connection, token).finally(() => {
      inFlight -= 1;
      lastActivity = Date.now();
      if (stopping && inFlight === 0) process.exit(0);
    });
  });
  if (!(await listenAlone(server, socketPath))) process.exit(0);
  const socketIdentity = identityOf(socketPath, { which: true });
  const pidFile = deciderFile(socketPath, 'pid');
  const tokenFile = deciderFile(socketPath, 'token');
  for (const [file, text] of [[pidFile, String(process.pid)], [tokenFile, token]] as const) {
    writeFileSync(`${file}.${process.pid}`, text, { mode: 0o600 });
    renameSync(`${file}.${process.pid}`, file);
  }
  const tokenIdentity = identityOf(tokenFile);

  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    // Its own files only: another decider may have taken the name. (Asked before closing: closing removes the socket.)
    const own = identityOf(socketPath, { which: true }) === socketIdentity;
    server.close();
    if (own) {
      for (const file of [socketPath, pidFile, tokenFile]) {
        try {
          unlinkSync(file);
        } catch {
          // Gone already.
        }
      }
    }
    if (inFlight === 0) process.exit(0);
  };
  setInterval(() => {
    const idle = inFlight === 0 && Date.now() - lastActivity > IDLE_MS;
    const replaced = identityOf(socketPath, { which: true }) !== socketIdentity || identityOf(tokenFile) !== tokenIdentity || identityOf(bundle) !== bundleIdentity;
    if (idle || replaced || calls >= MAX_CALLS || process.memoryUsage().heapUsed > MAX_HEAP_BYTES) stop();
  }, CHECK_EVERY_MS);
  process.once('SIGTERM', stop);
}

/** Listens on the path, unless a live decider answers there; a stale socket file (its decider gone) is replaced. */
async function listenAlone(server: Server, socketPath: string): Promise<boolean> {
  const listen = (): Promise<NodeJS.ErrnoException | undefined> =>
    new Promise((resolve) => {
      server.once('error', resolve);
      server.listen(socketPath, () => {
        server.off('error', resolve);
        resolve(undefined);
      });
    });
  const first = await listen();
  if (first === undefined) return finishListening(socketPath);
  if (first.code !== 'EADDRINUSE') return false;
  const live = await new Promise<boolean>((resolve) => {
    const probe = connect({ path: socketPath });
    probe.once('connect', () => {
      probe.destroy();
      resolve(true);
    });
    probe.once('error', () => resolve(false));
  });
  if (live) return false;
  try {
    unlinkSync(socketPath);
  } catch {
    // Another start removed it first.
  }
  return (await listen()) === undefined && finishListening(socketPath);
}

function finishListening(socketPath: string): boolean {
  chmodSync(socketPath, 0o600);
  return true;
}

/** One call: its header, then `toolgate hook` run on it, the answer written back as one line. Never throws. */
async function answer(connection: Socket, token: string): Promise<void> {
  const arrived = Date.now();
  connection.on('error', () => {
    // The hook process went away (its host killed it): nothing to answer.
  });
  const reply = (frame: object): void => {
    if (!connection.destroyed) connection.write(`${JSON.stringify(frame)}\n`);
  };
  try {
    const chunks = connection[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
    const silent = setTimeout(() => connection.destroy(), HEADER_WITHIN_MS);
    const { header, rest } = await readHeader(chunks).finally(() => clearTimeout(silent));
    // Not from a hook that could read the token: nothing is done with it (the hook decides in-process on "refused").
    if (!sameSecret(header.token, token)) {
      reply({ refused: 'token' });
      return;
    }
    const stdout: string[] = [];
    const stderr: string[] = [];
    const io: CliIo = {
      stdout: { write: (text: string) => stdout.push(String(text)) },
      stderr: { write: (text: string) => stderr.push(String(text)) },
      stdin: Readable.from(
        (async function* () {
          if (rest.length > 0) yield rest;
          for (let next = await chunks.next(); next.done !== true; next = await chunks.next()) yield next.value;
        })(),
      ),
      env: header.env,
      cwd: header.cwd,
      argv0: header.argv0,
    };
    // By when the answer comes: after the hook's own deadline (which answers "blocked"), before the host gives up.
    const onBudget = (budgetMs: number): void => reply({ answer_by: arrived + budgetMs - Math.min(1000, budgetMs / 8) });
    const exitCode = await runCliCommand({ name: 'hook', load: async () => (argv, commandIo) => runHookCommand(argv, commandIo, { onBudget }), argv: header.argv.slice(1), io });
    reply({ stdout: stdout.join(''), stderr: stderr.join(''), exit_code: exitCode === 0 ? 0 : 2 });
  } catch (error) {
    reply({ stdout: '', stderr: `toolgate hook: toolgate's decider could not take the call (${(error as Error).message}): the call is blocked\n`, exit_code: 2 });
  } finally {
    connection.end();
  }
}

async function readHeader(chunks: AsyncIterator<Buffer>): Promise<{ header: Header; rest: Buffer }> {
  const parts: Buffer[] = [];
  let size = 0;
  for (let next = await chunks.next(); next.done !== true; next = await chunks.next()) {
    const chunk = next.value;
    const newline = chunk.indexOf(0x0a);
    if (newline >= 0) {
      parts.push(chunk.subarray(0, newline));
      return { header: headerOf(Buffer.concat(parts).toString('utf8')), rest: chunk.subarray(newline + 1) };
    }
    parts.push(chunk);
    size += chunk.length;
    if (size > MAX_HEADER_BYTES) throw new Error(`a header longer than ${MAX_HEADER_BYTES} bytes`);
  }
  throw new Error('no header');
}

function headerOf(line: string): Header {
  const value = JSON.parse(line) as Record<string, unknown>;
  const strings = (list: unknown): list is string[] => Array.isArray(list) && list.every((item) => typeof item === 'string');
  const environment = value.env;
  if (
    value.v !== DECIDER_PROTOCOL ||
    typeof value.token !== 'string' ||
    typeof value.argv0 !== 'string' ||
    !strings(value.argv) ||
    value.argv[0] !== 'hook' ||
    typeof value.cwd !== 'string' ||
    !value.cwd.startsWith('/') ||
    typeof environment !== 'object' ||
    environment === null ||
    !Object.values(environment).every((item) => typeof item === 'string')
  ) {
    throw new Error('a header that is not a hook call');
  }
  return { token: value.token, argv: value.argv, cwd: value.cwd, env: { ...(environment as Record<string, string>) }, argv0: value.argv0 };
}

function sameSecret(given: string, token: string): boolean {
  const [a, b] = [Buffer.from(given), Buffer.from(token)];
  return a.length === b.length && timingSafeEqual(a, b);
}

/** A file's identity: which file it is, and (unless `which`) what it holds, as far as a stat tells. */
function identityOf(file: string, options: { which?: boolean } = {}): string | undefined {
  try {
    const stats = statSync(file);
    return options.which === true ? `${stats.dev}:${stats.ino}` : `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeMs}`;
  } catch {
    return undefined;
  }
}
