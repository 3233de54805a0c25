import { lstatSync } from 'node:fs';
import { z } from 'zod';
import { blockCall, type ApprovalCheckResult } from '../../core/tool-declaration.ts';
import type { Decision } from '../../core/types.ts';
import type { BuiltinTool, ToolExecutionOptions } from '../builtin-tool.ts';
import { approvedStateMetadata, assertStillApproved } from './approved-state.ts';
import { moveFile, readSnapshot } from './file-operations.ts';
import {
  CONTENT_LIMIT_BYTES,
  atEntry,
  argumentsOrThrow,
  blockedReason,
  concernNote,
  parseArguments,
  requireFile,
  resolveForCheck,
  resolveForExecution,
  snapshotOf,
  zonePayload,
  type FsToolContext,
  type ResolvedPath,
} from './fs-tool-support.ts';
import { describeBytes } from './render-file-change.ts';

export const moveFileSchema = z.strictObject({
  source: z.string().min(1).describe('The file to move, relative to the project root or absolute.'),
  destination: z.string().min(1).describe('Where it goes, including the new file name; it must not exist yet.'),
});

export type MoveFileArguments = z.infer<typeof moveFileSchema>;

export interface MoveFileResult {
  source: string;
  destination: string;
  sourceZone: string;
  destinationZone: string;
}

const STRICTNESS: Record<Decision, number> = { allow: 0, ask: 1, block: 2 };

/**
 * `move_file`: moves one file. It is a delete at the source and a write at
 * the destination: both zones must permit it, the stricter approval wins,
 * read-only zones refuse either end, and an existing destination is never
 * replaced.
 *
 * @example
 * await moveFile.execute({ source: 'ws/draft.md', destination: 'ws/final.md' });
 */
