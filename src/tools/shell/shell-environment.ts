/**
 * The environment every shell command runs with, sandbox or not: a short
 * allow-list of variables that programs need to find themselves and to
 * print text (PATH, HOME, the locale, the terminal, the user), and nothing
 * else. A parent process usually holds secrets in its environment (an
 * `OPENAI_API_KEY` for the agent itself, cloud credentials, tokens); with
 * the environment passed through, `env` or `echo $OPENAI_API_KEY` hands them
 * to the model. bubblewrap clears the environment inside its sandbox; this
 * clears it for every other way a command runs, so the two agree.
 *
 * PATH is passed through only in part: an entry that is empty or relative
 * (both mean "the working directory") or that lies inside a zone would let
 * a file the agent wrote there shadow `cat` or `git`, and an allowed `cat`
 * would run it. bubblewrap sets its own fixed PATH of system directories.
 */
import { realpathSync } from 'node:fs';
import path from 'node:path';
import { SANDBOX_PATH } from '../../sandbox/bwrap-sandbox.ts';

/** Variables passed through when set. Everything else is dropped, secrets included. */
export const SHELL_ENVIRONMENT_NAMES: readonly string[] = [
  'PATH',
  'HOME',
  'SHELL',
  'TMPDIR',
  'USER',
  'LOGNAME',
  'LANG',
  'LANGUAGE',
  'TERM',
  'COLORTERM',
  'NO_COLOR',
  'TZ',
];

/** The locale categories (`LC_ALL`, `LC_CTYPE`...): names only, never code or paths programs load from. */
const LOCALE = /^LC_[A-Z]+$/;

/** A value that makes bash run code when the variable is imported (`() { ...; }`), or that cannot be a value at all. */
const FUNCTION_VALUE = /^\s*\(\s*\)/;

/**
 * The allow-listed variables of `source` (default `process.env`), each
 * with a plain value: a value written like an exported bash function is
 * dropped, because bash would import it as one.
 *
 * @example
 * shellEnvironment({ PATH: '/usr/bin', OPENAI_API_KEY: 'sk-...', LC_ALL: 'C' })
 * // { PATH: '/usr/bin', LC_ALL: 'C' }
 */
export function shellEnvironment(source: NodeJS.ProcessEnv = process.env, options: { zoneRoots?: readonly string[] } = {}): NodeJS.ProcessEnv {
  const environment: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(source)) {
    if (value === undefined || FUNCTION_VALUE.test(value) || value.includes('\0')) continue;
    if (SHELL_ENVIRONMENT_NAMES.includes(name) || LOCALE.test(name)) environment[name] = value;
  }
  environment.PATH = trustedPath({ value: environment.PATH, zoneRoots: options.zoneRoots ?? [] });
  return environment;
}

/**
 * The entries of a PATH that name a fixed directory outside every zone;
 * the sandbox's system PATH when none is left (bash's own default ends in
 * `.`, the working directory).
 *
 * @example
 * trustedPath({ value: ':./bin:/ws/nm:/usr/bin', zoneRoots: ['/ws'] }) // '/usr/bin'
 */
export function trustedPath(options: { value: string | undefined; zoneRoots: readonly string[] }): string {
  const roots = options.zoneRoots.flatMap((root) => [root, realOrSelf(root)]);
  const kept = (options.value ?? '').split(':').filter((entry) => {
    if (entry === '' || !path.isAbsolute(entry)) return false;
    return ![path.normalize(entry), realOrSelf(entry)].some((candidate) => roots.some((root) => candidate === root || candidate.startsWith(root.endsWith(path.sep) ? root : `${root}${path.sep}`)));
  });
  return kept.length === 0 ? SANDBOX_PATH : kept.join(':');
}

function realOrSelf(directory: string): string {
  try {
    return realpathSync.native(directory);
  } catch {
    return path.normalize(directory);
  }
}
