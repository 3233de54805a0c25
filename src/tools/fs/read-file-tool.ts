import { stat } from 'node:fs/promises';
import { z } from 'zod';
import { blockCall } from '../../core/tool-declaration.ts';
import type { BuiltinTool } from '../builtin-tool.ts';
import { FsOperationError } from './errors/fs-operation-error.ts';
import { atEntry, argumentsOrThrow, blockedReason, decide, parseArguments, requireFile, resolveForCheck, resolveForExecution, zonePayload, type FsToolContext } from './fs-tool-support.ts';
import { readFileHead } from './file-operations.ts';
import { assertSingleLinkOrApproved, atLeastAsk, fileIdentity, regularFileConcern } from './regular-file-check.ts';
import { describeBytes, isBinaryContent } from './render-file-change.ts';

export const readFileSchema = z.strictObject({
  path: z.string().min(1).describe('The file to read, relative to the project root or absolute; it must lie in a zone.'),
});

export type ReadFileArguments = z.infer<typeof readFileSchema>;

export interface ReadFileResult {
  path: string;
  zone: string;
  content: string;
  bytes: number;
  /** True when only the first `maxReadBytes` bytes were returned. */
  truncated: boolean;
}

/**
 * `read_file`: a text file inside a zone. The zone's `approval.read`
 * decides (default allow); a file with more than one hard link asks, and
 * anything but a regular file (a FIFO, a device) is refused unopened.
 * Binary files are refused with their size; files larger than
 * `maxReadBytes` are cut and say so.
 *
 * @example
 * const readFile = createReadFileTool({ zones, cwd, maxReadBytes: 1 << 20 });
 * const { content } = await readFile.execute({ path: 'ws/notes.txt' });
 */
export function createReadFileTool(context: FsToolContext): BuiltinTool<ReadFileArguments, ReadFileResult> {
  const name = 'read_file';
  return {
    name,
    description: 'Read a text file inside one of the allowed zones. Returns its content (cut at a size limit, marked truncated).',
    inputSchema: readFileSchema,
    checkApproval(call) {
      const parsed = parseArguments({ tool: name, schema: readFileSchema, args: call.args });
      if (!parsed.ok) return blockCall(`invalid arguments for ${name}: ${parsed.problems.join('; ')}`);
      const resolved = resolveForCheck({ context, path: parsed.args.path, operation: 'read' });
      if ('reason' in resolved) return blockCall(resolved.reason);
      // A FIFO or a device is refused before anything opens it; a hard-linked file needs a person.
      const concern = regularFileConcern({ absolute: resolved.absolute, shown: resolved.shown, operation: 'read' });
      if (concern?.decision === 'block') return blockCall(concern.reason);
      return decide({
        decision: concern === undefined ? resolved.zone.approval.read : atLeastAsk(resolved.zone.approval.read),
        blocked: () => blockedReason({ zone: resolved.zone, operation: 'read', shown: resolved.shown }),
        ...(concern === undefined ? { zone: { zone: resolved.zone, operation: 'read' } } : {}),
        request: () => ({
          tool: name,
          description: `Read ${resolved.shown} (zone ${resolved.zone.name})${concern === undefined ? '' : ` — ${concern.reason}`}`,
          payload: zonePayload(resolved, concern?.decision === 'ask' ? concern.file : undefined),
          required: true,
          presentation: async () => {
            const size = await stat(resolved.absolute).then((status) => describeBytes(status.size), () => 'size unknown');
            return { type: 'text', content: `Read ${resolved.shown} (zone ${resolved.zone.name}, ${size})`, metadata: { ...zonePayload(resolved), operation: 'read' } };
          },
        }),
      });
    },
    async execute(args, options) {
      options?.signal?.throwIfAborted();
      const { path } = argumentsOrThrow({ tool: name, schema: readFileSchema, args });
      const resolved = await resolveForExecution({ context, path, operation: 'read', authorization: options?.authorization });
      const head = await atEntry({ resolved, createMissing: false }, (location) => readFileHead({ ...location, limit: context.maxReadBytes })).catch((error) => {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'missing' as const };
        throw error;
      });
      const file = requireFile({ snapshot: head, shown: resolved.shown, missingHint: 'use list_dir to see which files exist' });
      // Counted on the descriptor that was read: a link made after the check is caught here.
      assertSingleLinkOrApproved({ links: file.links, identity: fileIdentity(file), shown: resolved.shown, operation: 'read', authorization: options?.authorization });
      return textResult({ shown: resolved.shown, zone: resolved.zone.name, content: file.content, bytes: file.size, truncated: file.content.length < file.size });
    },
  };
}

function textResult(options: { shown: string; zone: string; content: Buffer; bytes: number; truncated: boolean }): ReadFileResult {
  let content = options.content;
  if (options.truncated) {
    // Do not cut a multi-byte character in half: back up to a character boundary.
    let end = content.length;
    while (end > 0 && end > content.length - 4 && (content[end - 1]! & 0xc0) === 0x80) end--;
    if (end > 0 && content[end - 1]! >= 0xc0) end--;
    content = content.subarray(0, end);
  }
  if (isBinaryContent(content)) {
    throw new FsOperationError({ path: options.shown, message: `${options.shown} is a binary file (${describeBytes(options.bytes)}); read_file returns text only` });
  }
  return { path: options.shown, zone: options.zone, content: content.toString('utf8'), bytes: options.bytes, truncated: options.truncated };
}
