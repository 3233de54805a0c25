/**
 * toolgate's own folders in the user's home, outside every project: the
 * user-level policy (for the projects that have none) in the config home,
 * and what toolgate remembers across projects (which project policies the
 * person trusted, which policy started a run where) in the state home.
 * No agent may write either (`ownPaths`).
 *
 * Part of the hook's client (hook-decider-client.ts): node:os is loaded only
 * where HOME is not set, not by every call.
 */
import path from 'node:path';

type Environment = Readonly<Record<string, string | undefined>>;

/**
 * `TOOLGATE_CONFIG_HOME`, else `$XDG_CONFIG_HOME/toolgate`, else `~/.config/toolgate`.
 *
 * @example
 * toolgateConfigHome({ HOME: '/home/me' }) // '/home/me/.config/toolgate'
 */
export function toolgateConfigHome(env: Environment): string {
  return fromEnvironment(env, 'TOOLGATE_CONFIG_HOME', 'XDG_CONFIG_HOME', ['.config']);
}

/**
 * `TOOLGATE_STATE_HOME`, else `$XDG_STATE_HOME/toolgate`, else `~/.local/state/toolgate`.
 *
 * @example
 * toolgateStateHome({ TOOLGATE_STATE_HOME: '/tmp/s' }) // '/tmp/s'
 */
export function toolgateStateHome(env: Environment): string {
  return fromEnvironment(env, 'TOOLGATE_STATE_HOME', 'XDG_STATE_HOME', ['.local', 'state']);
}

function fromEnvironment(env: Environment, own: string, xdg: string, underHome: readonly string[]): string {
  const explicit = env[own];
  if (explicit !== undefined && explicit !== '') return path.resolve(explicit);
  const base = env[xdg];
  // XDG: a relative value is invalid and is ignored.
  if (base !== undefined && path.isAbsolute(base)) return path.join(base, 'toolgate');
  const home = env.HOME !== undefined && env.HOME !== '' ? env.HOME : process.getBuiltinModule('node:os').homedir();
  return path.join(home, ...underHome, 'toolgate');
}
