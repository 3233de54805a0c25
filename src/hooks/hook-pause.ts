/**
 * The person's pause of toolgate's hooks: `toolgate pause 30m` and, until
 * then or `toolgate resume`, the hooks judge nothing and the hosts decide as
 * they would without toolgate (their own permission rules and prompts). The
 * hooks stay installed, so Codex's trust of them holds. The record is in
 * toolgate's state home, which no agent's call may write; a pause past its
 * time, or a record that cannot be read, pauses nothing.
 */
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { toolgateStateHome } from '../config/user-toolgate-paths.ts';
import { writePrivateJson } from '../filesystem/write-private-json.ts';

type Environment = Readonly<Record<string, string | undefined>>;

/** The longest pause: one that outlives a day is a hook forgotten off. */
export const MAX_PAUSE_MS = 24 * 3_600_000;

function pauseFile(env: Environment): string {
  return path.join(toolgateStateHome(env), 'paused.json');
}

/**
 * Until when the hooks are paused, if they are now.
 *
 * @example
 * pausedUntil({ env }) // Date 2026-12-06T19:30:00Z, or undefined
 */
export function pausedUntil(options: { env: Environment; now?: Date }): Date | undefined {
  let until: unknown;
  try {
    until = (JSON.parse(readFileSync(pauseFile(options.env), 'utf8')) as { until?: unknown }).until;
  } catch {
    return undefined;
  }
  if (typeof until !== 'string') return undefined;
  const date = new Date(until);
  const now = options.now ?? new Date();
  // Past, unreadable, or further off than a pause may be (a forged record): no pause.
  if (Number.isNaN(date.getTime()) || date <= now || date.getTime() - now.getTime() > MAX_PAUSE_MS) return undefined;
  return date;
}

/** Pauses the hooks for `ms` from now; the time it ends. */
export function pauseHooks(options: { env: Environment; ms: number; now?: Date }): Date {
  const until = new Date((options.now ?? new Date()).getTime() + options.ms);
  writePrivateJson(pauseFile(options.env), { until: until.toISOString() });
  return until;
}

/** Ends a pause; whether there was one. */
export function resumeHooks(options: { env: Environment }): boolean {
  const was = pausedUntil(options) !== undefined;
  rmSync(pauseFile(options.env), { force: true });
  return was;
}