export function createMoveFileTool(context: FsToolContext): BuiltinTool<MoveFileArguments, MoveFileResult> {
  const name = 'move_file';
  return {
    name,
    description: 'Move or rename one file between or within writable zones. The destination must not exist.',
    inputSchema: moveFileSchema,
    checkApproval(call): ApprovalCheckResult {
      const parsed = parseArguments({ tool: name, schema: moveFileSchema, args: call.args });
      if (!parsed.ok) return blockCall(`invalid arguments for ${name}: ${parsed.problems.join('; ')}`);
      const source = resolveForCheck({ context, path: parsed.args.source, operation: 'delete' });
      if ('reason' in source) return blockCall(`source: ${source.reason}`);
      const destination = resolveForCheck({ context, path: parsed.args.destination, operation: 'write' });
      if ('reason' in destination) return blockCall(`destination: ${destination.reason}`);
      if (!source.exists) return blockCall(`${source.shown} does not exist; nothing to move`);
      // A directory would carry every name inside it (`.envrc`, `.vscode/tasks.json`, toolgate's own files) past the checks made for one file.
      if (isDirectory(source.absolute)) return blockCall(`${source.shown} is a directory; move_file moves one file (moving a directory would place every file inside it unchecked)`);
      if (source.absolute === destination.absolute) return blockCall(`${source.shown} and ${destination.shown} are the same file`);
      if (destination.exists) return blockCall(`${destination.shown} already exists; move_file never replaces a file. Delete it first or choose another destination`);
      // A move into a zone that reads more freely makes the file readable there: the source zone's read counts then (a read-blocked zone stays unread).
      const readHere = STRICTNESS[destination.zone.approval.read] < STRICTNESS[source.zone.approval.read] ? source.zone.approval.read : 'allow';
      if (readHere === 'block') return blockCall(`moving ${source.shown} into zone ${destination.zone.name} would make it readable there: ${blockedReason({ zone: source.zone, operation: 'read', shown: source.shown })}`);
      const sourceDecision = STRICTNESS[readHere] > STRICTNESS[source.zone.approval.delete] ? readHere : source.zone.approval.delete;
      const destinationDecision = destination.zone.approval.write;
      if (sourceDecision === 'block') return blockCall(`moving needs a delete at the source: ${blockedReason({ zone: source.zone, operation: 'delete', shown: source.shown })}`);
      if (destinationDecision === 'block') return blockCall(`moving needs a write at the destination: ${blockedReason({ zone: destination.zone, operation: 'write', shown: destination.shown })}`);
      if (Math.max(STRICTNESS[sourceDecision], STRICTNESS[destinationDecision]) === STRICTNESS.allow) return null;
      return {
        tool: name,
        description: `Move ${source.shown} → ${destination.shown} (${zones(source, destination)})${concernNote(source)}${concernNote(destination)}`,
        payload: { source: zonePayload(source), destination: zonePayload(destination) },
        required: true,
        presentation: async () => {
          const before = requireFile({ snapshot: await snapshotOf(source), shown: source.shown, missingHint: 'nothing to move' });
          return {
            type: 'text',
            content: `Move ${source.shown} → ${destination.shown}\n${zones(source, destination)}, ${describeBytes(before.size)}`,
            metadata: approvedStateMetadata({
              operation: 'move',
              zone: source.zone.name,
              path: source.relative,
              sha256: before.sha256,
              destination: zonePayload(destination),
            }),
          };
        },
      };
    },
    async execute(args, options) {
      options?.signal?.throwIfAborted();
      const parsed = argumentsOrThrow({ tool: name, schema: moveFileSchema, args });
      // Each end is held to its own half of what was approved ({source, destination}), as one path is for the other tools.
      const ends = approvedEnds(options?.authorization);
      const source = await resolveForExecution({ context, path: parsed.source, operation: 'delete', authorization: ends.source });
      const destination = await resolveForExecution({ context, path: parsed.destination, operation: 'write', authorization: ends.destination });
      await atEntry({ resolved: source, createMissing: false }, async (sourceLocation) => {
        const file = requireFile({ snapshot: await readSnapshot({ ...sourceLocation, contentLimit: CONTENT_LIMIT_BYTES }), shown: source.shown, missingHint: 'nothing to move' });
        assertStillApproved({
          approvedPresentation: options?.approvedPresentation,
          current: { operation: 'move', zone: source.zone.name, path: source.relative, sha256: file.sha256, destination: zonePayload(destination) },
          tool: name,
          shown: source.shown,
        });
        await atEntry({ resolved: destination, createMissing: true }, (destinationLocation) =>
          moveFile({ source: sourceLocation, destination: destinationLocation, tool: name, expected: file }),
        );
      });
      return { source: source.shown, destination: destination.shown, sourceZone: source.zone.name, destinationZone: destination.zone.name };
    },
  };
}

/**
 * The authorization each end of a move is checked against: an approval's
 * payload `{source, destination}` split in two, so that a path swapped
 * since (a directory replaced by a symlink) is refused at either end.
 */
function approvedEnds(authorization: ToolExecutionOptions['authorization']): { source: ToolExecutionOptions['authorization']; destination: ToolExecutionOptions['authorization'] } {
  const payload = authorization?.payload as { source?: unknown; destination?: unknown } | undefined;
  if (authorization?.decision !== 'approved' || typeof payload !== 'object' || payload === null || !('source' in payload) || !('destination' in payload)) {
    return { source: authorization, destination: authorization };
  }
  return { source: { ...authorization, payload: payload.source }, destination: { ...authorization, payload: payload.destination } };
}

function zones(source: ResolvedPath, destination: ResolvedPath): string {
  return source.zone.name === destination.zone.name ? `zone ${source.zone.name}` : `zone ${source.zone.name} → zone ${destination.zone.name}`;
}

function isDirectory(absolute: string): boolean {
  try {
    return lstatSync(absolute, { throwIfNoEntry: false })?.isDirectory() === true;
  } catch {
    return false;
  }
}
