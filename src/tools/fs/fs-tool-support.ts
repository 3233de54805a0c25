/**
 * What every filesystem tool shares: argument parsing, resolution (a block
 * at check time, an error at execution), the zone's decision, and opening
 * the verified directory a file lives in.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { z } from 'zod';
import { allowCall, blockCall, type ApprovalCheckResult } from '../../core/tool-declaration.ts';
import type { ApprovalRequest, Decision } from '../../core/types.ts';
import { FsInvalidArgumentsError } from './errors/fs-invalid-arguments-error.ts';
import { FsOperationError } from './errors/fs-operation-error.ts';
import { FsPathRejectedError } from './errors/fs-path-rejected-error.ts';
import { readSnapshot, type EntryLocation, type FileSnapshot } from './file-operations.ts';
import { displayPath, isInsideDirectory, resolveZonePath, type ZoneOperation } from './resolve-zone-path.ts';
import { codeLoadingFile } from './code-loading-files.ts';
import { openVerifiedDirectory, type VerifiedDirectory } from './verified-directory.ts';
import type { Zone } from './zones.ts';
import type { ToolExecutionOptions } from '../builtin-tool.ts';
import { ownStateConcern } from '../../config/own-state-paths.ts';

/** What the tools are created with. `cwd` is realpath'ed once by `createFsTools`. */
export interface FsToolContext {
  zones: readonly Zone[];
  cwd: string;
  maxReadBytes: number;
  /** toolgate's own files (the policy, `.toolgate/`): never read, written, moved or deleted by a tool. Absolute, real. */
  protectedPaths: readonly string[];
}

/** A path that resolved inside a zone, with how it is shown to people and models. */
export interface ResolvedPath {
  zone: Zone;
  absolute: string;
  relative: string;
  exists: boolean;
  shown: string;
  /**
   * Set when the path is one toolgate would load as policy or state
   * (`sub/toolgate.yaml`, `sub/.toolgate/…`): the zone's approval for the
   * operation is then at least ask, and this says why, for the request.
   */
  concern?: string;
}

/** The largest file an edit, a diff or a stale-approval hash reads into memory. */
export const CONTENT_LIMIT_BYTES = 16 * 1024 * 1024;

/**
 * Validates arguments against a tool's strict schema.
 *
 * @example
 * const parsed = parseArguments({ tool: 'read_file', schema, args: call.args });
 */
export function parseArguments<Args>(options: { tool: string; schema: z.ZodType<Args>; args: unknown }): { ok: true; args: Args } | { ok: false; problems: string[] } {
  const result = options.schema.safeParse(options.args);
  if (result.success) return { ok: true, args: result.data };
  return { ok: false, problems: result.error.issues.map((issue) => `${issue.path.length === 0 ? 'arguments' : issue.path.join('.')}: ${issue.message}`) };
}

/**
 * Like `parseArguments`, for `execute`: throws `FsInvalidArgumentsError`.
 *
 * @example
 * const { path } = argumentsOrThrow({ tool: 'read_file', schema: readFileSchema, args });
 */
export function argumentsOrThrow<Args>(options: { tool: string; schema: z.ZodType<Args>; args: unknown }): Args {
  const parsed = parseArguments(options);
  if (!parsed.ok) throw new FsInvalidArgumentsError({ tool: options.tool, problems: parsed.problems });
  return parsed.args;
}

/**
 * Resolves for `checkApproval`: a rejected path is a reason, never an exception.
 *
 * @example
 * const resolved = resolveForCheck({ context, path: 'ws/a.txt', operation: 'write' });
 * if ('reason' in resolved) return blockCall(resolved.reason);
 */
