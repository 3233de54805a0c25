import { realPathOf } from './real-path-of.ts';

/** Longer paths are not resolved (the kernel would refuse them anyway): only their spellings are compared. */
const MAX_PATH_BYTES = 4095;

/**
 * The other paths an absolute, normalised path can stand for on this
 * machine: where its symbolic links lead (the nearest existing ancestor
 * resolved, the rest joined), and its Unicode spellings (NFC and NFD:
 * server-filesystem finds a missing `café` typed with a combining accent,
 * macOS stores names decomposed), each resolved too. A policy's
 * `{inside: DIR}` condition compares every one of them, so a symlink inside
 * DIR that leads out of it, or a second spelling of a blocked directory,
 * cannot pass for the path as written. Never throws.
 *
 * @example
 * filesystemPathForms('/home/me/notes/drafts/imp.md') // ['/home/me/notes/important.md'] when imp.md links to ../important.md
 */
export function filesystemPathForms(absolute: string): string[] {
  const forms = new Set<string>();
  for (const spelling of [absolute, absolute.normalize('NFC'), absolute.normalize('NFD')]) {
    forms.add(spelling);
    if (Buffer.byteLength(spelling) > MAX_PATH_BYTES || spelling.includes('\u0000')) continue;
    try {
      forms.add(realPathOf(spelling));
    } catch {
      // A path that cannot be resolved (a loop, no permission) is compared as written.
    }
  }
  forms.delete(absolute);
  return [...forms];
}
