import { createHash } from 'node:crypto';
import { constants, promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Presentation } from '../core/types.ts';
import type { FileSnapshot } from '../tools/fs/file-operations.ts';
import { renderFileChange } from '../tools/fs/render-file-change.ts';

/** Past this size the current file is not read: the person sees sizes, not a diff. */
const READ_MAX_BYTES = 2 * 1024 * 1024;

/**
 * What a file-writing MCP tool would do, as the built-in file tools show it:
 * a diff against the file as it is now, or the new content for a new file.
 * It knows server-filesystem's `write_file {path, content}` and
 * `edit_file {path, edits: [{oldText, newText}]}` (exact matches, applied in
 * turn, as the server does first); for anything else, a file it cannot read
 * as a regular file, or an edit it cannot place exactly, it returns
 * undefined and the arguments are shown instead. Only for local (stdio)
 * servers: a relative path is resolved against the server's `cwd`, `~`
 * against the home directory.
 *
 * @example
 * await fileWritePreview({ tool: 'write_file', args: { path: '/ws/a.txt', content: 'new' }, cwd: '/ws' })
 * // { type: 'diff', content: '--- /ws/a.txt\n+++ /ws/a.txt\n@@ -1 +1 @@\n-old\n+new\n', ... }
 */
export async function fileWritePreview(options: { tool: string; args: unknown; cwd: string }): Promise<Presentation | undefined> {
  const args = options.args;
  if (typeof args !== 'object' || args === null) return undefined;
  const { path: target, content, edits } = args as { path?: unknown; content?: unknown; edits?: unknown };
  if (typeof target !== 'string' || target === '') return undefined;
  const file = resolveTarget(target, options.cwd);
  if (options.tool === 'write_file' && typeof content === 'string') {
    const before = await readRegularFile(file);
    if (before === undefined) return undefined;
    return renderFileChange({ shown: file, before, after: Buffer.from(content, 'utf8') });
  }
  if (options.tool === 'edit_file' && Array.isArray(edits)) {
    const before = await readRegularFile(file);
    if (before?.kind !== 'file' || before.content === undefined) return undefined;
    const after = applyExactEdits(before.content.toString('utf8'), edits);
    if (after === undefined) return undefined;
    return renderFileChange({ shown: file, before, after: Buffer.from(after, 'utf8') });
  }
  return undefined;
}

function resolveTarget(target: string, cwd: string): string {
  const expanded = target === '~' || target.startsWith('~/') ? path.join(os.homedir(), target.slice(1)) : target;
  return path.resolve(cwd, expanded);
}

/**
 * The file as a snapshot: missing, or a regular file (its bytes when small
 * enough). Opened without blocking and checked on the descriptor, so a FIFO
 * or a device put at the path cannot hang the prompt; anything else is
 * undefined (no preview).
 */
async function readRegularFile(file: string): Promise<FileSnapshot | undefined> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? { kind: 'missing' } : undefined;
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) return undefined;
    const content = stat.size > READ_MAX_BYTES ? undefined : await handle.readFile();
    const sha256 = content === undefined ? '' : createHash('sha256').update(content).digest('hex');
    return { kind: 'file', dev: stat.dev, ino: stat.ino, mode: stat.mode, size: stat.size, links: stat.nlink, sha256, content };
  } catch {
    return undefined;
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/** server-filesystem's edits, where each `oldText` is found as written (line endings normalized); undefined when one is not. */
function applyExactEdits(text: string, edits: readonly unknown[]): string | undefined {
  let result = text.replace(/\r\n/g, '\n');
  for (const edit of edits) {
    const { oldText, newText } = (edit ?? {}) as { oldText?: unknown; newText?: unknown };
    if (typeof oldText !== 'string' || typeof newText !== 'string') return undefined;
    const from = oldText.replace(/\r\n/g, '\n');
    if (from === '' || !result.includes(from)) return undefined;
    result = result.replace(from, () => newText.replace(/\r\n/g, '\n'));
  }
  return result;
}
