import { z } from 'zod';
import { blockCall } from '../../core/tool-declaration.ts';
import type { Presentation } from '../../core/types.ts';
import type { BuiltinTool } from '../builtin-tool.ts';
import { folderAlwaysScope } from './folder-always-scope.ts';
import { approvedStateMetadata, assertStillApproved, type FileOperation } from './approved-state.ts';
import { createFile, replaceFile, type FileSnapshot } from './file-operations.ts';
import {
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
  type ResolvedPath,
} from './fs-tool-support.ts';
import { renderFileChange } from './render-file-change.ts';
import { assertSingleLinkOrApproved, atLeastAsk, fileIdentity, regularFileConcern } from './regular-file-check.ts';

export const writeFileSchema = z.strictObject({
  path: z.string().min(1).describe('The file to write, relative to the project root or absolute; it must lie in a writable zone.'),
  content: z.string().describe('The complete new content of the file (UTF-8).'),
});

export type WriteFileArguments = z.infer<typeof writeFileSchema>;

export interface WriteFileResult {
  path: string;
  zone: string;
  bytes: number;
  /** True when the file did not exist before. */
  created: boolean;
}

/**
 * `write_file`: creates a file or replaces one inside a writable zone. The
 * zone's `approval.write` decides (default ask); the person sees a diff, or
 * the new content. Missing parent directories inside the zone are created.
 *
 * @example
 * const writeFile = createWriteFileTool({ zones, cwd, maxReadBytes: 1 << 20 });
 * await writeFile.execute({ path: 'ws/notes.txt', content: 'hello\n' }, { approvedPresentation });
 */
export function createWriteFileTool(context: FsToolContext): BuiltinTool<WriteFileArguments, WriteFileResult> {
  const name = 'write_file';
  return {
    name,
    description: 'Create or overwrite a text file inside a writable zone with the given content. Missing parent directories are created.',
    inputSchema: writeFileSchema,
    ...folderAlwaysScope({ context, tool: name, schema: writeFileSchema }),
    checkApproval(call) {
      const parsed = parseArguments({ tool: name, schema: writeFileSchema, args: call.args });
      if (!parsed.ok) return blockCall(`invalid arguments for ${name}: ${parsed.problems.join('; ')}`);
      const resolved = resolveForCheck({ context, path: parsed.args.path, operation: 'write' });
      if ('reason' in resolved) return blockCall(resolved.reason);
      // A FIFO or a device is refused before anything opens it; a hard-linked file needs a person.
      const concern = regularFileConcern({ absolute: resolved.absolute, shown: resolved.shown, operation: 'write' });
      if (concern?.decision === 'block') return blockCall(concern.reason);
      return decide({
        decision: concern === undefined ? resolved.zone.approval.write : atLeastAsk(resolved.zone.approval.write),
        blocked: () => blockedReason({ zone: resolved.zone, operation: 'write', shown: resolved.shown }),
        ...(concern === undefined ? { zone: { zone: resolved.zone, operation: 'write' } } : {}),
        request: () => ({
          tool: name,
          description: `Write ${resolved.shown} (zone ${resolved.zone.name})${concern === undefined ? '' : ` — ${concern.reason}`}${concernNote(resolved)}`,
          payload: zonePayload(resolved, concern?.decision === 'ask' ? concern.file : undefined),
          required: true,
          presentation: async () => {
            const before = await snapshotOf(resolved);
            return presentChange({ resolved, before, after: Buffer.from(parsed.args.content, 'utf8'), operation: 'write' });
          },
        }),
      });
    },
    async execute(args, options) {
      options?.signal?.throwIfAborted();
      const { path, content } = argumentsOrThrow({ tool: name, schema: writeFileSchema, args });
      const resolved = await resolveForExecution({ context, path, operation: 'write', authorization: options?.authorization });
      const after = Buffer.from(content, 'utf8');
      const before = await snapshotOf(resolved);
      if (before.kind !== 'missing') requireFile({ snapshot: before, shown: resolved.shown, missingHint: '' });
      if (before.kind === 'file') assertSingleLinkOrApproved({ links: before.links, identity: fileIdentity(before), shown: resolved.shown, operation: 'write', authorization: options?.authorization });
      assertStillApproved({
        approvedPresentation: options?.approvedPresentation,
        current: { operation: 'write', zone: resolved.zone.name, path: resolved.relative, sha256: before.kind === 'file' ? before.sha256 : null },
        tool: name,
        shown: resolved.shown,
      });
      await atEntry({ resolved, createMissing: true }, (location) =>
        before.kind === 'file' ? replaceFile({ ...location, tool: name, content: after, expected: before }) : createFile({ ...location, tool: name, content: after }),
      );
      return { path: resolved.shown, zone: resolved.zone.name, bytes: after.length, created: before.kind === 'missing' };
    },
  };
}

/**
 * The presentation of a change to a file, carrying the state it was built
 * from so execution can refuse when the file changed since.
 *
 * @example
 * return presentChange({ resolved, before: await snapshotOf(resolved), after, operation: 'edit' });
 */
export function presentChange(options: { resolved: ResolvedPath; before: FileSnapshot; after: Buffer; operation: FileOperation }): Presentation {
  const { resolved, before, after } = options;
  if (before.kind !== 'missing') requireFile({ snapshot: before, shown: resolved.shown, missingHint: '' });
  const presentation = renderFileChange({ shown: resolved.shown, before, after });
  presentation.metadata = {
    ...presentation.metadata,
    ...approvedStateMetadata({ operation: options.operation, zone: resolved.zone.name, path: resolved.relative, sha256: before.kind === 'file' ? before.sha256 : null }),
  };
  return presentation;
}
