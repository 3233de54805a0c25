/**
 * The hook's fast path (issue 53: "a hook as fast as starting Node"). A host
 * starts `toolgate hook` for every tool call, and a fresh Node process that
 * loads, compiles and warms up the whole judge spends some 150 ms on what a
 * warm one decides in 4. So the installed hook keeps one warm process, the
 * decider (`hook-decider.ts`), on a Unix socket in toolgate's state home, and
 * each hook process is a thin client: it sends its arguments, working
 * directory, environment and stdin, and prints what the decider answers —
 * the very answer `toolgate hook` would print in-process (the decider runs
 * the same command, with this process's environment, not its own).
 *
 * Where no decider answers (none started yet, its socket gone, a folder that
 * is not this user's alone, a listener that cannot prove it holds the
 * decider's token: hook-decider-proof.ts), the hook decides in-process as
 * before and starts one for the next call; nothing of the call was sent. Once
 * a decider has the call, every failure of it blocks (exit 2): it ends
 * without answering, answers what is not an answer or not bound to this
 * call, or misses the deadline it named (it is then killed), and a call is
 * never decided twice. Nothing here loads more than Node's own `net` and
 * `fs`: this module is bundled on its own (`dist/hook/hook-client.cjs`).
 */
import type * as ChildProcess from 'node:child_process';
import type * as Fs from 'node:fs';
import type * as Net from 'node:net';
import type { Socket } from 'node:net';
import path from 'node:path';
import { toolgateStateHome } from '../config/user-toolgate-paths.ts';
import { freshNonce, prepareProofs, proofOf, sameProof } from './hook-decider-proof.ts';

// Node's own modules as CommonJS gives them (Node 22.3 and later): an ES import of node:fs builds a facade of all its
// exports, which loads its streams too, and node:child_process is needed only to start a decider. Each was milliseconds
// of a call that should cost little more than starting Node. Where Node has no getBuiltinModule, no decider is used.
const fs = (): typeof Fs => process.getBuiltinModule('node:fs');
const net = (): typeof Net => process.getBuiltinModule('node:net');
const childProcess = (): typeof ChildProcess => process.getBuiltinModule('node:child_process');

type Environment = Readonly<Record<string, string | undefined>>;

/** Bumped when the frames change: a client never talks to a decider of another shape (it is part of the socket's name). */
export const DECIDER_PROTOCOL = 2;
/**
 * A decider answers the hook's greeting, and then the call or by when it
 * will answer it, this soon, or it is taken for wedged: at most this, and at
 * most half the host's budget where the command line names one
 * (`--timeout`), so a short budget is not spent waiting on a decider that
 * will never answer.
 */
export const DECIDER_ACCEPT_MS = 2_000;
/** A Unix socket's path is at most 107 bytes on Linux and 103 on macOS (the rest of 108 and 104 is its terminating zero). */
const MAX_SOCKET_PATH = process.platform === 'darwin' ? 103 : 107;
/** The latest a decider may say it answers by: a hook's longest budget (a day) and a little. */
const MAX_ANSWER_MS = 86_400_000 + 60_000;
/** Set in the environment of the hook run by `toolgate install` and `doctor`: a probe starts no decider (it leaves no process behind). */
export const PROBE_ENVIRONMENT = 'TOOLGATE_HOOK_PROBE';

/** Where this hook's decider listens, and what it is: the same Node, the same toolgate (by the file it runs), the same homes. */
export interface DeciderAddress {
  socket: string;
  /** The folder the sockets live in: the user's alone. */
  directory: string;
  /** The bundle the decider runs (`dist/hook/toolgate-hook.mjs`). */
  bundle: string;
}

/** The file beside a decider's socket: `pid` (who to stop when it stalls) or `token` (the secret a caller proves it may ask with). */
export function deciderFile(socket: string, kind: 'pid' | 'token'): string {
  return `${socket.slice(0, -'.sock'.length)}.${kind}`;
}

