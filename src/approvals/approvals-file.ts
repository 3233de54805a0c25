import { makeDirectoriesSync } from '../filesystem/make-directories.ts';
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { statSync } from '../filesystem/file-lookups.ts';
import { withFileLock } from './file-lock.ts';
import path from 'node:path';
import { z } from 'zod';
import { ALWAYS_SCOPE_KEY, readScopedPayload, scopedPayload } from '../core/always-scopes.ts';
import { toolKey } from '../core/approval-memory.ts';
import { ToolgateError } from '../core/errors/toolgate-error.ts';
import type { AlwaysApprovals } from '../core/gate.ts';
import type { AlwaysScope } from '../core/types.ts';
import { redact } from '../core/redact.ts';

/** The schema version of the approvals file. */
export const APPROVALS_SCHEMA_VERSION = 1;

const approvalRecord = z.strictObject({
  id: z.string(),
  tool: z.string(),
  identity: z.string().nullable(),
  /** sha256 of the tool identity and the canonical payload fingerprint. */
  fingerprint: z.string(),
  description: z.string(),
  /** A redacted, possibly shortened copy of the payload, for people to read. */
  payload_preview: z.string(),
  created_at: z.string(),
  /** When toolgate saw the tool under another identity (its definition or server changed): the approval no longer applies. */
  voided_at: z.string().optional(),
  /** The identity the tool had then. */
  voided_for: z.string().optional(),
});

const approvalsDocument = z.strictObject({
  v: z.literal(APPROVALS_SCHEMA_VERSION),
  approvals: z.array(approvalRecord),
});

export type ApprovalRecord = z.infer<typeof approvalRecord>;

export interface ApprovalsFile extends AlwaysApprovals {
  readonly path: string;
  list(): ApprovalRecord[];
  /** Removes approvals by id (or id prefix of at least 6 characters); returns the removed ones. */
  revoke(ids: readonly string[]): ApprovalRecord[];
  revokeAll(): ApprovalRecord[];
  /**
   * Marks the approvals of `tool` under any other identity as voided (they
   * never matched a call of the tool as it is now; the mark tells people
   * why). Returns the ones marked now.
   */
  retire(entry: { tool: string; identity: string }): ApprovalRecord[];
}

/**
 * "Approve always", kept in a file of its own beside the policy (never inside
 * it: the policy is the user's, and a prompt must never edit it). The file is
 * re-read whenever it changes on disk, so a revoke from another terminal takes
 * effect at the next call; every write is atomic (temporary file, fsync,
 * rename), so a crash leaves the old file or the new one, never half of one.
 * Every change reads the file and writes it under a lock (`file-lock.ts`),
 * so that two processes (a gateway and `toolgate run`, say) adding at once
 * both keep their approvals.
 *
 * @example
 * const approvals = openApprovalsFile({ path: '.toolgate/approvals.json', redactKeys: policy.redact.keys });
 * const gate = createGate({ policy, always: approvals });
 */
export function openApprovalsFile(options: { path: string; redactKeys?: ReadonlySet<string>; clock?: () => Date }): ApprovalsFile {
  const file = options.path;
  const clock = options.clock ?? (() => new Date());
  let records: ApprovalRecord[] = [];
  let fingerprints = new Set<string>();
  let scopes = new Map<string, AlwaysScope[]>();
  let loadedStamp = '';

  function stamp(): string {
    try {
      const stats = statSync(file);
      return `${stats.mtimeMs}:${stats.size}:${stats.ino}`;
    } catch {
      return 'missing';
    }
  }

  function load(): void {
    const current = stamp();
    if (current === loadedStamp) return;
    records = current === 'missing' ? [] : readRecords(file);
    // A voided approval never matches again, even once the tool's identity is back to the one it names: people were told it is dead.
    const live = records.filter((record) => record.voided_at === undefined);
    fingerprints = new Set(live.map((record) => record.fingerprint));
    scopes = scopesByTool(live);
    loadedStamp = current;
  }

  function save(next: ApprovalRecord[]): void {
    makeDirectoriesSync(path.dirname(file), 0o700);
    const temporary = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    const descriptor = openSync(temporary, 'wx', 0o600);
    try {
      writeSync(descriptor, `${JSON.stringify({ v: APPROVALS_SCHEMA_VERSION, approvals: next }, null, 2)}\n`);
      fsyncSync(descriptor);
    } finally {
      closeSync(descriptor);
    }
    renameSync(temporary, file);
    syncDirectory(path.dirname(file));
    loadedStamp = '';
    load();
  }

  /** A read-modify-write of the file: under its lock, from what is on disk now. */
  function change<Result>(work: () => Result): Result {
    makeDirectoriesSync(path.dirname(file), 0o700);
    return withFileLock(file, () => {
      loadedStamp = '';
      load();
      return work();
    });
  }

  load();

  return {
    path: file,
    has(entry) {
      try {
        load();
      } catch {
        // A damaged file approves nothing: asking again is the safe direction.
        return false;
      }
      // No approvals kept (the common case): the call's fingerprint is not worth working out.
      return fingerprints.size > 0 && fingerprints.has(approvalFingerprint(entry));
    },
    scoped(entry) {
      try {
        load();
      } catch {
        return [];
      }
      return scopes.get(scopesKey(entry)) ?? [];
    },
    async add(entry) {
      change(() => {
        const record = approvalRecordOf(entry, { redactKeys: options.redactKeys, at: clock() });
        if (fingerprints.has(record.fingerprint)) return;
        // Approved again after it was voided: the new record replaces the void one.
        save([...records.filter((existing) => existing.fingerprint !== record.fingerprint), record]);
      });
    },
    list() {
      load();
      return [...records];
    },
    revoke(ids) {
      return change(() => {
        const matches = (record: ApprovalRecord) => ids.some((id) => id.length >= 6 && record.id.startsWith(id));
        const removed = records.filter(matches);
        if (removed.length > 0) save(records.filter((record) => !matches(record)));
        return removed;
      });
    },
    revokeAll() {
      return change(() => {
        const removed = [...records];
        if (removed.length > 0) save([]);
        return removed;
      });
    },
    retire(entry) {
      load();
      const stale = (record: ApprovalRecord) => record.tool === entry.tool && record.identity !== null && record.identity !== entry.identity && record.voided_at === undefined;
      // Most calls find nothing to mark: no lock, no write.
      if (!records.some(stale)) return [];
      return change(() => {
        const marked: ApprovalRecord[] = [];
        const at = clock().toISOString();
        const next = records.map((record) => {
          if (!stale(record)) return record;
          const voided = { ...record, voided_at: at, voided_for: entry.identity };
          marked.push(voided);
          return voided;
        });
        if (marked.length > 0) save(next);
        return marked;
      });
    },
  };
}

