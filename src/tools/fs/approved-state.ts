/**
 * What you approved is what runs. A presentation records the state it was
 * built from (zone, zone-relative path, sha256 of the file it diffed or
 * null when the file did not exist); at execution the tool compares that
 * record with the file as it is now and refuses on any difference.
 */
import type { Presentation } from '../../core/types.ts';
import { FsChangedSinceApprovalError } from './errors/fs-changed-since-approval-error.ts';

export type FileOperation = 'write' | 'edit' | 'delete' | 'move';

/** The state a person approved a change against. */
export interface ApprovedFileState {
  operation: FileOperation;
  zone: string;
  /** Zone-relative. */
  path: string;
  /** The content's sha256 in hex, or null when the file did not exist. */
  sha256: string | null;
  destination?: { zone: string; path: string };
}

/**
 * The presentation metadata that records `state`.
 *
 * @example
 * presentation.metadata = { ...presentation.metadata, ...approvedStateMetadata(state) };
 */
export function approvedStateMetadata(state: ApprovedFileState): Record<string, unknown> {
  const metadata: Record<string, unknown> = {
    operation: state.operation,
    zone: state.zone,
    path: state.path,
    sha256: state.sha256,
    existed: state.sha256 !== null,
  };
  if (state.destination !== undefined) metadata.destination = { ...state.destination };
  return metadata;
}

/**
 * Throws `FsChangedSinceApprovalError` when a person approved a presentation
 * and the file (or where its path leads) is no longer what it showed. No
 * presentation means a rule, memory or a mode approved: nothing to compare.
 * A presentation without a record fails closed.
 *
 * @example
 * assertStillApproved({ approvedPresentation: options?.approvedPresentation, current, tool: 'write_file', shown: 'ws/a.txt' });
 */
export function assertStillApproved(options: {
  approvedPresentation: Presentation | undefined;
  current: ApprovedFileState;
  tool: string;
  shown: string;
}): void {
  const { approvedPresentation, current, tool, shown } = options;
  if (approvedPresentation === undefined) return;
  const metadata = approvedPresentation.metadata ?? {};
  const fail = (detail: string) => new FsChangedSinceApprovalError({ path: shown, tool, detail });
  if (typeof metadata.operation !== 'string' || typeof metadata.zone !== 'string' || typeof metadata.path !== 'string' || !('sha256' in metadata)) {
    throw fail('the approved prompt does not record the state of the file, so it cannot be compared');
  }
  if (metadata.operation !== current.operation) throw fail(`the approved prompt was for ${metadata.operation}, not ${current.operation}`);
  if (metadata.zone !== current.zone || metadata.path !== current.path) {
    throw fail(`the approved prompt was for ${metadata.path} in zone ${metadata.zone}; the path now leads to ${current.path} in zone ${current.zone}`);
  }
  const approvedDestination = metadata.destination as { zone?: unknown; path?: unknown } | undefined;
  if (
    (approvedDestination === undefined) !== (current.destination === undefined) ||
    (current.destination !== undefined && (approvedDestination?.zone !== current.destination.zone || approvedDestination?.path !== current.destination.path))
  ) {
    throw fail('the destination is not the one that was approved');
  }
  const approved = metadata.sha256;
  if (approved === current.sha256) return;
  if (approved === null) throw fail('it did not exist when approved and exists now');
  if (current.sha256 === null) throw fail('it existed when approved and is gone now');
  throw fail(`its content changed: sha256 ${String(approved).slice(0, 12)}… when approved, ${current.sha256.slice(0, 12)}… now`);
}
