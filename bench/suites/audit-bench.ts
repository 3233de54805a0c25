import fs from 'node:fs';
import { mkdir, open } from 'node:fs/promises';
import path from 'node:path';
import { createAuditLog, type AuditLog, type AuditLogFileSystem } from '../../src/audit/audit-log.ts';
import { AUDIT_SCHEMA_VERSION, type AuditEntry } from '../../src/core/audit-entry.ts';
import { measure, median, round, spreadOf, type BenchRow, type BenchSuite, type LatencyStats } from '../harness.ts';

const BASELINE = 'raw writeSync + fdatasyncSync per record';
const WRITERS = 64;

/**
 * Durable audit records per second. The baseline is the honest alternative,
 * measured in the same run on the same disk: one synchronous write and one
 * fdatasync per record. The audit log with 64 concurrent writers should beat
 * it thanks to group commit; a single sequential writer pays about one sync
 * per record, and its latency row shows what that costs.
 */
export const auditSuite: BenchSuite = {
  name: 'audit',
  async run(context) {
    const directory = fs.mkdtempSync(path.join(context.scratch, 'audit-'));
    try {
      return await runSuite(directory, context.quick);
    } finally {
      fs.rmSync(directory, { recursive: true, force: true });
    }
  },
};

async function runSuite(directory: string, quick: boolean): Promise<BenchRow[]> {
  const repetitions = quick ? 3 : 5;
  // Disks differ by 100x in sync cost (NVMe vs. network storage): size every case to a time budget.
  const budgetMs = quick ? 600 : 3000;
  const syncMs = probeSyncMs(path.join(directory, 'probe.jsonl'));
  const syncedIterations = clamp({ value: Math.round(budgetMs / repetitions / syncMs), minimum: 20, maximum: quick ? 500 : 5000 });

  const raw = await measureRaw({ file: path.join(directory, 'raw.jsonl'), iterations: syncedIterations, repetitions });

  const counted = countingFileSystem();
  const concurrentLog = createAuditLog({ path: path.join(directory, 'concurrent.jsonl'), fileSystem: counted.fileSystem });
  // Group commit makes each sync carry many records, so this case gets far more of them.
  const concurrentTotal = clamp({ value: syncedIterations * 16, minimum: 1000, maximum: quick ? 8000 : 80_000 });
  await concurrentRate({ log: concurrentLog, writers: WRITERS, total: Math.min(concurrentTotal, 2000) });
  const syncsBefore = counted.syncs;
  const rates: number[] = [];
  for (let repetition = 0; repetition < repetitions; repetition++) {
    rates.push(await concurrentRate({ log: concurrentLog, writers: WRITERS, total: concurrentTotal }));
  }
  const recordsPerSync = (concurrentTotal * repetitions) / Math.max(1, counted.syncs - syncsBefore);
  await concurrentLog.close();
  const concurrent = median(rates);

  const sequentialLog = createAuditLog({ path: path.join(directory, 'sequential.jsonl') });
  const sequential = await measure({ fn: (index) => sequentialLog.record(makeEntry(index)), iterations: syncedIterations, warmup: 20, repetitions });
  await sequentialLog.close();

  const ratio = concurrent / raw.ops_per_s;
  return [
    {
      suite: 'audit',
      case: BASELINE,
      p50_us: round(raw.p50_us),
      p99_us: round(raw.p99_us),
      ops_per_s: Math.round(raw.ops_per_s),
      ratio: null,
      baseline: null,
      note: `${Math.round(raw.lineBytes)} B lines`,
    },
    {
      suite: 'audit',
      case: `audit log, ${WRITERS} concurrent writers (group commit)`,
      p50_us: null,
      p99_us: null,
      ops_per_s: Math.round(concurrent),
      ratio: round(ratio, 2),
      baseline: BASELINE,
      ratio_meaning: 'durable records/s, audit log / raw (higher is better)',
      target: 'audit >= 50% of raw fsync rate',
      met: ratio >= 0.5,
      spread: spreadOf({ of: 'rate ratio', values: rates.map((rate) => rate / raw.ops_per_s), digits: 2 }),
      note: `${round(recordsPerSync, 1)} records per fdatasync`,
    },
    {
      suite: 'audit',
      case: 'audit log, 1 sequential writer',
      p50_us: round(sequential.p50_us),
      p99_us: round(sequential.p99_us),
      ops_per_s: Math.round(sequential.ops_per_s),
      ratio: round(sequential.p50_us / raw.p50_us, 2),
      baseline: BASELINE,
      ratio_meaning: 'p50 latency per durable record, audit log / raw (lower is better)',
    },
  ];
}

