/**
 * The environment every shell command runs with, sandbox or not: a short
 * allow-list of variables that programs need to find themselves and to
 * print text (PATH, HOME, the locale, the terminal, the user), and nothing
 * else. A parent process usually holds secrets in its environment (an
 * `OPENAI_API_KEY` for the agent itself, cloud credentials, tokens); with
 * the environment passed through, `env` or `echo $OPENAI_API_KEY` hands them
 * to the model. bubblewrap clears the environment inside its sandbox; this
 * clears it for every other way a command runs, so the two agree.
 */

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
export function shellEnvironment(source: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const environment: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(source)) {
    if (value === undefined || FUNCTION_VALUE.test(value) || value.includes('\0')) continue;
    if (SHELL_ENVIRONMENT_NAMES.includes(name) || LOCALE.test(name)) environment[name] = value;
  }
  return environment;
}
