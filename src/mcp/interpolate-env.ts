/**
 * `${VAR}` in a server's `args`, `env` and `headers`: the value of VAR in
 * toolgate's own environment, so that a token lives in the environment and
 * never in the policy file. `$${` writes a literal `${`. A variable that is
 * not set is an error naming the key and the variable (an empty string in
 * its place would start the server with a missing credential).
 */

/** A variable name as shells write them. */
export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

const REFERENCE = /\$\$\{|\$\{([^}]*)\}?/g;

/**
 * The text with every `${VAR}` replaced, or the problem with it.
 *
 * @example
 * interpolateEnv('Bearer ${TOKEN}', { TOKEN: 'abc' }) // { value: 'Bearer abc', used: ['TOKEN'] }
 * interpolateEnv('${NOPE}', {}) // { problem: '${NOPE} is not set in the environment toolgate runs in', ... }
 */
export function interpolateEnv(text: string, env: Readonly<Record<string, string | undefined>>): { value: string; used: string[] } | { problem: string; expected: string } {
  const used: string[] = [];
  let problem: { problem: string; expected: string } | undefined;
  const value = text.replace(REFERENCE, (match: string, name: string | undefined) => {
    if (match === '$${') return '${';
    if (problem !== undefined) return match;
    if (!match.endsWith('}')) {
      problem = { problem: `"${match}" is not closed`, expected: '${NAME} with a closing brace (write $${ for a literal ${)' };
      return match;
    }
    if (name === undefined || !ENV_NAME.test(name)) {
      problem = { problem: `${match} does not name a variable`, expected: '${NAME}: letters, digits and _, not starting with a digit' };
      return match;
    }
    const found = env[name];
    if (found === undefined) {
      problem = { problem: `\${${name}} is not set in the environment toolgate runs in`, expected: `set ${name} before starting toolgate (or write $\${ for a literal \${)` };
      return match;
    }
    used.push(name);
    return found;
  });
  return problem ?? { value, used };
}