/**
 * The decider's address for a hook run with `env`, or undefined where none
 * can serve (Windows, a state home too deep for a socket's path).
 *
 * @example
 * deciderAddress({ env: process.env, bundle: '/p/node_modules/toolgate/dist/hook/toolgate-hook.mjs' })
 * // { socket: '/home/me/.local/state/toolgate/deciders/1f3a….sock', … }
 */
export function deciderAddress(options: { env: Environment; bundle: string }): DeciderAddress | undefined {
  if (process.platform === 'win32' || typeof process.getBuiltinModule !== 'function') return undefined;
  const { env, bundle } = options;
  // toolgate's homes named relative to the hook's directory: the decider, elsewhere, would find others. Decided in-process.
  if ([env.TOOLGATE_STATE_HOME, env.TOOLGATE_CONFIG_HOME].some((home) => home !== undefined && home !== '' && !path.isAbsolute(home))) return undefined;
  let identity: string;
  try {
    const stats = fs().statSync(bundle);
    // A new install (another file, or the same file rewritten) is another decider; the old one goes when it notices (hook-decider.ts).
    identity = [DECIDER_PROTOCOL, process.execPath, process.version, bundle, stats.ino, stats.size, stats.mtimeMs, env.HOME, env.TOOLGATE_STATE_HOME, env.TOOLGATE_CONFIG_HOME, env.XDG_STATE_HOME, env.XDG_CONFIG_HOME].join('\u0000');
  } catch {
    return undefined;
  }
  const directory = path.join(toolgateStateHome(env), 'deciders');
  const socket = path.join(directory, `${fnv1a64(identity)}.sock`);
  return Buffer.byteLength(socket) > MAX_SOCKET_PATH ? undefined : { socket, directory, bundle };
}

/** The folder holds a decider only if it is a folder, this user's, and nobody else's to write or read. */
export function privateDirectory(directory: string): boolean {
  try {
    const stats = fs().lstatSync(directory);
    return stats.isDirectory() && stats.uid === process.getuid?.() && (stats.mode & 0o077) === 0;
  } catch {
    return false;
  }
}

/** What the decider did with the call: answered it (print this, exit with it), or was not there. */
export type DeciderOutcome = { answered: true; stdout: string; stderr: string; exitCode: number } | { answered: false };

/**
 * Sends one hook call to its decider and returns its answer. First each
 * side proves it holds the decider's token (hook-decider-proof.ts); only
 * then does the call go out, with stdin as it comes. `answered: false`
 * only when the call was not sent (nobody listens, or what listens cannot
 * prove it is the decider): then, and only then, the caller decides
 * in-process. Once the call is sent, every failure blocks.
 *
 * @example
 * const outcome = await askDecider({ address, argv: ['hook', 'claude-code'], cwd: process.cwd(), env: process.env, argv0: process.argv0, stdin: process.stdin });
 */
