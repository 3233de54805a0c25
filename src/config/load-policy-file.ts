import { closeSync, constants, existsSync, fstatSync, openSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { PolicyError } from '../core/errors/policy-error.ts';
import type { Policy } from '../core/policy/policy.ts';
import { toolgateConfigHome, toolgateStateHome } from './user-toolgate-paths.ts';

/** A policy together with where it lives: relative paths in it resolve against `directory`. */
export interface LoadedPolicy {
  policy: Policy;
  /** Absolute path of the file. */
  path: string;
  directory: string;
  /**
   * Where the zones' relative roots resolve, when not `directory`: a
   * user-level policy judges calls in whichever project they are made, so
   * its `root: .` is that project (`find-host-policy.ts`). Its state
   * (`.toolgate/`, the audit log) stays beside the file.
   */
  zoneRoot?: string;
}

/** The names looked for in the working directory when no `--policy` is given. */
export const DEFAULT_POLICY_NAMES = ['toolgate.yaml', 'toolgate.yml', 'toolgate.json'] as const;

/**
 * Reads and parses a policy file (YAML or JSON). Throws `PolicyError` with
 * file, line and column for anything wrong, including a missing file.
 *
 * @example
 * const { policy, directory } = await loadPolicyFile('toolgate.yaml');
 */
export async function loadPolicyFile(file: string, options: { cwd?: string; /** Sees the text before it is parsed (a trust check on exactly what is used); may throw. */ inspect?: (text: string) => void } = {}): Promise<LoadedPolicy> {
  const absolute = path.resolve(options.cwd ?? process.cwd(), file);
  let text: string;
  try {
    text = readPolicyText(absolute);
  } catch (error) {
    if (error instanceof PolicyError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    const message =
      code === 'ENOENT'
        ? 'no such file: create it (see README "The policy file") or pass --policy with the right path'
        : code === 'EISDIR'
          ? 'this is a directory, not a policy file'
          : `cannot read the policy file (${code ?? (error as Error).message})`;
    throw new PolicyError({ file: absolute, issues: [{ path: '', message }], code: 'POLICY_NOT_FOUND' });
  }
  options.inspect?.(text);
  return { policy: await parsedPolicy({ text, source: absolute }), path: absolute, directory: path.dirname(absolute) };
}

/**
 * The text of a policy file. Synchronous: a small file, read for every call
 * a hook's decider answers, where the thread pool's round trips for an
 * asynchronous read cost more than the read.
 */
function readPolicyText(absolute: string): string {
  const notAFile = (): PolicyError =>
    new PolicyError({ file: absolute, issues: [{ path: '', message: 'this is not a regular file (a named pipe, socket or device): a policy is a file' }], code: 'POLICY_NOT_FOUND' });
  // A named pipe or a device would block the read, and with it the process's exit (a hook that cannot exit lets its host run the call):
  // looked at before it is opened, and again once open without blocking (it may have been swapped in between).
  const stats = statSync(absolute);
  if (stats.isDirectory()) throw Object.assign(new Error('a directory'), { code: 'EISDIR' });
  if (!stats.isFile()) throw notAFile();
  const descriptor = openSync(absolute, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    if (!fstatSync(descriptor).isFile()) throw notAFile();
    return readFileSync(descriptor, 'utf8');
  } finally {
    closeSync(descriptor);
  }
}

/**
 * The policies parsed lately, by file and exact text: the hook's decider
 * (src/cli/hook-decider.ts) loads the policy for every call, and a text
 * parsed once needs no second parse. Keyed by the whole text, so any change
 * is parsed again; the server, like the decider, treats a policy as
 * read-only, so one object serves every call made under that text.
 */
const parsed = new Map<string, Policy>();
const MAX_PARSED = 16;

async function parsedPolicy(options: { text: string; source: string }): Promise<Policy> {
  const key = `${options.source}\u0000${options.text}`;
  const known = parsed.get(key);
  if (known !== undefined) return known;
  // Loaded here, not with this module: finding a policy and checking its trust (an agent host's hook) need no parser.
  const { parsePolicy } = await import('../core/policy/parse-policy.ts');
  const policy = parsePolicy(options);
  if (parsed.size >= MAX_PARSED) parsed.delete(parsed.keys().next().value!);
  parsed.set(key, policy);
  return policy;
}

/**
 * The default policy file in `cwd`, if any. Two of them is an error, not a
 * choice: a second one is how a planted policy would take over the next run.
 */
export function findPolicyFile(cwd: string): string | undefined {
  const found = DEFAULT_POLICY_NAMES.map((name) => path.join(cwd, name)).filter((candidate) => existsSync(candidate));
  if (found.length > 1) {
    throw new PolicyError({
      file: found[0]!,
      code: 'POLICY_INVALID',
      issues: [{ path: '', message: `several policy files in ${cwd} (${found.map((file) => path.basename(file)).join(', ')}): keep one, or pass --policy` }],
    });
  }
  return found[0];
}

/**
 * toolgate's own files for a policy: the policy itself, every name a default
 * policy could have beside it, `.toolgate/`, and the audit log and approvals
 * file where the policy moved them. No tool may read or change them, nor
 * rename, delete or replace a folder above them (`ownStateConcern`), and the
 * OS sandbox hides them. So are toolgate's folders in the user's home (the
 * user-level policy, and the trust records that say which project policies
 * decide): an agent that could write them could choose its own rules.
 *
 * @example
 * ownPaths({ loaded }) // ['/p/toolgate.yaml', '/p/toolgate.yml', '/p/toolgate.json', '/p/.toolgate', ...]
 */
export function ownPaths(options: { policy: LoadedPolicy['policy']; policyFile: string; /** Whose home's toolgate folders (default: this process's environment). */ env?: Readonly<Record<string, string | undefined>> }): string[] {
  const env = options.env ?? process.env;
  const directory = path.dirname(options.policyFile);
  const document = options.policy.document;
  const paths = [options.policyFile, ...DEFAULT_POLICY_NAMES.map((name) => path.join(directory, name)), stateDirectory(directory), toolgateConfigHome(env), toolgateStateHome(env)];
  if (document.audit?.path !== undefined) paths.push(path.resolve(directory, document.audit.path));
  if (document.approvals?.path !== undefined) paths.push(path.resolve(directory, document.approvals.path));
  return [...new Set(paths)];
}

/** Where toolgate keeps its state for a policy: `.toolgate/` beside the file. */
export function stateDirectory(policyDirectory: string): string {
  return path.join(policyDirectory, '.toolgate');
}

/** The policy's audit log: `audit.path`, else `.toolgate/audit.jsonl` beside the policy. */
export function auditLogPath(loaded: LoadedPolicy): string {
  return resolvePolicyPath({ loaded, value: loaded.policy.document.audit?.path, fallback: 'audit.jsonl' });
}

/** The policy's "approve always" file: `approvals.path`, else `.toolgate/approvals.json` beside the policy. */
export function approvalsFilePath(loaded: LoadedPolicy): string {
  return resolvePolicyPath({ loaded, value: loaded.policy.document.approvals?.path, fallback: 'approvals.json' });
}

/** A path from the policy (`audit.path`, `approvals.path`) resolved against the policy's directory. */
export function resolvePolicyPath(options: { loaded: LoadedPolicy; value: string | undefined; fallback: string }): string {
  return path.resolve(options.loaded.directory, options.value ?? path.join('.toolgate', options.fallback));
}
