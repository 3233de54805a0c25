import { z } from 'zod';
import { blockCall } from '../../core/tool-declaration.ts';
import type { BuiltinTool } from '../builtin-tool.ts';
import { approvedStateMetadata, assertStillApproved } from './approved-state.ts';
import { readSnapshot, removeFile } from './file-operations.ts';
import {
  CONTENT_LIMIT_BYTES,
  atEntry,
  argumentsOrThrow,
  blockedReason,
  concernNote,
  decide,
  parseArguments,
  requireFile,
  resolveForCheck,
  resolveForExecution,
  snapshotOf,
  zonePayload,
  type FsToolContext,
} from './fs-tool-support.ts';
import { renderFileRemoval } from './render-file-change.ts';

export const deleteFileSchema = z.strictObject({
  path: z.string().min(1).describe('The file to delete, relative to the project root or absolute; it must lie in a writable zone.'),
});

export type DeleteFileArguments = z.infer<typeof deleteFileSchema>;

export interface DeleteFileResult {
  path: string;
  zone: string;
  deleted: true;
}

/**
 * `delete_file`: removes one file (never a directory, never a zone root)
 * inside a writable zone. The zone's `approval.delete` decides (default ask);
 * the person sees the lines that go away.
 *
 * @example
 * await deleteFile.execute({ path: 'ws/old.txt' }, { approvedPresentation });
 */
export function createDeleteFileTool(context: FsToolContext): BuiltinTool<DeleteFileArguments, DeleteFileResult> {
  const name = 'delete_file';
  return {
    name,
    description: 'Delete one file inside a writable zone. Directories are not deleted.',
    inputSchema: deleteFileSchema,
    checkApproval(call) {
      const parsed = parseArguments({ tool: name, schema: deleteFileSchema, args: call.args });
      if (!parsed.ok) return blockCall(`invalid arguments for ${name}: ${parsed.problems.join('; ')}`);
      const resolved = resolveForCheck({ context, path: parsed.args.path, operation: 'delete' });
      if ('reason' in resolved) return blockCall(resolved.reason);
      if (!resolved.exists) return blockCall(`${resolved.shown} does not exist; nothing to delete`);
      return decide({
        decision: resolved.zone.approval.delete,
        blocked: () => blockedReason({ zone: resolved.zone, operation: 'delete', shown: resolved.shown }),
        zone: { zone: resolved.zone, operation: 'delete' },
        request: () => ({
          tool: name,
          description: `Delete ${resolved.shown} (zone ${resolved.zone.name})${concernNote(resolved)}`,
          payload: zonePayload(resolved),
          required: true,
          presentation: async () => {
            const before = requireFile({ snapshot: await snapshotOf(resolved), shown: resolved.shown, missingHint: 'nothing to delete' });
            const presentation = renderFileRemoval({ shown: resolved.shown, before });
            presentation.metadata = {
              ...presentation.metadata,
              ...approvedStateMetadata({ operation: 'delete', zone: resolved.zone.name, path: resolved.relative, sha256: before.sha256 }),
              // A deleted file is gone (toolgate keeps no copy): a view shows it as what cannot be undone.
              risk: 'dangerous',
            };
            return presentation;
          },
        }),
      });
    },
    async execute(args, options) {
      options?.signal?.throwIfAborted();
      const { path } = argumentsOrThrow({ tool: name, schema: deleteFileSchema, args });
      const resolved = await resolveForExecution({ context, path, operation: 'delete', authorization: options?.authorization });
      await atEntry({ resolved, createMissing: false }, async (location) => {
        const file = requireFile({ snapshot: await readSnapshot({ ...location, contentLimit: CONTENT_LIMIT_BYTES }), shown: resolved.shown, missingHint: 'nothing to delete' });
        assertStillApproved({
          approvedPresentation: options?.approvedPresentation,
          current: { operation: 'delete', zone: resolved.zone.name, path: resolved.relative, sha256: file.sha256 },
          tool: name,
          shown: resolved.shown,
        });
        await removeFile({ ...location, tool: name, expected: file });
      });
      return { path: resolved.shown, zone: resolved.zone.name, deleted: true };
    },
  };
}
