/**
 * Which project policies the person trusted. An agent host's hook finds the
 * policy of the project a call is made in (walking up from its directory, as
 * git finds its repository), so a repository can bring its own
 * `toolgate.yaml` — a cloned one, or one the agent wrote in a folder below.
 * Such a policy decides nothing until the person trusted exactly that text
 * (`toolgate trust`, or `toolgate init` writing it), as direnv does with an
 * `.envrc`: a policy changed since (a `git pull`, an edit) is trusted again
 * only by the person. The records live in the user's state home, which no
 * agent may write (`ownPaths`).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { writePrivateJson } from '../filesystem/write-private-json.ts';
import { realPathOf } from '../filesystem/real-path-of.ts';
import { toolgateStateHome } from './user-toolgate-paths.ts';

type Environment = Readonly<Record<string, string | undefined>>;

const TRUST_SCHEMA_VERSION = 1;

interface TrustRecords {
  v: typeof TRUST_SCHEMA_VERSION;
  /** By the policy's real path: the SHA-256 of the text trusted, and when. */
  policies: Record<string, { sha256: string; at: string }>;
}

/** Checked by hand, not with zod: every agent host's hook reads this, and loads nothing it need not. */
function isTrustRecords(value: unknown): value is TrustRecords {
  if (typeof value !== 'object' || value === null || (value as { v?: unknown }).v !== TRUST_SCHEMA_VERSION) return false;
  const policies = (value as { policies?: unknown }).policies;
  if (typeof policies !== 'object' || policies === null || Array.isArray(policies)) return false;
  return Object.values(policies).every((record) => typeof record === 'object' && record !== null && /^[0-9a-f]{64}$/.test(String((record as { sha256?: unknown }).sha256)) && typeof (record as { at?: unknown }).at === 'string');
}

/** Whether a policy's text is the one the person trusted there. */
export type PolicyTrust = 'trusted' | 'never' | 'changed';

/**
 * The file the trust records are kept in.
 *
 * @example
 * trustFile({ TOOLGATE_STATE_HOME: '/tmp/s' }) // '/tmp/s/trusted-policies.json'
 */
export function trustFile(env: Environment): string {
  return path.join(toolgateStateHome(env), 'trusted-policies.json');
}

/** The digest a trust record holds for a policy's text. */
export function policyDigest(text: string): string {
  // process.getBuiltinModule, not an import: an ESM import of node:crypto reads every export, which costs a hook process
  // tens of milliseconds it spends nowhere else.
  return process.getBuiltinModule('node:crypto').createHash('sha256').update(text, 'utf8').digest('hex');
}

/**
 * Whether `text`, read from `file`, is what the person trusted at that place.
 * A trust file that cannot be read or is not toolgate's trusts nothing.
 *
 * @example
 * policyTrust({ file: '/p/toolgate.yaml', text, env }) // 'changed'
 */
export function policyTrust(options: { file: string; text: string; env: Environment }): PolicyTrust {
  const record = readTrust(options.env).policies[realPathOf(options.file)];
  if (record === undefined) return 'never';
  return record.sha256 === policyDigest(options.text) ? 'trusted' : 'changed';
}

/**
 * Records that the person trusts the policy now in `file` (its text as it is
 * now). Written to a file beside the records and renamed over them. Throws
 * when the records cannot be written (nothing is trusted then).
 *
 * @example
 * trustPolicy({ file: '/p/toolgate.yaml', env, clock: () => new Date() }) // { sha256: '9f…' }
 */
export function trustPolicy(options: { file: string; env: Environment; text?: string; clock?: () => Date }): { sha256: string; file: string } {
  const file = realPathOf(options.file);
  const sha256 = policyDigest(options.text ?? readFileSync(file, 'utf8'));
  const records = readTrust(options.env);
  records.policies[file] = { sha256, at: (options.clock ?? (() => new Date()))().toISOString() };
  writeTrust(options.env, records);
  return { sha256, file };
}

/** Takes the person's trust of `file` back; whether there was one. */
export function forgetPolicy(options: { file: string; env: Environment }): boolean {
  const records = readTrust(options.env);
  const file = realPathOf(options.file);
  if (records.policies[file] === undefined) return false;
  delete records.policies[file];
  writeTrust(options.env, records);
  return true;
}

/** Every trusted policy, by path. */
export function trustedPolicies(env: Environment): TrustRecords['policies'] {
  return readTrust(env).policies;
}

function readTrust(env: Environment): TrustRecords {
  let text: string;
  try {
    text = readFileSync(trustFile(env), 'utf8');
  } catch {
    return { v: TRUST_SCHEMA_VERSION, policies: {} };
  }
  try {
    const parsed: unknown = JSON.parse(text);
    if (isTrustRecords(parsed)) return parsed;
  } catch {
    // Not JSON: trusts nothing, as a file with another shape does.
  }
  return { v: TRUST_SCHEMA_VERSION, policies: {} };
}

function writeTrust(env: Environment, records: TrustRecords): void {
  writePrivateJson(trustFile(env), records);
}