export async function askDecider(options: {
  address: DeciderAddress;
  argv: readonly string[];
  cwd: string;
  env: Environment;
  /** The program the hook was started as (`process.argv0`), absolute where it is a path: it is one of toolgate's own files. */
  argv0: string;
  stdin: NodeJS.ReadableStream;
}): Promise<DeciderOutcome> {
  const { address } = options;
  if (!privateDirectory(address.directory)) return { answered: false };
  // The decider's secret: a judged call cannot read toolgate's state home, so a command that reaches the socket some other way
  // (curl --unix-socket) can neither run the hook with arguments of its choosing nor answer in the decider's place.
  let token: string;
  try {
    token = fs().readFileSync(deciderFile(address.socket, 'token'), 'utf8');
  } catch {
    return { answered: false };
  }
  let socket: Socket;
  try {
    socket = await new Promise<Socket>((resolve, reject) => {
      const opened = net().connect({ path: address.socket, allowHalfOpen: true });
      opened.once('connect', () => {
        opened.off('error', reject);
        resolve(opened);
      });
      opened.once('error', reject);
    });
  } catch {
    return { answered: false };
  }
  const blocked = (reason: string): DeciderOutcome => ({ answered: true, stdout: '', stderr: `toolgate hook: ${reason}: the call is blocked\n`, exitCode: 2 });
  const clientNonce = freshNonce();
  return new Promise<DeciderOutcome>((resolve) => {
    let settled = false;
    let sent = false;
    let deciderNonce = '';
    let timer: NodeJS.Timeout | undefined;
    const settle = (outcome: DeciderOutcome): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(outcome);
    };
    // Before the call is sent, nothing is decided there: anything amiss and the hook decides in-process.
    const notSent = (): void => settle({ answered: false });
    const failed = (reason: string): void => (sent ? settle(blocked(reason)) : notSent());
    const wedged = (): void => {
      killDecider(address);
      failed(`toolgate's decider (${address.socket}) did not answer in time and was stopped`);
    };
    timer = setTimeout(wedged, acceptMs(options.argv));
    // What follows the proof, ready before the decider's greeting comes (as is the token's key, below).
    const { argv, cwd, env, argv0 } = options;
    const call = JSON.stringify({ argv, cwd, env, argv0 }).slice(1);
    const send = (): void => {
      sent = true;
      socket.write(`{"proof":${JSON.stringify(proofOf({ token, label: 'client', parts: [deciderNonce, clientNonce] }))},${call}\n`);
      // The host's stdin follows the call as it comes: the decider reads it under the hook's own deadline, as the hook would.
      options.stdin.on('data', (chunk: Buffer | string) => {
        if (!settled) socket.write(chunk);
      });
      options.stdin.once('end', () => {
        if (!settled) socket.end();
      });
      options.stdin.once('error', () => {
        if (!settled) socket.end();
      });
    };
    let buffered = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      buffered += chunk;
      for (let newline = buffered.indexOf('\n'); newline >= 0 && !settled; newline = buffered.indexOf('\n')) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        const frame = parseFrame(line);
        if (!sent) {
          // The decider's proof that it holds the token, over this call's nonces; whatever cannot give it is not asked.
          if (frame === undefined || !('proof' in frame) || !sameProof(frame.proof, proofOf({ token, label: 'decider', parts: [clientNonce, frame.nonce] }))) return notSent();
          deciderNonce = frame.nonce;
          send();
          continue;
        }
        if (frame === undefined || 'proof' in frame) return settle(blocked(`toolgate's decider answered what is not an answer`));
        if ('answer_by' in frame) {
          if (!sameProof(frame.mac, proofOf({ token, label: 'answer_by', parts: [clientNonce, deciderNonce, String(frame.answer_by)] }))) return settle(blocked(`toolgate's decider answered what is not an answer`));
          // It has the call, and says by when it answers: a little after the hook's own deadline, before the host's.
          clearTimeout(timer);
          timer = setTimeout(wedged, Math.max(0, frame.answer_by - Date.now()));
        } else {
          if (!sameProof(frame.mac, proofOf({ token, label: 'answer', parts: [clientNonce, deciderNonce, JSON.stringify([frame.stdout, frame.stderr, frame.exit_code])] }))) return settle(blocked(`toolgate's decider answered what is not an answer`));
          settle({ answered: true, stdout: frame.stdout, stderr: frame.stderr, exitCode: frame.exit_code });
        }
      }
    });
    socket.on('error', () => failed(`toolgate's decider ended without answering`));
    socket.on('close', () => failed(`toolgate's decider ended without answering`));
    socket.write(`${JSON.stringify({ v: DECIDER_PROTOCOL, nonce: clientNonce })}\n`);
    prepareProofs(token);
  });
}

type Frame = { nonce: string; proof: string } | { answer_by: number; mac: string } | { stdout: string; stderr: string; exit_code: number; mac: string };

/** How long a decider has to accept a call: DECIDER_ACCEPT_MS, or half the budget the command line gives the hook if that is less. */
function acceptMs(argv: readonly string[]): number {
  const at = argv.findIndex((word) => word === '--timeout' || word.startsWith('--timeout='));
  const value = at < 0 ? undefined : argv[at]!.includes('=') ? argv[at]!.slice('--timeout='.length) : argv[at + 1];
  const seconds = Number(value);
  return Number.isFinite(seconds) && seconds > 0 ? Math.min(DECIDER_ACCEPT_MS, (seconds * 1000) / 2) : DECIDER_ACCEPT_MS;
}

