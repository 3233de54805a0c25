import { lstat, readdir } from 'node:fs/promises';
import { z } from 'zod';
import { blockCall } from '../../core/tool-declaration.ts';
import type { BuiltinTool } from '../builtin-tool.ts';
import { FsOperationError } from './errors/fs-operation-error.ts';
import { argumentsOrThrow, blockedReason, decide, parseArguments, resolveForCheck, resolveForExecution, zonePayload, type FsToolContext } from './fs-tool-support.ts';
import { openVerifiedDirectory } from './verified-directory.ts';

export const listDirSchema = z.strictObject({
  path: z.string().min(1).describe('The directory to list, relative to the project root or absolute; it must lie in a zone.'),
});

export type ListDirArguments = z.infer<typeof listDirSchema>;

export interface DirectoryEntry {
  name: string;
  type: 'file' | 'directory' | 'symlink' | 'other';
  /** Bytes, for files. */
  size?: number;
}

export interface ListDirResult {
  path: string;
  zone: string;
  entries: DirectoryEntry[];
  /** True when there were more than the entries returned. */
  truncated: boolean;
}

/** A listing this long is cut: a model rarely needs more, and prompts stay small. */
const MAX_ENTRIES = 1000;

/**
 * `list_dir`: the entries of one directory inside a zone, sorted by name,
 * with sizes of files. Symlinks are listed as symlinks, not followed. The
 * zone's `approval.read` decides.
 *
 * @example
 * const { entries } = await listDir.execute({ path: 'ws' });
 */
export function createListDirTool(context: FsToolContext): BuiltinTool<ListDirArguments, ListDirResult> {
  const name = 'list_dir';
  return {
    name,
    description: 'List the files and directories in a directory inside one of the allowed zones.',
    inputSchema: listDirSchema,
    checkApproval(call) {
      const parsed = parseArguments({ tool: name, schema: listDirSchema, args: call.args });
      if (!parsed.ok) return blockCall(`invalid arguments for ${name}: ${parsed.problems.join('; ')}`);
      const resolved = resolveForCheck({ context, path: parsed.args.path, operation: 'read' });
      if ('reason' in resolved) return blockCall(resolved.reason);
      return decide({
        decision: resolved.zone.approval.read,
        blocked: () => blockedReason({ zone: resolved.zone, operation: 'read', shown: resolved.shown }),
        zone: { zone: resolved.zone, operation: 'read' },
        request: () => ({
          tool: name,
          description: `List ${resolved.shown} (zone ${resolved.zone.name})`,
          payload: zonePayload(resolved),
          required: true,
          presentation: { type: 'text', content: `List ${resolved.shown} (zone ${resolved.zone.name})`, metadata: { ...zonePayload(resolved), operation: 'list' } },
        }),
      });
    },
    async execute(args, options) {
      options?.signal?.throwIfAborted();
      const { path } = argumentsOrThrow({ tool: name, schema: listDirSchema, args });
      const resolved = await resolveForExecution({ context, path, operation: 'read', authorization: options?.authorization });
      const directory = await openVerifiedDirectory({ absolute: resolved.absolute, shown: resolved.shown }).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOTDIR') throw new FsOperationError({ path: resolved.shown, message: `${resolved.shown} is a file, not a directory; use read_file`, cause: error });
        if (error.code === 'ENOENT') throw new FsOperationError({ path: resolved.shown, message: `${resolved.shown} does not exist`, cause: error });
        throw error;
      });
      try {
        const dirents = (await readdir(directory.listing, { withFileTypes: true })).sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0));
        const entries: DirectoryEntry[] = [];
        for (const dirent of dirents.slice(0, MAX_ENTRIES)) {
          if (dirent.isFile()) {
            const size = await lstat(directory.entry(dirent.name)).then((status) => status.size, () => undefined);
            entries.push(size === undefined ? { name: dirent.name, type: 'file' } : { name: dirent.name, type: 'file', size });
          } else {
            entries.push({ name: dirent.name, type: dirent.isDirectory() ? 'directory' : dirent.isSymbolicLink() ? 'symlink' : 'other' });
          }
        }
        return { path: resolved.shown, zone: resolved.zone.name, entries, truncated: dirents.length > MAX_ENTRIES };
      } finally {
        await directory.close();
      }
    },
  };
}
