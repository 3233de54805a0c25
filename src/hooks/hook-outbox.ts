/**
 * The decisions a hook made on its own while it has a server to ask
 * (`--approver server`): allowed and blocked calls are decided where the
 * hook runs, so that a server that is down blocks only what needs a person,
 * and each decision waits here until the next request to the server carries
 * it there, so that the server's audit log holds every decision. One JSON
 * line per audit entry, in toolgate's state home (no agent may write it).
 */
import { appendFileSync, readFileSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { toolgateStateHome } from '../config/user-toolgate-paths.ts';
import type { AuditEntry } from '../core/audit-entry.ts';
import { claimName } from '../filesystem/claim-name.ts';
import { makeDirectoriesSync } from '../filesystem/make-directories.ts';

type Environment = Readonly<Record<string, string | undefined>>;

/** The most entries one request carries; the rest wait for the next. */
export const MAX_REPORTED_ENTRIES = 500;
/** An entry's arguments longer than this are cut: the local audit log has them whole. */
const MAX_ARGS_CHARACTERS = 4096;

function outboxFile(env: Environment): string {
  return path.join(toolgateStateHome(env), 'hook-outbox.jsonl');
}

/** Keeps a decision for the server. Never throws: the local audit log has it either way. */
export function keepForServer(options: { env: Environment; entry: AuditEntry }): void {
  const { entry } = options;
  const args = JSON.stringify(entry.args) ?? 'null';
  const kept = args.length > MAX_ARGS_CHARACTERS ? { ...entry, args: { cut: `${args.slice(0, MAX_ARGS_CHARACTERS)}…` } } : entry;
  try {
    const file = outboxFile(options.env);
    makeDirectoriesSync(path.dirname(file), 0o700);
    // One write of one line, appended: lines of hooks running at once do not interleave.
    appendFileSync(file, `${JSON.stringify(kept)}\n`, { mode: 0o600 });
  } catch {
    // The decision is in the local audit log; the server's misses it.
  }
}

/**
 * The decisions waiting for the server, taken out of the outbox: `sent()`
 * once the server has them, `unsent()` to put them back.
 *
 * @example
 * const waiting = takeForServer({ env }); body.toolgate_local_decisions = waiting.entries; … waiting.sent();
 */
export function takeForServer(options: { env: Environment }): { entries: unknown[]; sent(): void; unsent(): void } {
  const file = outboxFile(options.env);
  const taking = claimName(file, 'sending');
  try {
    renameSync(file, taking);
  } catch {
    return { entries: [], sent: () => {}, unsent: () => {} };
  }
  const lines = readFileSync(taking, 'utf8').split('\n').filter((line) => line.trim() !== '');
  const entries: unknown[] = [];
  for (const line of lines.slice(0, MAX_REPORTED_ENTRIES)) {
    try {
      entries.push(JSON.parse(line));
    } catch {
      // A line cut short (a full disk): dropped.
    }
  }
  const rest = lines.slice(MAX_REPORTED_ENTRIES);
  const putBack = (kept: readonly string[]) => {
    try {
      if (kept.length > 0) appendFileSync(file, `${kept.join('\n')}\n`, { mode: 0o600 });
      rmSync(taking, { force: true });
    } catch {
      // Left in the .sending file: not lost, only not sent.
    }
  };
  return { entries, sent: () => putBack(rest), unsent: () => putBack(lines) };
}
