/**
 * What the audit log syncs, with node's own file system: every fdatasync
 * goes to a descriptor of the log file itself, whether it runs on the event
 * loop's thread or (after a slow one) on the thread pool, and a record
 * resolves only after one has finished.
 * (Which file a descriptor names is read back from /proc, so this runs on Linux.)
 */
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AUDIT_SCHEMA_VERSION, type AuditEntry } from '../core/audit-entry.ts';
import { createAuditLog, FAST_SYNCS_BEFORE_INLINE } from './audit-log.ts';

const syncs = vi.hoisted(() => ({ files: [] as string[], finished: 0 }));

vi.mock('node:fs', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs')>();
  return {
    ...actual,
    fdatasyncSync(descriptor: number) {
      syncs.files.push(actual.readlinkSync(`/proc/self/fd/${descriptor}`));
      actual.fdatasyncSync(descriptor);
      syncs.finished++;
    },
  };
});

vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs/promises')>();
  const { readlinkSync } = await vi.importActual<typeof import('node:fs')>('node:fs');
  return {
    ...actual,
    async open(...args: Parameters<typeof actual.open>) {
      const handle = await actual.open(...args);
      const datasync = handle.datasync.bind(handle);
      handle.datasync = async () => {
        syncs.files.push(readlinkSync(`/proc/self/fd/${handle.fd}`));
        await datasync();
        syncs.finished++;
      };
      return handle;
    },
  };
});

function entry(index: number): AuditEntry {
  return {
    v: AUDIT_SCHEMA_VERSION,
    kind: 'verdict',
    time: new Date(0).toISOString(),
    session: 's1',
    chat: null,
    run: null,
    caller: null,
    call_id: `call-${index}`,
    tool: 'read_text_file',
    args: { path: 'a.txt' },
    verdict: 'allow',
    decision: 'allow',
    source: 'policy',
    rule: 'tools.read_text_file',
    reason: 'allowed by the policy',
    latency_ms: 0.1,
  };
}

describe.runIf(process.platform === 'linux')('the audit log fdatasyncs its own file', () => {
  let directory: string;
  beforeEach(() => {
    directory = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-audit-target-')));
    syncs.files.length = 0;
    syncs.finished = 0;
  });
  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  it('syncs the log file, and resolves each record only after a sync that followed its write', async () => {
    const file = path.join(directory, 'audit.jsonl');
    const log = createAuditLog({ path: file });
    try {
      // Enough records for the syncs to move from the thread pool to the event loop, when the disk is fast enough.
      for (let index = 0; index < FAST_SYNCS_BEFORE_INLINE + 3; index++) {
        const before = syncs.finished;
        await log.record(entry(index));
        expect(syncs.finished).toBeGreaterThan(before);
      }
      expect(syncs.files.length).toBeGreaterThanOrEqual(FAST_SYNCS_BEFORE_INLINE + 3);
      expect(new Set(syncs.files)).toEqual(new Set([file]));
      expect(readFileSync(file, 'utf8').trim().split('\n')).toHaveLength(FAST_SYNCS_BEFORE_INLINE + 3);
    } finally {
      await log.close();
    }
  });
});