export function resolveForCheck(options: { context: FsToolContext; path: string; operation: ZoneOperation }): ResolvedPath | { reason: string } {
  const { context } = options;
  const resolved = resolveZonePath({ zones: context.zones, path: options.path, cwd: context.cwd, operation: options.operation });
  if (!resolved.ok) return { reason: resolved.reason };
  const shown = displayPath({ cwd: context.cwd, absolute: resolved.absolute });
  // An agent that could edit its own policy or approvals would approve itself; and
  // the policy may hold MCP tokens, which the OS sandbox hides from the shell too.
  const guarded = context.protectedPaths.find((root) => isInsideDirectory({ root, candidate: resolved.absolute }));
  if (guarded !== undefined) return { reason: `${shown} is one of toolgate's own files (${guarded}); no tool may read or change it` };
  if (options.operation === 'read') return { ...resolved, shown };
  // A folder above an own file (renamed, deleted or replaced, it swaps the file), or a policy or state file toolgate would load.
  // Or git's metadata, or another tool's configuration that runs programs (code-loading-files.ts): asks in every zone.
  const loading = codeLoadingFile({ absolute: resolved.absolute, root: resolved.zone.root });
  const concern = ownStateConcern({ absolute: resolved.absolute, operation: options.operation, ownPaths: context.protectedPaths, shown }) ?? (loading === undefined ? undefined : { decision: 'ask' as const, reason: `${shown}, ${loading}` });
  if (concern === undefined) return { ...resolved, shown };
  if (concern.decision === 'block') return { reason: `${options.operation === 'write' ? 'writing' : 'deleting'} ${concern.reason}` };
  const approval = resolved.zone.approval;
  const stricter = approval[options.operation] === 'allow' ? 'ask' : approval[options.operation];
  return { ...resolved, shown, zone: { ...resolved.zone, approval: { ...approval, [options.operation]: stricter } }, concern: concern.reason };
}

/**
 * ` — why` for a request's description when the path is a policy or state
 * file toolgate would load, else ''.
 *
 * @example
 * description: `Write ${resolved.shown} (zone ${resolved.zone.name})${concernNote(resolved)}`
 */
export function concernNote(resolved: ResolvedPath): string {
  return resolved.concern === undefined ? '' : ` — changes ${resolved.concern}`;
}

/**
 * Resolves again at execution (the check may be stale): throws `FsPathRejectedError`, also for a zone that blocks.
 * Async although nothing in it waits, so that every refusal reaches `execute` as a rejection.
 *
 * @example
 * const resolved = await resolveForExecution({ context, path: args.path, operation: 'delete' });
 */
export async function resolveForExecution(options: {
  context: FsToolContext;
  path: string;
  operation: ZoneOperation;
  /** How the gate let the call through; the path must still resolve to what that covered. */
  authorization?: ToolExecutionOptions['authorization'];
}): Promise<ResolvedPath> {
  const resolved = resolveForCheck(options);
  if ('reason' in resolved) throw new FsPathRejectedError({ path: options.path, reason: resolved.reason });
  const decision = resolved.zone.approval[options.operation];
  if (decision === 'block') {
    throw new FsPathRejectedError({ path: resolved.shown, reason: blockedReason({ zone: resolved.zone, operation: options.operation, shown: resolved.shown }) });
  }
  const { authorization } = options;
  if (authorization?.decision === 'allow' && decision !== 'allow') {
    // Allowed without asking when checked, but the path now leads where a person must decide.
    throw new FsPathRejectedError({ path: resolved.shown, reason: `${resolved.shown} now resolves into zone ${resolved.zone.name}, where this needs approval; nothing was done, call again` });
  }
  if (authorization?.decision === 'approved' && isZonePath(authorization.payload)) {
    const now = zonePayload(resolved);
    if (now.zone !== authorization.payload.zone || now.path !== authorization.payload.path) {
      throw new FsPathRejectedError({
        path: resolved.shown,
        reason: `${resolved.shown} is not what was approved (${authorization.payload.zone}:${authorization.payload.path}): the path changed since; nothing was done, call again`,
      });
    }
  }
  return resolved;
}

function isZonePath(value: unknown): value is { zone: string; path: string; file?: string } {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Record<string, unknown>;
  const keys = Object.keys(candidate).length;
  return typeof candidate.zone === 'string' && typeof candidate.path === 'string' && (keys === 2 || (keys === 3 && typeof candidate.file === 'string'));
}

/**
 * Turns a zone's decision into what `checkApproval` returns: null (allow),
 * a block, or the request built by `request`.
 *
 * @example
 * return decide({ decision: zone.approval.write, blocked: () => blockedReason(...), request: () => ({ ... }) });
 */
export function decide(options: { decision: Decision; blocked: () => string; request: () => ApprovalRequest; zone?: { zone: Zone; operation: ZoneOperation } }): ApprovalCheckResult {
  // The zone's approval decided, when the caller says so (not a concern about the file that raised it): named for check --explain and the audit log.
  const rule = options.zone?.zone.label === undefined ? undefined : `${options.zone.zone.label}.approval.${options.zone.operation} (zone ${options.zone.zone.name}: ${options.decision})`;
  if (options.decision === 'allow') return rule === undefined ? null : allowCall(`zone ${options.zone!.zone.name} allows ${options.zone!.operation}s`, { rule });
  if (options.decision === 'block') return blockCall(options.blocked(), { rule });
  const request = options.request();
  return rule === undefined ? request : { ...request, rule };
}

