/**
 * The lowest layer of toolgate's own Node code: filesystem facts that every
 * layer above needs the same way (the sandbox, the tools, the config).
 */
import { lstatSync, readlinkSync, realpathSync, statSync } from './file-lookups.ts';
import path from 'node:path';

/** As many links as Linux follows in one path before it gives up (ELOOP). */
const MAX_LINKS = 40;

/**
 * The real path of `target` (made absolute first), or, when it does not
 * exist yet, where creating it would put it: its nearest existing ancestor
 * resolved, and a symlink below that which leads nowhere yet followed too
 * (`state -> ws/new`: `state/approvals.json` lands in `ws/new` once an agent
 * makes that directory), the rest joined. Zone roots and resolved paths are
 * real, so paths compared with them (own files, paths to hide, a state file
 * not written yet) must be too.
 *
 * @example
 * realPathOf('/tmp/p/.toolgate/approvals.json') // '/private/tmp/p/.toolgate/approvals.json' on macOS
 */
export function realPathOf(target: string): string {
  const absolute = path.resolve(target);
  if (memo === undefined) return findRealPathOf(absolute);
  const key = `of:${absolute}`;
  if (!memo.has(key)) memo.set(key, findRealPathOf(absolute));
  return memo.get(key)!;
}

function findRealPathOf(target: string): string {
  let absolute = target;
  for (let links = 0; ; links++) {
    const resolved = tryRealPath(absolute);
    if (resolved !== undefined) return resolved;
    const { known, knownReal, parts } = deepestResolvable(absolute);
    const next = path.join(knownReal, parts[known]!);
    const leadsTo = links < MAX_LINKS ? danglingLinkTarget(next) : undefined;
    if (leadsTo === undefined) return path.join(knownReal, ...parts.slice(known));
    absolute = path.resolve(knownReal, leadsTo, ...parts.slice(known + 1));
  }
}

/**
 * The deepest prefix of `absolute` that resolves, found by bisection (whether
 * a prefix resolves only gets worse as it grows): a few calls, where one per
 * component (each walking the whole prefix) took a second on a
 * 2,000-component path, a stall any caller could cause with a long argument.
 */
function deepestResolvable(absolute: string): { known: number; knownReal: string; parts: string[] } {
  const { root } = path.parse(absolute);
  const parts = absolute.slice(root.length).split(path.sep).filter((part) => part !== '');
  const prefix = (count: number) => root + parts.slice(0, count).join(path.sep);
  let known = 0;
  let knownReal = tryRealPath(root) ?? root;
  let failing = parts.length;
  while (failing - known > 1) {
    const middle = (known + failing) >> 1;
    const real = tryRealPath(prefix(middle));
    if (real === undefined) failing = middle;
    else [known, knownReal] = [middle, real];
  }
  return { known, knownReal, parts };
}

/** What a symlink that leads nowhere (yet) says, or undefined for anything else. */
function danglingLinkTarget(absolute: string): string | undefined {
  try {
    return lstatSync(absolute, { throwIfNoEntry: false })?.isSymbolicLink() === true ? readlinkSync(absolute) : undefined;
  } catch {
    return undefined;
  }
}

/** What was found in the pass `withRealPathMemo` runs: `real:` a path's real path (undefined: it does not resolve), `of:` realPathOf's answer. Undefined outside one. */
let memo: Map<string, string | undefined> | undefined;

/**
 * Runs `pass`, a synchronous pass that resolves many paths sharing their
 * folders (the paths a tool set protects, hides and compares with its
 * zones), finding each real path once: one moment's answers, gone when it
 * returns. Synchronous, so nothing else runs in between and sees them.
 *
 * @example
 * const zones = withRealPathMemo(() => zonesFromPolicy({ policy, policyDirectory }));
 */
export function withRealPathMemo<T>(pass: () => T): T {
  if (memo !== undefined) return pass();
  memo = new Map();
  try {
    return pass();
  } finally {
    memo = undefined;
  }
}

function tryRealPath(absolute: string): string | undefined {
  if (memo === undefined) return findRealPath(absolute);
  const key = `real:${absolute}`;
  if (memo.has(key)) return memo.get(key);
  const found = findRealPath(absolute);
  memo.set(key, found);
  return found;
}

function findRealPath(absolute: string): string | undefined {
  try {
    // A path that is not there is the common case (files not written yet, the bisection above): found without the cost
    // of an exception (statSync's throwIfNoEntry). One that appears in between is resolved; one that goes, throws below.
    if (statSync(absolute, { throwIfNoEntry: false }) === undefined) return undefined;
    return realpathSync.native(absolute);
  } catch {
    return undefined;
  }
}
