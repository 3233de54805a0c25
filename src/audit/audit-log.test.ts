import fs from 'node:fs';
import { mkdir, open, type FileHandle } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AUDIT_SCHEMA_VERSION, type AuditEntry } from '../core/audit-entry.ts';
import { ToolgateError } from '../core/errors/toolgate-error.ts';
import { createGate } from '../core/gate.ts';
import { parsePolicy } from '../core/policy/parse-policy.ts';
import { createAuditLog, FAST_SYNCS_BEFORE_INLINE, INLINE_SYNC_LIMIT_MS, type AuditLog, type AuditLogFileSystem } from './audit-log.ts';
import { readAuditLog, type AuditLogItem } from './read-audit-log.ts';

let directory: string;

beforeEach(() => {
  directory = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-'));
});

afterEach(() => {
  fs.rmSync(directory, { recursive: true, force: true });
});

function entry(index: number, overrides: Partial<AuditEntry> = {}): AuditEntry {
  return {
    v: AUDIT_SCHEMA_VERSION,
    kind: 'verdict',
    time: new Date(Date.UTC(2025, 0, 31, 12, 0, 0) + index).toISOString(),
    session: 's1',
    chat: null,
    run: null,
    caller: null,
    call_id: `call-${index}`,
    tool: 'write_file',
    args: { path: `notes/${index}.txt`, content: 'x'.repeat(index % 50) },
    verdict: 'allow',
    decision: 'allow',
    source: 'policy',
    rule: 'tools.write_file',
    reason: 'allowed by the policy',
    latency_ms: 0.25,
    ...overrides,
  };
}

function lines(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  expect(text.endsWith('\n')).toBe(true);
  return text.slice(0, -1).split('\n');
}

async function readAll(file: string): Promise<AuditLogItem[]> {
  const items: AuditLogItem[] = [];
  for await (const item of readAuditLog({ path: file })) items.push(item);
  return items;
}

/** The call ids of the audit lines in `bytes`. */
function callIdsIn(bytes: Buffer): string[] {
  return [...bytes.toString('utf8').matchAll(/"call_id":"([^"]+)"/g)].map((match) => match[1]!);
}

/**
 * The real file system, watched: counts opens and syncs, and knows which call
 * ids were written and which of them a completed sync made durable.
 */
function watchedFileSystem(hooks: { beforeSync?: (count: number) => void; onWrite?: (count: number, handle: FileHandle) => void } = {}) {
  const stats = { opens: 0, syncs: 0, writes: 0, written: new Set<string>(), durable: new Set<string>() };
  const fileSystem: AuditLogFileSystem = {
    mkdir: (target, options) => mkdir(target, options),
    async open(target, flags, mode) {
      const handle = await open(target, flags, mode);
      if (flags !== 'a') return handle;
      stats.opens += 1;
      const write = handle.write.bind(handle) as (buffer: Buffer, offset: number, length: number) => Promise<{ bytesWritten: number; buffer: Buffer }>;
      const datasync = handle.datasync.bind(handle);
      Object.assign(handle, {
        async write(buffer: Buffer, offset: number, length: number) {
          stats.writes += 1;
          hooks.onWrite?.(stats.writes, handle);
          const result = await write(buffer, offset, length);
          for (const id of callIdsIn(buffer.subarray(offset, offset + result.bytesWritten))) stats.written.add(id);
          return result;
        },
        async datasync() {
          stats.syncs += 1;
          hooks.beforeSync?.(stats.syncs);
          const covered = [...stats.written];
          await datasync();
          for (const id of covered) stats.durable.add(id);
        },
      });
      return handle;
    },
  };
  return { fileSystem, stats };
}

/** Like the gateway: on `written`, a chain of awaits ends in forwarding the call; the sync (which pushes 'sync' to `order`) comes after it. */
async function expectForwardedBeforeSync(log: AuditLog, order: string[]): Promise<void> {
  const stages = log.recordInStages(entry(1));
  const acted = stages.written.then(async () => {
    for (let hop = 0; hop < 50; hop++) await undefined;
    order.push('forwarded');
  });
  await stages.durable;
  await acted;
  expect(order).toEqual(['forwarded', 'sync']);
}

