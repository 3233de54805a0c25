import { existsSync } from 'node:fs';
import path from 'node:path';
import { PolicyError } from '../core/errors/policy-error.ts';
import { parsePolicy } from '../core/policy/parse-policy.ts';
import { findPolicyFile, loadPolicyFile, type LoadedPolicy } from '../config/load-policy-file.ts';
import { lastRunPolicy, type PolicyOrigin } from '../config/policy-discovery.ts';
import { defaultPolicyText } from '../runtime/demo-workspace.ts';
import { realPathOf } from '../filesystem/real-path-of.ts';
import type { CliIo } from './cli-io.ts';
import { chooseModel } from '../models/choose-model.ts';
import { ModelNotChosenError } from '../models/errors/model-not-chosen-error.ts';

import { UsageError } from './usage-error.ts';

export { UsageError };

/** What the policy source of the built-in default policy is called. */
export const BUILT_IN_POLICY_SOURCE = '<built-in default policy>';

/**
 * Loads `--policy FILE`, or the default policy file in the working directory.
 * Throws `UsageError` when there is neither, `PolicyError` when it is invalid.
 */
export async function loadPolicyOrExplain(options: { policy: string | undefined; io: CliIo }): Promise<LoadedPolicy> {
  const file = options.policy ?? findPolicyFile(options.io.cwd);
  if (file === undefined) {
    throw new UsageError(`no policy: pass --policy FILE, or run \`toolgate init\` to write a starter toolgate.yaml in ${options.io.cwd}`);
  }
  return loadPolicyFile(file, { cwd: options.io.cwd });
}

/**
 * The built-in default policy of `toolgate run`, standing for
 * `toolgate.yaml` in `cwd`: its state lives in `cwd/.toolgate/`.
 *
 * @example
 * builtInPolicy('/p').path // '/p/toolgate.yaml' (it does not exist)
 */
export function builtInPolicy(cwd: string): LoadedPolicy {
  return { policy: parsePolicy({ text: defaultPolicyText(), source: BUILT_IN_POLICY_SOURCE }), path: path.join(cwd, 'toolgate.yaml'), directory: cwd };
}

/**
 * The policy `toolgate run` uses: `--policy`, else `toolgate.yaml` (.yml,
 * .json) in `cwd`, else the built-in default policy for `cwd`.
 *
 * @example
 * const { loaded, origin } = await policyForRun({ policy: values.policy, cwd: io.cwd });
 */
export async function policyForRun(options: { policy: string | undefined; cwd: string }): Promise<{ loaded: LoadedPolicy; origin: PolicyOrigin }> {
  if (options.policy !== undefined) return { loaded: await loadPolicyFile(options.policy, { cwd: options.cwd }), origin: 'flag' };
  const file = findPolicyFile(options.cwd);
  if (file !== undefined) return { loaded: await loadPolicyFile(file, { cwd: options.cwd }), origin: 'found' };
  return { loaded: builtInPolicy(options.cwd), origin: 'built-in' };
}

/**
 * The policy whose state (approvals, audit log) a state command reads:
 * `--policy`, else the one the last `toolgate run` (or `mcp`) started in
 * this very directory used, as recorded by `src/config/policy-discovery.ts`
 * (when that file still exists), else what `run` would use now. `note` says
 * which, when it was not named on the command line.
 *
 * @example
 * const { loaded, note } = await policyForState({ policy: values.policy, io });
 * if (note !== undefined) io.stderr.write(`${note}\n`);
 */
export async function policyForState(options: { policy: string | undefined; io: CliIo }): Promise<{ loaded: LoadedPolicy; note: string | undefined }> {
  const { io } = options;
  if (options.policy !== undefined) return { loaded: await loadPolicyFile(options.policy, { cwd: io.cwd }), note: undefined };
  const last = lastRunPolicy({ cwd: io.cwd, env: io.env });
  if (last !== undefined && last.policy === 'built-in' && findPolicyFile(io.cwd) === undefined) {
    return { loaded: builtInPolicy(io.cwd), note: `toolgate: the built-in default policy's state in ${path.join(io.cwd, '.toolgate')} (the last run here, ${last.at}, used it)` };
  }
  if (last !== undefined && last.policy !== 'built-in' && existsSync(last.policy)) {
    const found = findPolicyFile(io.cwd);
    const loaded = await loadPolicyFile(last.policy, { cwd: io.cwd });
    // Only worth a line when it is not the file a person would guess.
    const note = found !== undefined && realPathOf(path.resolve(io.cwd, found)) === last.policy ? undefined : `toolgate: policy ${last.policy} (the last run here, ${last.at}, used it; pass --policy to choose another)`;
    return { loaded, note };
  }
  return { loaded: (await policyForRun({ policy: undefined, cwd: io.cwd })).loaded, note: undefined };
}

export { PolicyError };

/** `chooseModel`, with "no model" reported as a usage error (exit 2) that lists the ways to choose one. */
export function chooseModelOrExplain(options: Parameters<typeof chooseModel>[0]): ReturnType<typeof chooseModel> {
  try {
    return chooseModel(options);
  } catch (error) {
    if (error instanceof ModelNotChosenError) throw new UsageError(error.message);
    throw error;
  }
}