/**
 * `deleting ws/a.txt is blocked: zone workspace has approval.delete: block`.
 *
 * @example
 * blockCall(blockedReason({ zone, operation: 'delete', shown: 'archive/old.txt' }))
 */
export function blockedReason(options: { zone: Zone; operation: ZoneOperation; shown: string }): string {
  const verb = { read: 'reading', write: 'writing', delete: 'deleting' }[options.operation];
  return `${verb} ${options.shown} is blocked: zone ${options.zone.name} has approval.${options.operation}: block`;
}

/**
 * The approve-for-session fingerprint (seed 001): zone name and zone-relative path.
 *
 * @example
 * zonePayload(resolved) // { zone: 'workspace', path: 'notes.txt' }
 */
export function zonePayload(resolved: ResolvedPath, file?: string): { zone: string; path: string; file?: string } {
  // `file` (device:inode) binds an approval of a hard-linked file to that file: another file given the name later is not covered.
  return file === undefined ? { zone: resolved.zone.name, path: resolved.relative } : { zone: resolved.zone.name, path: resolved.relative, file };
}

/**
 * Opens the verified directory that holds `resolved` and runs `use` with
 * the entry's location; the directory is closed afterwards. With
 * `createMissing`, missing parent directories inside the zone are created
 * one at a time, each verified before the next.
 *
 * @example
 * await atEntry({ resolved, createMissing: false }, (location) => readSnapshot({ ...location, contentLimit }));
 */
export async function atEntry<Result>(
  options: { resolved: ResolvedPath; createMissing: boolean },
  use: (location: EntryLocation) => Promise<Result>,
): Promise<Result> {
  const { resolved } = options;
  const parent = path.dirname(resolved.absolute);
  const directory = await openParent({ parent, resolved, createMissing: options.createMissing });
  try {
    return await use({ directory, name: path.basename(resolved.absolute), shown: resolved.shown });
  } finally {
    await directory.close();
  }
}

/**
 * The current state of the file at `resolved`; missing when it or its
 * parent directory does not exist.
 *
 * @example
 * const snapshot = await snapshotOf(resolved);
 */
export async function snapshotOf(resolved: ResolvedPath): Promise<FileSnapshot> {
  try {
    return await atEntry({ resolved, createMissing: false }, (location) => readSnapshot({ ...location, contentLimit: CONTENT_LIMIT_BYTES }));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'missing' };
    throw error;
  }
}

/**
 * A file snapshot or a clear error for anything that is not a regular file.
 *
 * @example
 * const file = requireFile({ snapshot, shown: 'ws/a.txt', missingHint: 'use write_file to create it' });
 */
export function requireFile<Snapshot extends { kind: string }>(options: { snapshot: Snapshot; shown: string; missingHint: string }): Extract<Snapshot, { kind: 'file' }> {
  const { snapshot, shown } = options;
  if (snapshot.kind === 'missing') throw new FsOperationError({ path: shown, message: `${shown} does not exist; ${options.missingHint}` });
  if (snapshot.kind === 'directory') throw new FsOperationError({ path: shown, message: `${shown} is a directory; this tool works on files (use list_dir to see what it holds)` });
  if (snapshot.kind !== 'file') throw new FsOperationError({ path: shown, message: `${shown} is not a regular file (a device, socket or FIFO); it is not touched` });
  return snapshot as Extract<Snapshot, { kind: 'file' }>;
}

async function openParent(options: { parent: string; resolved: ResolvedPath; createMissing: boolean }): Promise<VerifiedDirectory> {
  const { resolved } = options;
  const missing: string[] = [];
  let current = options.parent;
  let directory: VerifiedDirectory;
  for (;;) {
    try {
      directory = await openVerifiedDirectory({ absolute: current, shown: resolved.shown });
      break;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      const canCreate = options.createMissing && code === 'ENOENT' && current !== resolved.zone.root && isInsideDirectory({ root: resolved.zone.root, candidate: current });
      if (code === 'ENOTDIR') throw new FsOperationError({ path: resolved.shown, message: `a parent of ${resolved.shown} is a file, not a directory`, cause: error });
      if (!canCreate) throw error;
      missing.unshift(path.basename(current));
      current = path.dirname(current);
    }
  }
  for (const name of missing) {
    try {
      await mkdir(directory.entry(name));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
        await directory.close();
        throw error;
      }
    }
    // Opened by its expected real path and verified, so a symlink planted meanwhile is refused.
    const next = await openVerifiedDirectory({ absolute: path.join(directory.absolute, name), shown: resolved.shown }).finally(() => directory.close());
    directory = next;
  }
  return directory;
}
