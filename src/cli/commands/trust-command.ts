import { existsSync, lstatSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { findPolicyUpward, userPolicyFile } from '../../config/find-host-policy.ts';
import { loadPolicyFile } from '../../config/load-policy-file.ts';
import { forgetPolicy, policyTrust, trustedPolicies, trustFile, trustPolicy } from '../../config/policy-trust.ts';
import { toolgateConfigHome } from '../../config/user-toolgate-paths.ts';
import { sanitizeTerminalText } from '../../core/sanitize-terminal-text.ts';
import { realPathOf } from '../../filesystem/real-path-of.ts';
import { EXIT, type CliIo } from '../cli-io.ts';
import { UsageError } from '../cli-support.ts';
import { parseCommandLine } from '../parse-command-line.ts';

export const TRUST_HELP = `Usage:
  toolgate trust [FILE]          trust this project's policy as it is now
  toolgate trust --forget FILE   take that back
  toolgate trust --list          the policies you trust, and whether each
                                 still holds what you trusted

An agent host's hook (toolgate install) judges a call with the policy of the
project it is made in: toolgate.yaml in the call's directory or the nearest
folder above it. A repository can bring its own, or an agent can write one
in a folder below, so a project's policy decides only once you trusted that
exact text; until then, and again after any change to it (an edit, a git
pull), the hook blocks every call there, saying so. Read it, then trust it.
\`toolgate init\` trusts the policy it writes.

A project without a policy is judged by the user-level policy,
${'$'}XDG_CONFIG_HOME/toolgate/toolgate.yaml (~/.config/toolgate), which needs no
trust: no repository writes there (toolgate init --user writes it).

FILE defaults to the policy found from this directory upwards. Trust is kept
in toolgate's state home (${'$'}XDG_STATE_HOME/toolgate/trusted-policies.json),
which no agent's tool call may write; run this yourself, in a terminal.

Exit codes:
  0  trusted (or forgotten, or listed)   2  usage error
  1  no such policy, it does not load, or trust could not be recorded
`;

/**
 * `toolgate trust`: the person's say that a project's policy may decide.
 *
 * @example
 * process.exitCode = await runTrustCommand([], processIo());
 */
export async function runTrustCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandLine({
    argv,
    allowPositionals: true,
    options: { forget: { type: 'string' }, list: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help === true) {
    io.stdout.write(TRUST_HELP);
    return EXIT.ok;
  }
  const safe = (text: string) => sanitizeTerminalText(text, { collapse: true });
  if (positionals.length > 1) throw new UsageError(`trust takes one policy file, not ${positionals.length}`);
  if (values.list === true) {
    if (positionals.length > 0 || values.forget !== undefined) throw new UsageError('--list takes no file');
    const policies = Object.entries(trustedPolicies(io.env));
    if (policies.length === 0) io.stdout.write(`no project policy is trusted (${safe(trustFile(io.env))})\n`);
    for (const [file] of policies) {
      let state: string;
      try {
        state = policyTrust({ file, text: readFileSync(file, 'utf8'), env: io.env }) === 'trusted' ? 'trusted' : 'CHANGED since trusted: its project is blocked until you trust it again';
      } catch {
        state = 'gone';
      }
      io.stdout.write(`${safe(file)}: ${state}\n`);
    }
    const user = userPolicyFile(io.env);
    io.stdout.write(`user-level policy (projects without their own): ${user === undefined ? `none (${safe(toolgateConfigHome(io.env))}/toolgate.yaml)` : safe(user)}\n`);
    return EXIT.ok;
  }
  if (values.forget !== undefined) {
    if (positionals.length > 0) throw new UsageError('--forget takes the one file');
    const file = path.resolve(io.cwd, values.forget);
    if (!forgetPolicy({ file, env: io.env })) {
      io.stderr.write(`toolgate trust: ${safe(file)} was not trusted: nothing to forget\n`);
      return 1;
    }
    io.stdout.write(`forgot ${safe(file)}: the hooks block calls in its project until you trust it again\n`);
    return EXIT.ok;
  }
  const named = positionals[0];
  const file = named === undefined ? findPolicyUpward(io.cwd) : path.resolve(io.cwd, named);
  if (file === undefined) {
    const user = userPolicyFile(io.env);
    io.stderr.write(`toolgate trust: no toolgate.yaml in ${safe(io.cwd)} or a folder above it; calls here are judged by ${user === undefined ? 'no policy at all (they are blocked): write one with `toolgate init` or `toolgate init --user`' : `the user-level policy ${safe(user)}, which needs no trust`}\n`);
    return 1;
  }
  if (existsSync(file) && lstatSync(file).isSymbolicLink()) {
    io.stderr.write(`toolgate trust: ${safe(file)} is a symbolic link; the hooks do not load a project's policy through one, so it is not trusted: trust the file it points to where it is\n`);
    return 1;
  }
  const user = userPolicyFile(io.env);
  if (user !== undefined && realPathOf(user) === realPathOf(file)) {
    io.stdout.write(`${safe(file)} is the user-level policy: it needs no trust\n`);
    return EXIT.ok;
  }
  // Trusted as it loads now: the text checked is the text recorded.
  let text: string | undefined;
  try {
    await loadPolicyFile(file, { inspect: (read) => (text = read) });
  } catch (error) {
    io.stderr.write(`toolgate trust: ${safe(file)} does not load, so it is not trusted: ${sanitizeTerminalText((error as Error).message, { keepNewlines: true })}\n`);
    return 1;
  }
  try {
    const trusted = trustPolicy({ file, env: io.env, text: text! });
    io.stdout.write(`trusted ${safe(trusted.file)} (sha256 ${trusted.sha256.slice(0, 12)}…): agent hosts' hooks judge calls in ${safe(path.dirname(trusted.file))} and below with it, until it changes\n`);
    return EXIT.ok;
  } catch (error) {
    io.stderr.write(`toolgate trust: could not record it in ${safe(trustFile(io.env))}: ${safe((error as Error).message)}\n`);
    return 1;
  }
}
