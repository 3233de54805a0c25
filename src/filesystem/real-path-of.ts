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
  try {
    return realpathSync.native(absolute);
  } catch {
    const parent = path.dirname(absolute);
    return parent === absolute ? absolute : path.join(realPathOf(parent), path.basename(absolute));
  }
}
