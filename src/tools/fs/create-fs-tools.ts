import { realpathSync } from 'node:fs';
import path from 'node:path';
import { ToolgateError } from '../../core/errors/toolgate-error.ts';
import type { BuiltinTool } from '../builtin-tool.ts';
import { createDeleteFileTool } from './delete-file-tool.ts';
import { createEditFileTool } from './edit-file-tool.ts';
import type { FsToolContext } from './fs-tool-support.ts';
import { createListDirTool } from './list-dir-tool.ts';
import { createMoveFileTool } from './move-file-tool.ts';
import { createReadFileTool } from './read-file-tool.ts';
import { createWriteFileTool } from './write-file-tool.ts';
import type { Zone } from './zones.ts';
import { realPathOf } from '../../filesystem/real-path-of.ts';

/** What `read_file` returns at most, unless told otherwise. */
export const DEFAULT_MAX_READ_BYTES = 1024 * 1024;

/**
 * The filesystem toolset: `read_file`, `write_file`, `edit_file`,
 * `delete_file`, `move_file`, `list_dir`. Each works through the gate (its
 * own `checkApproval`) and as a Vercel AI SDK tool. Relative paths resolve
 * against `cwd`, the project root.
 *
 * @example
 * const zones = zonesFromPolicy({ policy, policyDirectory });
 * const gate = createGate({ policy, tools: createFsTools({ zones, cwd: projectRoot, protectedPaths: [policyFile, '.toolgate'] }) });
 */
export function createFsTools(options: { zones: readonly Zone[]; cwd: string; maxReadBytes?: number; protectedPaths?: readonly string[] }): BuiltinTool[] {
  const absolute = path.resolve(options.cwd);
  let cwd: string;
  try {
    // Real, so the paths shown to people are relative to the same tree the zone roots live in.
    cwd = realpathSync.native(absolute);
  } catch {
    cwd = absolute;
  }
  const maxReadBytes = options.maxReadBytes ?? DEFAULT_MAX_READ_BYTES;
  if (!Number.isSafeInteger(maxReadBytes) || maxReadBytes <= 0) throw new ToolgateError({ code: 'USAGE', message: `maxReadBytes must be a positive integer, got ${maxReadBytes}` });
  const protectedPaths = (options.protectedPaths ?? []).map(realPathOf);
  const context: FsToolContext = { zones: options.zones, cwd, maxReadBytes, protectedPaths };
  return [
    createReadFileTool(context),
    createWriteFileTool(context),
    createEditFileTool(context),
    createDeleteFileTool(context),
    createMoveFileTool(context),
    createListDirTool(context),
  ];
}