function makeEntry(index: number): AuditEntry {
  return {
    v: AUDIT_SCHEMA_VERSION,
    kind: 'decision',
    time: new Date().toISOString(),
    session: 'bench-session',
    chat: 'chat-1',
    run: null,
    caller: 'agent',
    call_id: `call-${index}`,
    tool: 'write_file',
    args: { path: `ws/notes/file_${index}.md`, content: '[REDACTED]', overwrite: true },
    verdict: 'ask',
    decision: 'approved',
    source: 'person',
    rule: 'tools.write_file',
    reason: 'approved by a person for this session',
    latency_ms: 1234.5,
  };
}

/** The per-record cost of a raw append + fdatasync on this disk, to size the other cases. */
function probeSyncMs(file: string): number {
  const descriptor = fs.openSync(file, 'a', 0o600);
  try {
    const line = `${JSON.stringify(makeEntry(0))}\n`;
    const started = performance.now();
    for (let index = 0; index < 20; index++) {
      fs.writeSync(descriptor, line);
      fs.fdatasyncSync(descriptor);
    }
    return Math.max(0.005, (performance.now() - started) / 20);
  } finally {
    fs.closeSync(descriptor);
  }
}

async function measureRaw(options: { file: string; iterations: number; repetitions: number }): Promise<LatencyStats & { lineBytes: number }> {
  const descriptor = fs.openSync(options.file, 'a', 0o600);
  let bytes = 0;
  let lines = 0;
  try {
    const stats = await measure({
      fn: (index) => {
        // The same work per record as the log does: serialise, append, sync.
        const line = `${JSON.stringify(makeEntry(index))}\n`;
        bytes += Buffer.byteLength(line);
        lines += 1;
        fs.writeSync(descriptor, line);
        fs.fdatasyncSync(descriptor);
      },
      iterations: options.iterations,
      warmup: 20,
      repetitions: options.repetitions,
    });
    return { ...stats, lineBytes: bytes / lines };
  } finally {
    fs.closeSync(descriptor);
  }
}

async function concurrentRate(options: { log: AuditLog; writers: number; total: number }): Promise<number> {
  let issued = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: options.writers }, async () => {
      while (issued < options.total) {
        const index = issued++;
        await options.log.record(makeEntry(index));
      }
    }),
  );
  return (options.total / (performance.now() - started)) * 1000;
}

/** The real file system, as the log uses it by default, counting fdatasync calls to report how many records each one carried. */
function countingFileSystem(): { fileSystem: AuditLogFileSystem; readonly syncs: number } {
  const state = { syncs: 0 };
  const fileSystem: AuditLogFileSystem = {
    mkdir: (target, options) => mkdir(target, options),
    writeSync: (descriptor, buffer, offset, length) => fs.writeSync(descriptor, buffer, offset, length),
    fdatasyncSync(descriptor) {
      state.syncs += 1;
      fs.fdatasyncSync(descriptor);
    },
    async open(target, flags, mode) {
      const handle = await open(target, flags, mode);
      const datasync = handle.datasync.bind(handle);
      handle.datasync = async () => {
        state.syncs += 1;
        await datasync();
      };
      return handle;
    },
  };
  return {
    fileSystem,
    get syncs() {
      return state.syncs;
    },
  };
}

function clamp(options: { value: number; minimum: number; maximum: number }): number {
  return Math.min(options.maximum, Math.max(options.minimum, options.value));
}
