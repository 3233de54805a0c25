/**
 * The policy an agent host's hook judges a call with, when its command line
 * names none: one hook (Codex's are user-scope only, and a user-scope Claude
 * Code hook runs everywhere) serves every project. The project's own policy
 * is found from the call's directory upwards, as git finds its repository,
 * and decides only once the person trusted it (`policy-trust.ts`); a project
 * with none is judged by the user-level policy in toolgate's config home,
 * whose zones are rooted at the project the call is in.
 */
import { existsSync, lstatSync } from 'node:fs';
import path from 'node:path';
import { findPolicyFile, loadPolicyFile, type LoadedPolicy } from './load-policy-file.ts';
import { policyTrust } from './policy-trust.ts';
import { toolgateConfigHome } from './user-toolgate-paths.ts';

type Environment = Readonly<Record<string, string | undefined>>;

/** Where a host's policy was found: the project's (walking up from the call), or the user's. */
export interface FoundHostPolicy {
  file: string;
  origin: 'project' | 'user';
}

/**
 * The nearest policy file in `cwd` or a folder above it (two in one folder
 * is an error, as for `findPolicyFile`).
 *
 * @example
 * findPolicyUpward('/home/me/app/src') // '/home/me/app/toolgate.yaml'
 */
export function findPolicyUpward(cwd: string): string | undefined {
  for (let directory = path.resolve(cwd); ; directory = path.dirname(directory)) {
    const found = findPolicyFile(directory);
    if (found !== undefined) return found;
    if (path.dirname(directory) === directory) return undefined;
  }
}

/**
 * The user-level policy file (`toolgate.yaml` in toolgate's config home), if there is one.
 *
 * @example
 * userPolicyFile({ HOME: '/home/me' }) // '/home/me/.config/toolgate/toolgate.yaml'
 */
export function userPolicyFile(env: Environment): string | undefined {
  const home = toolgateConfigHome(env);
  return existsSync(home) ? findPolicyFile(home) : undefined;
}

/** Where a user-level policy's zones are rooted for a call made in `cwd`: its git repository's top, else `cwd` itself. */
export function projectRootOf(cwd: string): string {
  for (let directory = path.resolve(cwd); ; directory = path.dirname(directory)) {
    if (existsSync(path.join(directory, '.git'))) return directory;
    if (path.dirname(directory) === directory) return path.resolve(cwd);
  }
}

/**
 * The policy for a call made in `cwd`: the project's (from `cwd` up), else the
 * user's; undefined when there is neither.
 *
 * @example
 * findHostPolicy({ cwd: '/home/me/app/src', env }) // { file: '/home/me/app/toolgate.yaml', origin: 'project' }
 */
export function findHostPolicy(options: { cwd: string; env: Environment }): FoundHostPolicy | undefined {
  const project = findPolicyUpward(options.cwd);
  if (project !== undefined) return { file: project, origin: 'project' };
  const user = userPolicyFile(options.env);
  return user === undefined ? undefined : { file: user, origin: 'user' };
}

/**
 * Loads the policy for a call made in `cwd` (`findHostPolicy`). A project's
 * policy loads only when it is the text the person trusted; the trust is
 * checked on the very text that is parsed. Throws, saying what to do, when
 * there is no policy or the project's is not trusted: the hook blocks then.
 *
 * @example
 * const loaded = await loadHostPolicy({ cwd: input.cwd, env: process.env });
 */
export async function loadHostPolicy(options: {
  cwd: string;
  env: Environment;
  /**
   * Where the host's session began (Claude Code gives its hooks
   * CLAUDE_PROJECT_DIR): the policy is found from there, and the user-level
   * policy's zone is rooted there, not wherever the call is made — or a
   * model that changed its directory (`cd ~`, `cd` into a project whose
   * trusted policy is looser) would choose its own rules and zone.
   */
  sessionDirectory?: string;
}): Promise<LoadedPolicy> {
  const found = findHostPolicy({ cwd: options.sessionDirectory ?? options.cwd, env: options.env });
  if (found === undefined) {
    throw new Error(
      `no policy for ${options.cwd}: no toolgate.yaml there or in a folder above it, and no user-level policy in ${toolgateConfigHome(options.env)}; ` +
        'write one in a terminal: `toolgate init` (this project) or `toolgate init --user` (every project without its own)',
    );
  }
  if (found.origin === 'user') return { ...(await loadPolicyFile(found.file)), zoneRoot: projectRootOf(options.sessionDirectory ?? options.cwd) };
  // A link is refused: trusted by its target's path and text, it would bring that policy to another folder, its relative zones shifted.
  if (lstatSync(found.file).isSymbolicLink()) {
    throw new Error(`the project's policy ${found.file} is a symbolic link: a project's policy must be a file of its own (one a link points to is trusted where it is, not here)`);
  }
  // Checked before it is parsed, on the very text that is: an untrusted policy is not even read as policy.
  return loadPolicyFile(found.file, {
    inspect: (text) => {
      const trust = policyTrust({ file: found.file, text, env: options.env });
      if (trust === 'trusted') return;
      throw new Error(
        `the project's policy ${found.file} ${trust === 'changed' ? 'changed since you trusted it' : 'is not one you trusted (a repository can bring its own)'}: ` +
          `read it, then run \`toolgate trust ${found.file}\` yourself, in a terminal`,
      );
    },
  });
}

