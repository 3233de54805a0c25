/**
 * The lowest layer of toolgate's own Node code: filesystem facts that every
 * layer above needs the same way (the sandbox, the tools, the config).
 */
import { realpathSync } from 'node:fs';
import path from 'node:path';

/**
 * The real path of `target` (made absolute first), or of its nearest
 * existing ancestor joined with the rest when it does not exist yet: zone
 * roots and resolved paths are real, so paths compared with them (own
 * files, paths to hide, a state file not written yet) must be too.
 *
 * @example
 * realPathOf('/tmp/p/.toolgate/approvals.json') // '/private/tmp/p/.toolgate/approvals.json' on macOS
 */
export function realPathOf(target: string): string {
  const absolute = path.resolve(target);
  const resolved = tryRealPath(absolute);
  if (resolved !== undefined) return resolved;
  // Whether a prefix resolves only gets worse as it grows, so the deepest one that does is found by
  // bisection: a few calls, where one per component (each walking the whole prefix) took a second
  // on a 2,000-component path, a stall any caller could cause with a long enough argument.
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
  return path.join(knownReal, ...parts.slice(known));
}

function tryRealPath(absolute: string): string | undefined {
  try {
    return realpathSync.native(absolute);
  } catch {
    return undefined;
  }
}