/**
 * The scoped approvals (issue 38) among `records`, by tool and identity:
 * each one whose payload, read back from its preview, has the record's
 * fingerprint. One that does not (its rule or match edited by hand) is
 * left out: it covers nothing.
 */
export function scopesByTool(records: ReadonlyArray<Pick<ApprovalRecord, 'tool' | 'identity' | 'fingerprint' | 'payload_preview'>>): Map<string, AlwaysScope[]> {
  const byTool = new Map<string, AlwaysScope[]>();
  for (const record of records) {
    const scope = scopeOfRecord(record);
    if (scope === undefined) continue;
    const key = scopesKey({ tool: record.tool, identity: record.identity ?? undefined });
    byTool.set(key, [...(byTool.get(key) ?? []), scope]);
  }
  return byTool;
}

/** The scope a record keeps, when it keeps one intact. */
export function scopeOfRecord(record: Pick<ApprovalRecord, 'tool' | 'identity' | 'fingerprint' | 'payload_preview'>): AlwaysScope | undefined {
  if (!record.payload_preview.startsWith(`{"${ALWAYS_SCOPE_KEY}"`)) return undefined;
  let payload: unknown;
  try {
    payload = JSON.parse(record.payload_preview);
  } catch {
    return undefined;
  }
  const scope = readScopedPayload(payload);
  if (scope === undefined) return undefined;
  const intact = approvalFingerprint({ tool: record.tool, ...(record.identity === null ? {} : { identity: record.identity }), payload: scopedPayload(scope) }) === record.fingerprint;
  return intact ? scope : undefined;
}

export function scopesKey(entry: { tool: string; identity?: string | undefined }): string {
  return JSON.stringify([entry.tool, entry.identity ?? null]);
}

/** What an "approve always" matches a call by: sha256 of the tool, its identity and the payload's canonical fingerprint. */
export function approvalFingerprint(entry: { tool: string; identity?: string; payload: unknown }): string {
  return `sha256:${createHash('sha256').update(toolKey(entry)).digest('hex')}`;
}

/**
 * The record of a new "approve always", wherever it is kept (this file, or
 * the store servers share): its id, fingerprint and a redacted preview of
 * the payload for people to read.
 *
 * @example
 * approvalRecordOf({ tool: 'shell', payload: { command: 'ls' }, description: 'list' }, { at: new Date() }).id // 12 hex digits
 */
export function approvalRecordOf(
  entry: { tool: string; identity?: string; payload: unknown; description: string; scoped?: boolean },
  options: { redactKeys?: ReadonlySet<string> | undefined; at: Date },
): ApprovalRecord {
  const fingerprint = approvalFingerprint(entry);
  // A scope is kept whole, not redacted or cut: it is read back (and checked against the fingerprint) to match calls.
  // It holds no argument values beyond a command's words and a digest (always-scopes.ts), and its texts are bounded.
  const scoped = entry.scoped === true && readScopedPayload(entry.payload) !== undefined;
  const preview = scoped ? JSON.stringify(scopedPayload(readScopedPayload(entry.payload)!)) : (JSON.stringify(redact(entry.payload, options.redactKeys ?? new Set())) ?? 'null');
  return {
    id: fingerprint.slice('sha256:'.length, 'sha256:'.length + 12),
    tool: entry.tool,
    identity: entry.identity ?? null,
    fingerprint,
    description: entry.description,
    payload_preview: scoped || preview.length <= 500 ? preview : `${preview.slice(0, 497)}...`,
    created_at: options.at.toISOString(),
  };
}

function readRecords(file: string): ApprovalRecord[] {
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new ToolgateError({
      code: 'APPROVALS_FILE_INVALID',
      message: `${file}: not valid JSON (${(error as Error).message}). Fix it, or delete it to forget every "approve always".`,
    });
  }
  const parsed = approvalsDocument.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ToolgateError({
      code: 'APPROVALS_FILE_INVALID',
      message: `${file}: ${issue.path.join('.') || '(top level)'}: ${issue.message}. Fix it, or delete it to forget every "approve always".`,
    });
  }
  return parsed.data.approvals;
}

function syncDirectory(directory: string): void {
  try {
    const descriptor = openSync(directory, 'r');
    try {
      fsyncSync(descriptor);
    } finally {
      closeSync(descriptor);
    }
  } catch {
    // Some file systems cannot fsync a directory; the rename is still atomic.
  }
}
