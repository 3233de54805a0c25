/**
 * The lowest layer of toolgate's own Node code: filesystem facts that every
 * layer above needs the same way (the sandbox, the tools, the config).
 */
import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
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
  let absolute = path.resolve(target);
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
    return lstatSync(absolute).isSymbolicLink() ? readlinkSync(absolute) : undefined;
  } catch {
    return undefined;
  }
}

function tryRealPath(absolute: string): string | undefined {
  try {
    return realpathSync.native(absolute);
  } catch {
    return undefined;
  }
}
