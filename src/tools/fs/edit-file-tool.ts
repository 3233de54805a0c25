import { z } from 'zod';
import { blockCall } from '../../core/tool-declaration.ts';
import type { BuiltinTool } from '../builtin-tool.ts';
import { folderAlwaysScope } from './folder-always-scope.ts';
import { assertStillApproved } from './approved-state.ts';
import { FsEditNotApplicableError } from './errors/fs-edit-not-applicable-error.ts';
import { FsOperationError } from './errors/fs-operation-error.ts';
import { atEntry, argumentsOrThrow, blockedReason, concernNote, decide, parseArguments, requireFile, resolveForCheck, resolveForExecution, snapshotOf, zonePayload, type FsToolContext } from './fs-tool-support.ts';
import { replaceFile, type FileSnapshot } from './file-operations.ts';
import { assertSingleLinkOrApproved, atLeastAsk, fileIdentity, regularFileConcern } from './regular-file-check.ts';
import { describeBytes, isBinaryContent } from './render-file-change.ts';
import { presentChange } from './write-file-tool.ts';

export const editFileSchema = z.strictObject({
  path: z.string().min(1).describe('The file to edit, relative to the project root or absolute; it must lie in a writable zone.'),
  old_string: z.string().min(1).describe('The exact text to replace; it must occur exactly once in the file (include surrounding lines to make it unique).'),
  new_string: z.string().describe('The text that replaces old_string.'),
});

export type EditFileArguments = z.infer<typeof editFileSchema>;

export interface EditFileResult {
  path: string;
  zone: string;
  bytes: number;
}

/**
 * `edit_file`: an exact search and replace of one occurrence in an existing
 * text file. Refuses, with a message the model can act on, when the text
 * occurs zero or several times. Approval as for `write_file`, with a diff.
 *
 * @example
 * await editFile.execute({ path: 'ws/a.ts', old_string: 'let x = 1', new_string: 'let x = 2' });
 */
export function createEditFileTool(context: FsToolContext): BuiltinTool<EditFileArguments, EditFileResult> {
  const name = 'edit_file';
  return {
    name,
    description: 'Replace one exact occurrence of old_string with new_string in an existing text file inside a writable zone.',
    inputSchema: editFileSchema,
    ...folderAlwaysScope({ context, tool: name, schema: editFileSchema }),
    checkApproval(call) {
      const parsed = parseArguments({ tool: name, schema: editFileSchema, args: call.args });
      if (!parsed.ok) return blockCall(`invalid arguments for ${name}: ${parsed.problems.join('; ')}`);
      const resolved = resolveForCheck({ context, path: parsed.args.path, operation: 'write' });
      if ('reason' in resolved) return blockCall(resolved.reason);
      if (!resolved.exists) return blockCall(`${resolved.shown} does not exist; use write_file to create it`);
      // A FIFO or a device is refused before anything opens it; a hard-linked file needs a person.
      const concern = regularFileConcern({ absolute: resolved.absolute, shown: resolved.shown, operation: 'write' });
      if (concern?.decision === 'block') return blockCall(concern.reason);
      // An edit reads the file too: whether old_string occurs in it is an answer about its content (guessed a character at a time, the whole of it).
      if (resolved.zone.approval.read === 'block') return blockCall(`an edit reads the file it changes: ${blockedReason({ zone: resolved.zone, operation: 'read', shown: resolved.shown })}`);
      const writeOrRead = resolved.zone.approval.read === 'ask' ? atLeastAsk(resolved.zone.approval.write) : resolved.zone.approval.write;
      return decide({
        decision: concern === undefined ? writeOrRead : atLeastAsk(writeOrRead),
        blocked: () => blockedReason({ zone: resolved.zone, operation: 'write', shown: resolved.shown }),
        ...(concern === undefined ? { zone: { zone: resolved.zone, operation: 'write' } } : {}),
        request: () => ({
          tool: name,
          description: `Edit ${resolved.shown} (zone ${resolved.zone.name})${concern === undefined ? '' : ` — ${concern.reason}`}${concernNote(resolved)}`,
          payload: zonePayload(resolved, concern?.decision === 'ask' ? concern.file : undefined),
          required: true,
          presentation: async () => {
            const before = await snapshotOf(resolved);
            // An edit that cannot apply throws here: nobody is asked about it, and the model reads why.
            const after = applyEdit({ snapshot: before, shown: resolved.shown, oldString: parsed.args.old_string, newString: parsed.args.new_string });
            return presentChange({ resolved, before, after, operation: 'edit' });
          },
        }),
      });
    },
    async execute(args, options) {
      options?.signal?.throwIfAborted();
      const { path, old_string: oldString, new_string: newString } = argumentsOrThrow({ tool: name, schema: editFileSchema, args });
      const resolved = await resolveForExecution({ context, path, operation: 'write', authorization: options?.authorization });
      const before = await snapshotOf(resolved);
      const file = requireFile({ snapshot: before, shown: resolved.shown, missingHint: 'use write_file to create it' });
      assertSingleLinkOrApproved({ links: file.links, identity: fileIdentity(file), shown: resolved.shown, operation: 'write', authorization: options?.authorization });
      assertStillApproved({
        approvedPresentation: options?.approvedPresentation,
        current: { operation: 'edit', zone: resolved.zone.name, path: resolved.relative, sha256: file.sha256 },
        tool: name,
        shown: resolved.shown,
      });
      const after = applyEdit({ snapshot: file, shown: resolved.shown, oldString, newString });
      await atEntry({ resolved, createMissing: false }, (location) => replaceFile({ ...location, tool: name, content: after, expected: file }));
      return { path: resolved.shown, zone: resolved.zone.name, bytes: after.length };
    },
  };
}

/**
 * The file's new content with the single occurrence of `oldString`
 * replaced. Overlapping occurrences count: "aa" occurs twice in "aaa".
 *
 * @example
 * applyEdit({ snapshot, shown: 'ws/a.txt', oldString: 'red', newString: 'blue' })
 */
export function applyEdit(options: { snapshot: FileSnapshot; shown: string; oldString: string; newString: string }): Buffer {
  const { shown, oldString, newString } = options;
  const file = requireFile({ snapshot: options.snapshot, shown, missingHint: 'use write_file to create it' });
  if (file.content === undefined) throw new FsOperationError({ path: shown, message: `${shown} is too large to edit (${describeBytes(file.size)}); use write_file` });
  if (isBinaryContent(file.content)) throw new FsOperationError({ path: shown, message: `${shown} is a binary file (${describeBytes(file.size)}); edit_file edits text only` });
  const text = file.content.toString('utf8');
  const first = text.indexOf(oldString);
  let matches = first === -1 ? 0 : 1;
  if (first !== -1 && text.indexOf(oldString, first + 1) !== -1) {
    matches = 1;
    for (let at = text.indexOf(oldString, first + 1); at !== -1 && matches < 1000; at = text.indexOf(oldString, at + 1)) matches++;
  }
  if (matches !== 1) throw new FsEditNotApplicableError({ path: shown, matches });
  // Slicing, not String.replace: "$&" and friends in new_string must stay literal.
  return Buffer.from(text.slice(0, first) + newString + text.slice(first + oldString.length), 'utf8');
}