function parseFrame(line: string): Frame | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const frame = value as Record<string, unknown>;
  const keys = Object.keys(frame).sort().join(',');
  if (keys === 'nonce,proof' && typeof frame.nonce === 'string' && typeof frame.proof === 'string') return { nonce: frame.nonce, proof: frame.proof };
  // A time within the longest budget a hook has (a day, hook-command.ts): a timer cannot count further.
  if (keys === 'answer_by,mac' && typeof frame.answer_by === 'number' && frame.answer_by <= Date.now() + MAX_ANSWER_MS && typeof frame.mac === 'string') return { answer_by: frame.answer_by, mac: frame.mac };
  // A hook exits 0 (its answer on stdout) or 2 (blocked): any other code would let the host run the call.
  if (keys === 'exit_code,mac,stderr,stdout' && typeof frame.stdout === 'string' && typeof frame.stderr === 'string' && (frame.exit_code === 0 || frame.exit_code === 2) && typeof frame.mac === 'string') {
    return { stdout: frame.stdout, stderr: frame.stderr, exit_code: frame.exit_code, mac: frame.mac };
  }
  return undefined;
}

/** A decider that missed its deadline is stopped, so the next call starts a fresh one instead of waiting on it too. */
function killDecider(address: DeciderAddress): void {
  try {
    const pid = Number(fs().readFileSync(deciderFile(address.socket, 'pid'), 'utf8'));
    // Only the process that is this decider (a pid can be reused): its command line names its socket.
    if (Number.isSafeInteger(pid) && pid > 1 && fs().readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\u0000').includes(address.socket)) process.kill(pid, 'SIGKILL');
  } catch {
    // Not there, not ours, or not Linux: removing the socket below is enough for the next call.
  }
  for (const file of [address.socket, deciderFile(address.socket, 'token'), deciderFile(address.socket, 'pid')]) {
    try {
      fs().unlinkSync(file);
    } catch {
      // Gone already.
    }
  }
}

/**
 * Starts a decider for the next call, detached (a host that kills its hook's
 * process group does not take it along), in a minimal environment: each call
 * brings its own.
 *
 * @example
 * startDecider({ address, bin: '/p/node_modules/toolgate/bin/toolgate.js', env: process.env });
 */
export function startDecider(options: { address: DeciderAddress; bin: string; env: Environment }): void {
  const { env } = options;
  // Not NODE_COMPILE_CACHE: a cache whose compiled code a repository chose would run in every call's decision from then on.
  const kept = ['HOME', 'PATH', 'LANG', 'LC_ALL', 'TZ', 'TOOLGATE_STATE_HOME', 'TOOLGATE_CONFIG_HOME', 'XDG_STATE_HOME', 'XDG_CONFIG_HOME'];
  const environment = Object.fromEntries(kept.flatMap((name) => (env[name] === undefined ? [] : [[name, env[name]!]])));
  try {
    childProcess().spawn(process.execPath, [options.bin, '__hook-decider', options.address.socket, options.address.bundle], { detached: true, stdio: 'ignore', cwd: '/', env: environment }).unref();
  } catch {
    // The next call decides in-process too.
  }
}

/**
 * Two FNV-1a hashes of 32 bits (different offsets), as 16 hex digits: a short stable name, without loading node:crypto
 * (which alone costs a hook several milliseconds) or BigInt arithmetic. Nothing secret rests on it: it only names the socket.
 */
function fnv1a64(text: string): string {
  let high = 0x811c9dc5;
  let low = 0x050c5d1f;
  for (const byte of Buffer.from(text, 'utf8')) {
    high = Math.imul(high ^ byte, 0x01000193) >>> 0;
    low = Math.imul(low ^ byte, 0x01000193) >>> 0;
  }
  return high.toString(16).padStart(8, '0') + low.toString(16).padStart(8, '0');
}
