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
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { Readable } from 'node:stream';
import type { CliIo } from './cli-io.ts';
import { runHookCommand } from './commands/hook-command.ts';
import { DECIDER_PROTOCOL, deciderFile, privateDirectory } from './hook-decider-client.ts';
import { proofOf, sameProof } from './hook-decider-proof.ts';
import { runCliCommand } from './run-cli-command.ts';

const IDLE_MS = 10 * 60 * 1000;
const CHECK_EVERY_MS = 2000;
const MAX_CALLS = 10_000;
const MAX_HEAP_BYTES = 512 * 1024 * 1024;
/** The header (arguments, directory, environment) of a call; its stdin follows, read by the hook under its own limit. */
const MAX_HEADER_BYTES = 4 * 1024 * 1024;
/** A call not answered this soon is told by when it will be (well within the hook's 500 ms at least to hear from it, hook-decider-client.ts). */
const PROMISE_AFTER_MS = 100;
/** A hook process sends its header as it connects: a connection silent this long is dropped (it would keep the decider alive). */
const HEADER_WITHIN_MS = 10_000;

interface Header {
  proof: string;
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
    // Its own files only, each by itself: another decider may have taken a name, and a token left behind would be one a
    // listener in its place could be asked with. (Asked before closing: closing removes the socket.)
    const own = [
      [socketPath, identityOf(socketPath, { which: true }) === socketIdentity],
      [tokenFile, identityOf(tokenFile) === tokenIdentity],
      [pidFile, readText(pidFile) === String(process.pid)],
    ] as const;
    server.close();
    for (const [file, mine] of own) {
      if (!mine) continue;
      try {
        unlinkSync(file);
      } catch {
        // Gone already.
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

/**
 * One call: the client's nonce, this decider's proof and nonce, the
 * client's proof with the call, then `toolgate hook` run on it and the
 * answer written back, each frame bound to both nonces
 * (hook-decider-proof.ts). Never throws.
 */
async function answer(connection: Socket, token: string): Promise<void> {
  const arrived = Date.now();
  connection.on('error', () => {
    // The hook process went away (its host killed it): nothing to answer.
  });
  const reply = (frame: object): void => {
    if (!connection.destroyed) connection.write(`${JSON.stringify(frame)}\n`);
  };
  const lines = lineReader(connection[Symbol.asyncIterator]() as AsyncIterator<Buffer>);
  const silent = setTimeout(() => connection.destroy(), HEADER_WITHIN_MS);
  let nonces: [string, string] | undefined;
  const answerWith = (result: { stdout: string; stderr: string; exit_code: 0 | 2 }): void =>
    reply({ ...result, mac: proofOf({ token, label: 'answer', parts: [...nonces!, JSON.stringify([result.stdout, result.stderr, result.exit_code])] }) });
  try {
    const clientNonce = helloOf(await lines.next());
    const deciderNonce = randomBytes(16).toString('hex');
    nonces = [clientNonce, deciderNonce];
    reply({ nonce: deciderNonce, proof: proofOf({ token, label: 'decider', parts: [clientNonce, deciderNonce] }) });
    const header = headerOf(await lines.next());
    clearTimeout(silent);
    // Not from a hook that could read the token: nothing is done with it.
    if (!sameProof(header.proof, proofOf({ token, label: 'client', parts: [deciderNonce, clientNonce] }))) {
      nonces = undefined;
      return;
    }
    const stdout: string[] = [];
    const stderr: string[] = [];
    const io: CliIo = {
      stdout: { write: (text: string) => stdout.push(String(text)) },
      stderr: { write: (text: string) => stderr.push(String(text)) },
      stdin: Readable.from(lines.rest()),
      env: header.env,
      cwd: header.cwd,
      argv0: header.argv0,
    };
    // By when the answer comes: after the hook's own deadline (which answers "blocked"), before the host gives up. Told only
    // to a hook that has waited a while: most calls are answered sooner, and each frame is a wakeup and a MAC for the hook.
    let promise: NodeJS.Timeout | undefined;
    const onBudget = (budgetMs: number): void => {
      const by = arrived + budgetMs - Math.min(1000, budgetMs / 8);
      promise = setTimeout(() => reply({ answer_by: by, mac: proofOf({ token, label: 'answer_by', parts: [clientNonce, deciderNonce, String(by)] }) }), PROMISE_AFTER_MS);
    };
    const exitCode = await runCliCommand({ name: 'hook', load: async () => (argv, commandIo) => runHookCommand(argv, commandIo, { onBudget }), argv: header.argv.slice(1), io }).finally(() => clearTimeout(promise));
    answerWith({ stdout: stdout.join(''), stderr: stderr.join(''), exit_code: exitCode === 0 ? 0 : 2 });
  } catch (error) {
    // Once the call is in, a failure is answered as a block; before it, there is nobody proven to answer.
    if (nonces !== undefined) answerWith({ stdout: '', stderr: `toolgate hook: toolgate's decider could not take the call (${(error as Error).message}): the call is blocked\n`, exit_code: 2 });
  } finally {
    clearTimeout(silent);
    connection.end();
  }
}

/** Lines from a connection's chunks, then (`rest`) the bytes after the last line read, as they come. */
function lineReader(chunks: AsyncIterator<Buffer>): { next(): Promise<string>; rest(): AsyncGenerator<Buffer> } {
  let carried = Buffer.alloc(0);
  return {
    async next() {
      for (;;) {
        const newline = carried.indexOf(0x0a);
        if (newline >= 0) {
          const line = carried.subarray(0, newline).toString('utf8');
          carried = carried.subarray(newline + 1);
          return line;
        }
        if (carried.length > MAX_HEADER_BYTES) throw new Error(`a line longer than ${MAX_HEADER_BYTES} bytes`);
        const next = await chunks.next();
        if (next.done === true) throw new Error('the connection ended');
        carried = Buffer.concat([carried, next.value]);
      }
    },
    async *rest() {
      if (carried.length > 0) yield carried;
      for (let next = await chunks.next(); next.done !== true; next = await chunks.next()) yield next.value;
    },
  };
}

function helloOf(line: string): string {
  const value = JSON.parse(line) as Record<string, unknown>;
  if (value.v !== DECIDER_PROTOCOL || typeof value.nonce !== 'string' || value.nonce.length === 0 || value.nonce.length > 200) throw new Error('a greeting that is not a hook\'s');
  return value.nonce;
}

function headerOf(line: string): Header {
  const value = JSON.parse(line) as Record<string, unknown>;
  const strings = (list: unknown): list is string[] => Array.isArray(list) && list.every((item) => typeof item === 'string');
  const environment = value.env;
  if (
    typeof value.proof !== 'string' ||
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
  return { proof: value.proof, argv: value.argv, cwd: value.cwd, env: { ...(environment as Record<string, string>) }, argv0: value.argv0 };
}


function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
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
