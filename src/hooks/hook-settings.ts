/**
 * The options of a host's hook kept in toolgate's own configuration rather
 * than on the command line the host runs. Codex trusts a hook by a hash of
 * its entry (command, timeout, status message: measured with 0.171), and
 * silently skips one that changed since, so every call then runs unguarded:
 * its hook's command line stays `toolgate hook codex`, whatever the options,
 * and the hook reads them here. The file is in toolgate's config home, one
 * of toolgate's own paths no agent's call may write.
 */
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { toolgateConfigHome } from '../config/user-toolgate-paths.ts';
import { writePrivateJson } from '../filesystem/write-private-json.ts';
import type { HostName } from './host-call.ts';

type Environment = Readonly<Record<string, string | undefined>>;

interface HookSettings {
  v: 1;
  /** Per host, the options its `toolgate hook <host>` runs with, as command-line words. */
  hosts: Record<string, { args: string[] }>;
}

/** A settings file toolgate cannot read: the hook blocks, naming it. */
export class HookSettingsError extends Error {
  override name = 'HookSettingsError';
}

/**
 * Where the hooks' options are kept.
 *
 * @example
 * hookSettingsFile({ HOME: '/home/me' }) // '/home/me/.config/toolgate/hooks.json'
 */
export function hookSettingsFile(env: Environment): string {
  return path.join(toolgateConfigHome(env), 'hooks.json');
}

/**
 * The options kept for `host`'s hook; undefined when there are none (no file,
 * or no entry). Throws `HookSettingsError` for a file that is not toolgate's.
 *
 * @example
 * hookArgs({ host: 'codex', env }) // ['--approver', 'server', '--server', 'http://127.0.0.1:8787']
 */
export function hookArgs(options: { host: HostName; env: Environment }): string[] | undefined {
  return read(options.env)?.hosts[options.host]?.args;
}

/**
 * Keeps `args` as `host`'s hook options (undefined: removes them), and
 * returns what was there before, so a caller can put it back. Written to a
 * file beside it and renamed over it.
 */
export function setHookArgs(options: { host: HostName; env: Environment; args: readonly string[] | undefined }): string[] | undefined {
  const file = hookSettingsFile(options.env);
  const settings: HookSettings = read(options.env) ?? { v: 1, hosts: {} };
  const before = settings.hosts[options.host]?.args;
  if (options.args === undefined) delete settings.hosts[options.host];
  else settings.hosts[options.host] = { args: [...options.args] };
  if (Object.keys(settings.hosts).length === 0) {
    rmSync(file, { force: true });
    return before;
  }
  writePrivateJson(file, settings);
  return before;
}

function read(env: Environment): HookSettings | undefined {
  const file = hookSettingsFile(env);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new HookSettingsError(`cannot read the hooks' options in ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new HookSettingsError(`${file} is not JSON (${(error as Error).message}): it holds the hooks' options (toolgate install writes it)`);
  }
  // Checked by hand, not with zod: a hook that forwards to the server loads this, and nothing it need not.
  const problem = shapeProblem(value);
  if (problem !== undefined) throw new HookSettingsError(`${file} is not toolgate's hooks' options file: ${problem}`);
  return value as HookSettings;
}

function shapeProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not a JSON object';
  const { v, hosts, ...rest } = value as Record<string, unknown>;
  if (v !== 1) return `"v" is ${JSON.stringify(v)}, not 1`;
  if (Object.keys(rest).length > 0) return `unknown key ${JSON.stringify(Object.keys(rest)[0])}`;
  if (typeof hosts !== 'object' || hosts === null || Array.isArray(hosts)) return '"hosts" is not an object';
  for (const [host, entry] of Object.entries(hosts)) {
    const args = (entry as { args?: unknown } | null)?.args;
    if (typeof entry !== 'object' || entry === null || Object.keys(entry).some((key) => key !== 'args') || !Array.isArray(args) || !args.every((word) => typeof word === 'string')) {
      return `"hosts.${host}" is not { "args": [words] }`;
    }
  }
  return undefined;
}