describe('createAuditLog', () => {
  it('appends one JSON line per entry, creating the directory and a 0600 file lazily', async () => {
    const file = path.join(directory, 'nested', '.toolgate', 'audit.jsonl');
    const log = createAuditLog({ path: file });
    expect(fs.existsSync(path.dirname(file))).toBe(false);
    await log.record(entry(1));
    await log.record(entry(2, { kind: 'decision', verdict: 'ask', decision: 'approved', source: 'person' }));
    await log.close();
    expect(lines(file).map((line) => JSON.parse(line))).toEqual([entry(1), entry(2, { kind: 'decision', verdict: 'ask', decision: 'approved', source: 'person' })]);
    if (process.platform !== 'win32') expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  });

  it('keeps 1,000 concurrent records, each exactly once on its own valid line, and resolves every promise', async () => {
    const file = path.join(directory, 'audit.jsonl');
    const log = createAuditLog({ path: file });
    const results = await Promise.allSettled(Array.from({ length: 1000 }, (_, index) => log.record(entry(index))));
    expect(results.every((result) => result.status === 'fulfilled')).toBe(true);
    await log.close();
    const written = lines(file);
    expect(written).toHaveLength(1000);
    const ids = written.map((line) => (JSON.parse(line) as AuditEntry).call_id);
    expect(new Set(ids).size).toBe(1000);
    expect(new Set(ids)).toEqual(new Set(Array.from({ length: 1000 }, (_, index) => `call-${index}`)));
    const items = await readAll(file);
    expect(items.filter((item) => 'error' in item)).toEqual([]);
  });

  it('group-commits: concurrent records share syncs, and each resolves only once a sync covered it', async () => {
    const { fileSystem, stats } = watchedFileSystem();
    const file = path.join(directory, 'audit.jsonl');
    const log = createAuditLog({ path: file, fileSystem });
    const resolvedBeforeDurable: string[] = [];
    const track = (value: AuditEntry) =>
      log.record(value).then(() => {
        if (!stats.durable.has(value.call_id)) resolvedBeforeDurable.push(value.call_id);
      });

    // 1,000 callers at once: one batch, or very few.
    await Promise.all(Array.from({ length: 1000 }, (_, index) => track(entry(index))));
    expect(stats.syncs).toBeGreaterThanOrEqual(1);
    expect(stats.syncs).toBeLessThanOrEqual(5);

    // 64 writers that each record, wait, and record again, like concurrent agents.
    const before = stats.syncs;
    await Promise.all(
      Array.from({ length: 64 }, async (_, writer) => {
        for (let round = 0; round < 20; round++) await track(entry(10_000 + writer * 100 + round));
      }),
    );
    const syncs = stats.syncs - before;
    expect(syncs).toBeLessThan(1280 / 8);
    expect(resolvedBeforeDurable).toEqual([]);
    await log.close();
    expect(lines(file)).toHaveLength(2280);
    expect(stats.opens).toBe(1);
  });

  it('a single writer still gets a sync per record', async () => {
    const { fileSystem, stats } = watchedFileSystem();
    const log = createAuditLog({ path: path.join(directory, 'audit.jsonl'), fileSystem });
    for (let index = 0; index < 5; index++) await log.record(entry(index));
    expect(stats.syncs).toBe(5);
    expect([...stats.durable]).toHaveLength(5);
    await log.close();
  });

  it('starts the sync only after what a caller chained on `written` has run, and still resolves `durable` only after it', async () => {
    const order: string[] = [];
    const { fileSystem, stats } = watchedFileSystem({ beforeSync: () => order.push('sync') });
    const log = createAuditLog({ path: path.join(directory, 'audit.jsonl'), fileSystem });
    await expectForwardedBeforeSync(log, order);
    expect(stats.durable.has(entry(1).call_id)).toBe(true);
    await log.close();
  });

  describe('moves its syncs to the event loop once they prove fast', () => {
    /**
     * Writes to the real file; syncs that only mark what they cover, so they
     * are fast whatever the disk: `slowSyncs` and `failSyncs` number the
     * syncs made on the loop that take longer than the limit, or fail.
     */
    function syncingFileSystem(options: { slowSyncs?: number[]; failSyncs?: number[]; onInlineSync?: () => void } = {}) {
      const written = new Set<string>();
      const durable = new Set<string>();
      const counts = { inline: 0, pool: 0, opens: 0 };
      const fileSystem: AuditLogFileSystem = {
        mkdir: (target, mkdirOptions) => mkdir(target, mkdirOptions),
        async open(target, flags, mode) {
          const handle = await open(target, flags, mode);
          if (flags !== 'a') return handle;
          counts.opens += 1;
          handle.datasync = async () => {
            counts.pool += 1;
            const covered = [...written];
            await Promise.resolve();
            for (const id of covered) durable.add(id);
          };
          return handle;
        },
        writeSync(descriptor, buffer, offset, length) {
          const bytesWritten = fs.writeSync(descriptor, buffer, offset, length);
          for (const id of callIdsIn(buffer.subarray(offset, offset + bytesWritten))) written.add(id);
          return bytesWritten;
        },
        fdatasyncSync() {
          counts.inline += 1;
          options.onInlineSync?.();
          if (options.failSyncs?.includes(counts.inline)) throw Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' });
          if (options.slowSyncs?.includes(counts.inline)) {
            const until = performance.now() + INLINE_SYNC_LIMIT_MS * 3;
            while (performance.now() < until) {
              // A slow disk: the loop is held for longer than the limit.
            }
          }
          for (const id of written) durable.add(id);
        },
      };
      return { fileSystem, counts, durable };
    }

    it('starts on the thread pool, syncs on the loop after enough fast syncs in a row, and resolves each record only once a sync covered it', async () => {
      const { fileSystem, counts, durable } = syncingFileSystem();
      const file = path.join(directory, 'audit.jsonl');
      const log = createAuditLog({ path: file, fileSystem });
      const resolvedBeforeDurable: string[] = [];
      const track = (index: number) =>
        log.record(entry(index)).then(() => {
          if (!durable.has(entry(index).call_id)) resolvedBeforeDurable.push(entry(index).call_id);
        });
      await track(0);
      expect(counts).toMatchObject({ pool: 1, inline: 0 });
      for (let index = 1; index < FAST_SYNCS_BEFORE_INLINE + 5; index++) await track(index);
      // Every sync is fast here; a pause of the test process itself may make one count as slow.
      expect(counts.pool).toBeGreaterThanOrEqual(FAST_SYNCS_BEFORE_INLINE);
      expect(counts.inline).toBeGreaterThanOrEqual(1);
      expect(counts.pool + counts.inline).toBe(FAST_SYNCS_BEFORE_INLINE + 5);
      const before = counts.inline + counts.pool;
      await Promise.all(Array.from({ length: 200 }, (_, index) => track(100 + index)));
      expect(counts.inline + counts.pool - before).toBeLessThanOrEqual(5);
      await log.close();
      expect(resolvedBeforeDurable).toEqual([]);
      expect(lines(file)).toHaveLength(FAST_SYNCS_BEFORE_INLINE + 205);
    });

    it('still lets what a caller chained on `written` run before a sync on the loop', async () => {
      const order: string[] = [];
      let warm = false;
      const { fileSystem, counts } = syncingFileSystem({ onInlineSync: () => warm && order.push('sync') });
      const log = createAuditLog({ path: path.join(directory, 'audit.jsonl'), fileSystem });
      for (let index = 0; counts.inline === 0 && index < 100; index++) await log.record(entry(100 + index));
      warm = true;
      const inlineBefore = counts.inline;
      await expectForwardedBeforeSync(log, order);
      expect(counts.inline).toBe(inlineBefore + 1);
      await log.close();
    });

    it('sends the syncs after a slow one back to the thread pool until enough fast ones come in a row', async () => {
      const { fileSystem, counts, durable } = syncingFileSystem({ slowSyncs: [1] });
      const log = createAuditLog({ path: path.join(directory, 'audit.jsonl'), fileSystem });
      let index = 0;
      while (counts.inline === 0 && index < 100) await log.record(entry(index++));
      // The first sync on the loop was slow: the next ones go to the pool, as many as it takes to trust the disk again.
      const poolBefore = counts.pool;
      await log.record(entry(index++));
      expect(counts).toMatchObject({ inline: 1, pool: poolBefore + 1 });
      expect(durable.has(entry(index - 1).call_id)).toBe(true);
      while (counts.inline === 1 && index < 200) await log.record(entry(index++));
      expect(counts.inline).toBe(2);
      expect(counts.pool - poolBefore).toBeGreaterThanOrEqual(FAST_SYNCS_BEFORE_INLINE);
      await log.close();
    });

    it('rejects the batch whose sync failed on the loop, reopens the file, and syncs on the pool again', async () => {
      const { fileSystem, counts, durable } = syncingFileSystem({ failSyncs: [1] });
      const log = createAuditLog({ path: path.join(directory, 'audit.jsonl'), fileSystem });
      let failure: unknown;
      for (let index = 0; counts.inline === 0 && index < 100; index++) await log.record(entry(index)).catch((error: unknown) => (failure = error));
      expect(failure).toMatchObject({ code: 'AUDIT_WRITE_FAILED', message: expect.stringContaining('EIO') });
      expect(counts.inline).toBe(1);
      const poolBefore = counts.pool;
      await log.record(entry(1002));
      expect(durable.has(entry(1002).call_id)).toBe(true);
      expect(counts).toMatchObject({ inline: 1, pool: poolBefore + 1, opens: 2 });
      await log.close();
    });
  });

  it('does not sync with fsync: false', async () => {
    const { fileSystem, stats } = watchedFileSystem();
    const file = path.join(directory, 'audit.jsonl');
    const log = createAuditLog({ path: file, fsync: false, fileSystem });
    await Promise.all([log.record(entry(1)), log.record(entry(2))]);
    await log.close();
    expect(stats.syncs).toBe(0);
    expect(lines(file)).toHaveLength(2);
  });

  it('repairs a torn last line: new records start on a fresh line and the torn one is a single skipped line', async () => {
    const file = path.join(directory, 'audit.jsonl');
    fs.writeFileSync(file, `${JSON.stringify(entry(0))}\n${JSON.stringify(entry(1)).slice(0, 40)}`);
    const log = createAuditLog({ path: file });
    await Promise.all([log.record(entry(2)), log.record(entry(3))]);
    await log.record(entry(4));
    await log.close();
    const items = await readAll(file);
    expect(items.map((item) => ('error' in item ? `error@${item.line}` : 'entry' in item ? `${item.entry.call_id}@${item.line}` : 'event'))).toEqual([
      'call-0@1',
      'error@2',
      'call-2@3',
      'call-3@4',
      'call-4@5',
    ]);
  });

  it('adds no blank line to a file that ends cleanly', async () => {
    const file = path.join(directory, 'audit.jsonl');
    fs.writeFileSync(file, `${JSON.stringify(entry(0))}\n`);
    const log = createAuditLog({ path: file });
    await log.record(entry(1));
    await log.close();
    expect(fs.readFileSync(file, 'utf8')).toBe(`${JSON.stringify(entry(0))}\n${JSON.stringify(entry(1))}\n`);
  });

  it('rejects only the entry that cannot be serialised, not its batch', async () => {
    const file = path.join(directory, 'audit.jsonl');
    const log = createAuditLog({ path: file });
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic['self'] = cyclic;
    const results = await Promise.allSettled([
      log.record(entry(1)),
      log.record(entry(2, { args: cyclic })),
      log.record(entry(3, { args: { size: 10n } })),
      log.record(entry(4)),
    ]);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
    for (const result of results.filter((item) => item.status === 'rejected')) {
      expect(result.reason).toBeInstanceOf(ToolgateError);
      expect((result.reason as ToolgateError).code).toBe('AUDIT_WRITE_FAILED');
      expect((result.reason as ToolgateError).message).toMatch(/call-[23].*cannot be serialised/);
    }
    await log.close();
    expect(lines(file).map((line) => (JSON.parse(line) as AuditEntry).call_id)).toEqual(['call-1', 'call-4']);
  });

  it('rejects every record of a batch with AUDIT_WRITE_FAILED when the parent of the log is a regular file', async () => {
    const blocker = path.join(directory, 'not-a-directory');
    fs.writeFileSync(blocker, 'plain file');
    const file = path.join(blocker, 'audit.jsonl');
    const log = createAuditLog({ path: file });
    const results = await Promise.allSettled([log.record(entry(1)), log.record(entry(2)), log.record(entry(3))]);
    expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected', 'rejected']);
    const error = (results[0] as PromiseRejectedResult).reason as ToolgateError;
    expect(error).toBeInstanceOf(ToolgateError);
    expect(error.code).toBe('AUDIT_WRITE_FAILED');
    expect(error.message).toContain(file);
    expect(error.message).toMatch(/ENOTDIR|EEXIST/);
    expect(error.message).toMatch(/writable/);
    await expect(log.flush()).resolves.toBeUndefined();
    await expect(log.close()).resolves.toBeUndefined();
  });

  it('rejects with AUDIT_WRITE_FAILED when the log path is a directory, and flush reports it', async () => {
    const file = path.join(directory, 'audit.jsonl');
    fs.mkdirSync(file);
    const log = createAuditLog({ path: file });
    const pending = log.record(entry(1));
    const flushed = log.flush();
    await expect(pending).rejects.toMatchObject({ code: 'AUDIT_WRITE_FAILED', message: expect.stringContaining('EISDIR') });
    await expect(flushed).rejects.toMatchObject({ code: 'AUDIT_WRITE_FAILED' });
    await log.close().catch(() => undefined);
  });

  it('retries with a fresh open after a failed sync, and a torn write is repaired on reopen', async () => {
    let failNextSync = true;
    const { fileSystem, stats } = watchedFileSystem({
      beforeSync: () => {
        if (failNextSync) {
          failNextSync = false;
          throw Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' });
        }
      },
    });
    const file = path.join(directory, 'audit.jsonl');
    const log = createAuditLog({ path: file, fileSystem });
    await expect(log.record(entry(1))).rejects.toMatchObject({ code: 'AUDIT_WRITE_FAILED', message: expect.stringContaining('EIO') });
    await log.record(entry(2));
    expect(stats.opens).toBe(2);

    // A write that lands half a line, then fails, as a full disk would.
    const torn = createAuditLog({
      path: file,
      fileSystem: {
        mkdir: (target, options) => mkdir(target, options),
        async open(target, flags, mode) {
          const handle = await open(target, flags, mode);
          if (flags !== 'a') return handle;
          const write = handle.write.bind(handle) as (buffer: Buffer, offset: number, length: number) => Promise<{ bytesWritten: number }>;
          Object.assign(handle, {
            async write(buffer: Buffer, offset: number, length: number) {
              await write(buffer, offset, Math.floor(length / 2));
              throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
            },
          });
          return handle;
        },
      },
    });
    await expect(torn.record(entry(3))).rejects.toMatchObject({ code: 'AUDIT_WRITE_FAILED', message: expect.stringContaining('ENOSPC') });
    await torn.close().catch(() => undefined);
    await log.record(entry(4));
    await log.close();
    const items = await readAll(file);
    expect(items.map((item) => ('error' in item ? 'torn' : 'entry' in item ? item.entry.call_id : 'event'))).toEqual(['call-1', 'call-2', 'torn', 'call-4']);
  });

  it('close flushes what is queued; recording after close rejects; close is idempotent', async () => {
    const file = path.join(directory, 'audit.jsonl');
    const log = createAuditLog({ path: file });
    const pending = Array.from({ length: 10 }, (_, index) => log.record(entry(index)));
    const closed = log.close();
    await expect(log.record(entry(99))).rejects.toMatchObject({ code: 'AUDIT_WRITE_FAILED', message: expect.stringContaining('closed') });
    await closed;
    await Promise.all(pending);
    await expect(log.close()).resolves.toBeUndefined();
    await expect(log.record(entry(100))).rejects.toBeInstanceOf(ToolgateError);
    expect(lines(file)).toHaveLength(10);
  });

  it('never interleaves lines from two logs appending to the same file', async () => {
    const file = path.join(directory, 'audit.jsonl');
    const first = createAuditLog({ path: file });
    const second = createAuditLog({ path: file });
    const big = 'y'.repeat(20_000);
    await Promise.all(
      Array.from({ length: 200 }, (_, index) => (index % 2 === 0 ? first : second).record(entry(index, { reason: `${index} ${big}` }))),
    );
    await Promise.all([first.close(), second.close()]);
    const items = await readAll(file);
    expect(items.filter((item) => 'error' in item)).toEqual([]);
    expect(items).toHaveLength(200);
  });

  it('makes the gate deny when the log cannot be written (fail closed)', async () => {
    fs.mkdirSync(path.join(directory, 'audit.jsonl'));
    const audit = createAuditLog({ path: path.join(directory, 'audit.jsonl') });
    const gate = createGate({ policy: parsePolicy({ text: 'tools:\n  read_file: allow\n' }), audit, openWorld: true });
    const result = await gate.authorize({ tool: 'read_file', args: { path: 'a' }, callId: 'c1' }, { sessionId: 's1' });
    expect(result.decision).toBe('denied');
    expect(result.reason).toMatch(/audit log could not record/);
  });
});
