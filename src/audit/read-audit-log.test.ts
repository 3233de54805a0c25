import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AUDIT_SCHEMA_VERSION, type AuditEntry } from '../core/audit-entry.ts';
import { ToolgateError } from '../core/errors/toolgate-error.ts';
import { auditEntryPredicate, filterAuditEntries, parseAuditLine, readAuditLog, type AuditLogItem } from './read-audit-log.ts';

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
    time: new Date(Date.UTC(2025, 0, 31, 12, 0, 0) + index * 60_000).toISOString(),
    session: 's1',
    chat: null,
    run: null,
    caller: null,
    call_id: `call-${index}`,
    tool: 'read_file',
    args: { path: `${index}.txt` },
    verdict: 'allow',
    decision: 'allow',
    source: 'policy',
    rule: 'tools.read_file',
    reason: 'allowed',
    latency_ms: 0.1,
    ...overrides,
  };
}

async function readAll(file: string): Promise<AuditLogItem[]> {
  const items: AuditLogItem[] = [];
  for await (const item of readAuditLog({ path: file })) items.push(item);
  return items;
}

function describeItems(items: readonly AuditLogItem[]): string[] {
  return items.map((item) => ('error' in item ? `${item.line}: error` : 'entry' in item ? `${item.line}: ${item.entry.call_id}` : `${item.line}: event`));
}

describe('readAuditLog', () => {
  it('yields every entry with its line number, counting but skipping blank lines, and reads CRLF logs', async () => {
    const file = path.join(directory, 'audit.jsonl');
    fs.writeFileSync(file, `${JSON.stringify(entry(1))}\n\n${JSON.stringify(entry(2))}\r\n  \n${JSON.stringify(entry(3))}`);
    const items = await readAll(file);
    expect(describeItems(items)).toEqual(['1: call-1', '3: call-2', '5: call-3']);
    expect(items[0]).toEqual({ line: 1, entry: entry(1) });
  });

  it('turns bad lines into error items and keeps reading', async () => {
    const file = path.join(directory, 'audit.jsonl');
    const { tool: _tool, ...withoutTool } = entry(4);
    fs.writeFileSync(
      file,
      [
        JSON.stringify(entry(1)),
        JSON.stringify(entry(2)).slice(0, 30),
        JSON.stringify({ ...entry(3), v: AUDIT_SCHEMA_VERSION + 1 }),
        JSON.stringify(withoutTool),
        JSON.stringify({ ...entry(5), decision: 'maybe', time: 'yesterday' }),
        '[1,2,3]',
        JSON.stringify({ ...entry(6), v: undefined }),
        JSON.stringify(entry(7)),
      ].join('\n') + '\n',
    );
    const items = await readAll(file);
    expect(describeItems(items)).toEqual(['1: call-1', '2: error', '3: error', '4: error', '5: error', '6: error', '7: error', '8: call-7']);
    const errors = items.flatMap((item) => ('error' in item ? [item.error] : []));
    expect(errors[0]).toMatch(/not valid JSON/);
    expect(errors[1]).toMatch(/schema version 2 is newer.*upgrade toolgate/);
    expect(errors[2]).toBe('missing or invalid field: tool');
    expect(errors[3]).toBe('missing or invalid fields: time, decision');
    expect(errors[4]).toBe('not a JSON object');
    expect(errors[5]).toMatch(/no schema version/);
  });

  it('recovers a record glued to a line another writer tore', async () => {
    const file = path.join(directory, 'audit.jsonl');
    const nested = entry(2, { args: { v: 1, note: '{"v":' } });
    fs.writeFileSync(file, `${JSON.stringify(entry(1))}\n${JSON.stringify(entry(9)).slice(0, 50)}${JSON.stringify(nested)}\n`);
    const items = await readAll(file);
    expect(describeItems(items)).toEqual(['1: call-1', '2: error', '2: call-2']);
    expect(items[2]).toEqual({ line: 2, entry: nested });
  });

  it('throws AUDIT_LOG_INVALID for a missing file, saying where the log is by default', async () => {
    const file = path.join(directory, 'nope', 'audit.jsonl');
    const error = await readAll(file).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ToolgateError);
    expect((error as ToolgateError).code).toBe('AUDIT_LOG_INVALID');
    expect((error as ToolgateError).message).toContain(file);
    expect((error as ToolgateError).message).toMatch(/does not exist/);
    expect((error as ToolgateError).message).toContain('.toolgate/audit.jsonl beside the policy');
  });

  it('throws AUDIT_LOG_INVALID for a directory', async () => {
    await expect(readAll(directory)).rejects.toMatchObject({ code: 'AUDIT_LOG_INVALID', message: expect.stringMatching(/is a directory/) });
  });

  it('streams a large log and stops reading when the consumer stops', async () => {
    const file = path.join(directory, 'audit.jsonl');
    const line = `${JSON.stringify(entry(0))}\n`;
    fs.writeFileSync(file, line.repeat(50_000));
    let count = 0;
    for await (const item of readAuditLog({ path: file })) {
      expect('entry' in item).toBe(true);
      if (++count === 3) break;
    }
    expect(count).toBe(3);
    if (fs.existsSync('/proc/self/fd')) {
      // The early exit closed the file: no descriptor of this process still points at it.
      await new Promise((resolve) => setImmediate(resolve));
      const open = fs.readdirSync('/proc/self/fd').filter((descriptor) => {
        try {
          return fs.readlinkSync(path.join('/proc/self/fd', descriptor)) === file;
        } catch {
          return false;
        }
      });
      expect(open).toEqual([]);
    }
    let total = 0;
    for await (const _item of readAuditLog({ path: file })) total += 1;
    expect(total).toBe(50_000);
  });

  it.skipIf(process.platform === 'win32')('yields each line as it arrives rather than after reading the whole file', async () => {
    const fifo = path.join(directory, 'audit.fifo');
    execFileSync('mkfifo', [fifo]);
    const writer = fs.createWriteStream(fifo);
    const iterator = readAuditLog({ path: fifo })[Symbol.asyncIterator]();
    writer.write(`${JSON.stringify(entry(1))}\n`);
    // The writer is still open: a reader that loaded the whole file would wait forever here.
    const first = await iterator.next();
    expect(first.value).toEqual({ line: 1, entry: entry(1) });
    writer.end(`${JSON.stringify(entry(2))}\n`);
    const second = await iterator.next();
    expect(second.value).toEqual({ line: 2, entry: entry(2) });
    expect((await iterator.next()).done).toBe(true);
  });
});

