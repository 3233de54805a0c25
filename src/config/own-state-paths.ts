/**
 * What a change to one path means for toolgate's own files: the policy, the
 * `.toolgate/` state directory, the audit log and the approvals file.
 *
 * Guarding the files alone is not enough. A folder above one of them can be
 * renamed, deleted or replaced (`mv fake state`), and the file inside it is
 * then the agent's forgery; so every ancestor folder of every own file, and
 * every path that would become one, is guarded too. And a file toolgate
 * would load as policy or state anywhere else (`sub/toolgate.yaml`,
 * `sub/.toolgate/approvals.json`) is the next run's policy for whoever starts
 * toolgate there, so changing one always asks.
 *
 * One judgement for the file tools and the shell, so they cannot disagree.
 */
import path from 'node:path';
import { DEFAULT_POLICY_NAMES } from './load-policy-file.ts';

/** What a tool does to the path. Reads are judged elsewhere (own files are hidden). */
export type OwnStateOperation = 'read' | 'write' | 'delete';

/** Why a change must be refused (`block`) or confirmed by a person (`ask`). */
export interface OwnStateConcern {
  decision: 'block' | 'ask';
  reason: string;
}

/** The name of toolgate's state directory, wherever it is. */
export const STATE_DIRECTORY_NAME = '.toolgate';

/**
 * The `source` the sandbox profile gives toolgate's own files among its hidden
 * paths (`deriveSandboxProfile`'s `hidden` option): the shell finds them there.
 */
export const OWN_FILE_SOURCE = 'protected';

const POLICY_NAMES = new Set<string>(DEFAULT_POLICY_NAMES.map((name) => name.toLowerCase()));

/**
 * Judges a write or delete of `absolute` (real, absolute) against toolgate's
 * own files (`ownPaths`, absolute; or the `protected` rules of a sandbox
 * profile's `hidden` list):
 * - the own file itself, or anything inside one: block;
 * - a folder above one: block (a rename, delete or replacement would swap
 *   the file for another); with `into` (files of names unknown here are
 *   written into it or deleted from it: `tar -x -C dir`, `find dir
 *   -delete`, and every command toolgate cannot model), ask;
 * - a path named like a policy file, a `.toolgate` folder or anything in
 *   one, in any directory: ask.
 * Undefined when the change does not concern toolgate's files. Names are
 * compared case-insensitively: on macOS `Toolgate.YAML` is `toolgate.yaml`.
 *
 * @example
 * ownStateConcern({ absolute: '/p/ws/state', operation: 'delete', ownPaths: ['/p/ws/state/approvals.json'] })
 * // { decision: 'block', reason: '/p/ws/state, a folder above toolgate\'s own file /p/ws/state/approvals.json: ...' }
 * ownStateConcern({ absolute: '/p/ws/sub/toolgate.yaml', operation: 'write', ownPaths: [] })
 * // { decision: 'ask', reason: '/p/ws/sub/toolgate.yaml, a file named like a policy, which toolgate loads ...' }
 */
export function ownStateConcern(options: {
  absolute: string;
  operation: OwnStateOperation;
  ownPaths?: readonly string[];
  /** A sandbox profile's hidden rules: those with source `protected` are toolgate's own files. */
  hidden?: readonly { readonly path: string; readonly source: string }[];
  into?: boolean;
  /** How the path is shown in the reason (default: the absolute path). */
  shown?: string;
}): OwnStateConcern | undefined {
  if (options.operation === 'read') return undefined;
  const absolute = path.resolve(options.absolute);
  const shown = options.shown ?? absolute;
  // An operator's profile that hides the same path makes its source `protected ∩ operator hidden` (intersectProfiles).
  const owned = [...(options.ownPaths ?? []), ...(options.hidden ?? []).filter((rule) => rule.source.split(' ∩ ').includes(OWN_FILE_SOURCE)).map((rule) => rule.path)];
  for (const own of owned) {
    const file = path.resolve(own);
    if (isSameOrInside(absolute, file)) return { decision: 'block', reason: `${shown}, one of toolgate's own files (${file}); no tool may change them` };
  }
  for (const own of owned) {
    const file = path.resolve(own);
    if (!isSameOrInside(file, absolute)) continue;
    if (options.into === true) {
      // Not a block: every command toolgate cannot model counts as writing into its directory, and the project root usually holds the policy.
      return { decision: 'ask', reason: `files named only at run time in ${shown}, a folder above toolgate's own file ${file}, which one of them could replace or remove` };
    }
    return { decision: 'block', reason: `${shown}, a folder above toolgate's own file ${file}: renaming, deleting or replacing it would swap that file for a forged one, so no tool may` };
  }
  const loaded = loadedAs(absolute);
  if (loaded === undefined) return undefined;
  return { decision: 'ask', reason: `${shown}, ${loaded}; a person confirms every change to one` };
}

/**
 * Whether toolgate would load the path as policy or state: a file named like
 * a policy file, or a `.toolgate` folder or anything inside one.
 *
 * @example
 * loadedAs('/p/sub/.toolgate/approvals.json') // 'a .toolgate/ state folder or a file in one, ...'
 */
function loadedAs(absolute: string): string | undefined {
  const components = absolute.split(path.sep).map((component) => component.toLowerCase());
  if (components.includes(STATE_DIRECTORY_NAME)) return `a ${STATE_DIRECTORY_NAME}/ state folder or a file in one, which toolgate loads as the approvals and audit log of the policy beside it`;
  if (POLICY_NAMES.has(components.at(-1) ?? '')) return 'a file named like a policy, which toolgate loads as the policy of whoever starts it in that folder';
  return undefined;
}

/**
 * Whether `target` is `parent` or lies beneath it, by whole segments.
 *
 * @example
 * isSameOrInside('/ws/a', '/ws') // true
 */
export function isSameOrInside(target: string, parent: string): boolean {
  if (target === parent) return true;
  const prefix = parent.endsWith(path.sep) ? parent : `${parent}${path.sep}`;
  return target.startsWith(prefix);
}
