/**
 * A file tool's wider "approve always" (issue 38): "write_file of any file
 * under notes/ in zone ws, whatever its content". The policy has no line
 * for a folder inside a zone, so its rule is written in the approvals' own
 * terms (`write_file: zone ws, path notes/**`). A later call is within it
 * when its path, resolved as the tool resolves it (symbolic links, `..`),
 * lies in that zone below that folder, and nothing but the zone's own
 * approval asks about it: a file toolgate or another program would load
 * (`.git/hooks`, a policy), or a hard-linked one, is asked about every time.
 */
import path from 'node:path';
import type { AlwaysScope, ToolCall } from '../../core/types.ts';
import { parseArguments, resolveForCheck, type FsToolContext } from './fs-tool-support.ts';
import { regularFileConcern } from './regular-file-check.ts';
import type { z } from 'zod';

export const FOLDER_SCOPE_ID = 'folder';

interface FolderScopeMatch {
  zone: string;
  /** A folder relative to the zone root, in `/` form, without `.` or `..` segments. */
  under: string;
}

/**
 * `alwaysScopes` and `withinAlwaysScope` for a tool that writes one file
 * named by its `path` argument.
 *
 * @example
 * return { name, checkApproval, ...folderAlwaysScope({ context, tool: name, schema: writeFileSchema }) };
 */
export function folderAlwaysScope(options: { context: FsToolContext; tool: string; schema: z.ZodType<{ path: string }> }) {
  const { context, tool } = options;

  /** The call's zone and path when nothing but the zone's approval asks about it. */
  function plainWrite(call: ToolCall): { zone: string; relative: string } | undefined {
    const parsed = parseArguments({ tool, schema: options.schema, args: call.args });
    if (!parsed.ok) return undefined;
    const resolved = resolveForCheck({ context, path: parsed.args.path, operation: 'write' });
    if ('reason' in resolved || resolved.concern !== undefined) return undefined;
    if (regularFileConcern({ absolute: resolved.absolute, shown: resolved.shown, operation: 'write' }) !== undefined) return undefined;
    return { zone: resolved.zone.name, relative: resolved.relative.split(path.sep).join('/') };
  }

  function render(match: FolderScopeMatch): AlwaysScope {
    return {
      id: FOLDER_SCOPE_ID,
      text: `${tool} of any file under ${JSON.stringify(`${match.under}/`)} in zone ${match.zone}, whatever its content (not a file another program loads, such as git hooks or toolgate's own)`,
      rule: `${tool}: zone ${match.zone}, path ${JSON.stringify(`${match.under}/**`)}`,
      match: { zone: match.zone, under: match.under },
    };
  }

  return {
    alwaysScopes(call: ToolCall): AlwaysScope[] {
      const write = plainWrite(call);
      if (write === undefined) return [];
      const under = path.posix.dirname(write.relative);
      // A file at the zone's root has no folder narrower than the zone: "always" for the zone is the policy's to say.
      if (under === '.' || under === '' || !isFolder(under)) return [];
      return [render({ zone: write.zone, under })];
    },
    withinAlwaysScope(call: ToolCall, kept: AlwaysScope): boolean {
      const scope = kept.id === FOLDER_SCOPE_ID ? readFolderScope(kept.match) : undefined;
      // The words and the rule kept are the ones this tool shows for that folder, or the scope covers nothing.
      if (scope === undefined || render(scope).text !== kept.text || render(scope).rule !== kept.rule) return false;
      const write = plainWrite(call);
      if (scope === undefined || write === undefined) return false;
      return write.zone === scope.zone && write.relative.startsWith(`${scope.under}/`);
    },
  };
}

function readFolderScope(match: unknown): FolderScopeMatch | undefined {
  if (typeof match !== 'object' || match === null || Array.isArray(match)) return undefined;
  const keys = Object.keys(match).sort();
  if (keys.length !== 2 || keys[0] !== 'under' || keys[1] !== 'zone') return undefined;
  const { zone, under } = match as Record<string, unknown>;
  if (typeof zone !== 'string' || zone === '' || typeof under !== 'string' || !isFolder(under)) return undefined;
  return { zone, under };
}

/** A relative folder in `/` form with no empty, `.` or `..` segment (so "under" means what it says). */
function isFolder(folder: string): boolean {
  return folder.length > 0 && folder.length <= 4096 && !folder.includes('\0') && folder.split('/').every((segment) => segment !== '' && segment !== '.' && segment !== '..');
}