describe('parseAuditLine', () => {
  it('never throws', () => {
    for (const text of ['', '{', 'null', '"x"', '{"v":1}', '{"v":1.5}', '{"v":"1"}', '\u001b[2J']) {
      expect(() => parseAuditLine(text, 1)).not.toThrow();
      expect('error' in parseAuditLine(text, 1)).toBe(true);
    }
  });

  it('accepts a null latency (what a NaN latency serialises to)', () => {
    expect('entry' in parseAuditLine(JSON.stringify({ ...entry(1), latency_ms: null }), 1)).toBe(true);
  });
});

describe('filterAuditEntries', () => {
  const entries = [
    entry(0, { tool: 'shell', decision: 'denied', verdict: 'ask', kind: 'decision', source: 'person', session: 'a', chat: 'c1' }),
    entry(1, { tool: 'shell', decision: 'approved', verdict: 'ask', kind: 'decision', source: 'memory', session: 'a', chat: 'c2' }),
    entry(2, { tool: 'read_file', session: 'b' }),
    entry(3, { tool: 'format_disk', decision: 'block', verdict: 'block', session: 'b' }),
  ];
  const ids = (filter: Parameters<typeof filterAuditEntries>[1]) => filterAuditEntries(entries, filter).map((item) => item.call_id);

  it('matches every field exactly and combines filters', () => {
    expect(ids({})).toEqual(['call-0', 'call-1', 'call-2', 'call-3']);
    expect(ids({ tool: 'shell' })).toEqual(['call-0', 'call-1']);
    expect(ids({ tool: 'shel' })).toEqual([]);
    expect(ids({ decision: 'block' })).toEqual(['call-3']);
    expect(ids({ source: 'memory' })).toEqual(['call-1']);
    expect(ids({ session: 'b' })).toEqual(['call-2', 'call-3']);
    expect(ids({ chat: 'c1' })).toEqual(['call-0']);
    expect(ids({ tool: 'shell', decision: 'approved', session: 'a' })).toEqual(['call-1']);
  });

  it('filters by an inclusive time window', () => {
    const at = (index: number) => Date.UTC(2025, 0, 31, 12, index, 0);
    expect(ids({ since: at(1) })).toEqual(['call-1', 'call-2', 'call-3']);
    expect(ids({ until: at(1) })).toEqual(['call-0', 'call-1']);
    expect(ids({ since: at(1), until: at(2) })).toEqual(['call-1', 'call-2']);
    expect(ids({ since: at(4) })).toEqual([]);
  });

  it('is also available as a predicate', () => {
    const denied = auditEntryPredicate({ decision: 'denied' });
    expect(entries.filter(denied).map((item) => item.call_id)).toEqual(['call-0']);
  });
});
