import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AUDIT_SCHEMA_VERSION, type AuditEntry } from '../../core/audit-entry.ts';
import { EXIT, type CliIo } from '../cli-io.ts';
import { parseAuditTime, runAuditCommand } from './audit-command.ts';
import { escapeControlCharacters } from './audit-format.ts';

let directory: string;

beforeEach(() => {
  directory = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-'));
});

afterEach(() => {
  fs.rmSync(directory, { recursive: true, force: true });
});

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

function entry(index: number, overrides: Partial<AuditEntry> = {}): AuditEntry {
  return {
    v: AUDIT_SCHEMA_VERSION,
    kind: 'verdict',
    time: new Date(Date.now() - (10 - index) * MINUTE).toISOString(),
    session: 'sess-1',
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
    reason: `reason ${index}`,
    latency_ms: 0.2,
    ...overrides,
  };
}

function writeLog(file: string, lines: readonly (AuditEntry | string)[]): string[] {
  const text = lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line)));
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${text.join('\n')}\n`);
  return text;
}

async function run(argv: string[], options: { cwd?: string; columns?: number } = {}) {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: {
      write: (text: string) => {
        stdout += text;
        return true;
      },
      isTTY: options.columns !== undefined,
      columns: options.columns,
    },
    stderr: {
      write: (text: string) => {
        stderr += text;
        return true;
      },
    },
    stdin: Readable.from([]),
    env: {},
    cwd: options.cwd ?? directory,
  };
  const code = await runAuditCommand(argv, io);
  return { code, stdout, stderr, rows: stdout.split('\n').filter((line) => line !== '') };
}

/** The standard log: reads, a shell call asked and denied, a blocked call, one from hours ago. */
function standardLog(file: string): string[] {
  return writeLog(file, [
    entry(0, { time: new Date(Date.now() - 3 * HOUR).toISOString(), call_id: 'old', tool: 'list_dir' }),
    entry(1),
    entry(2, { tool: 'shell', verdict: 'ask', decision: 'ask', rule: 'ask_when[0]' }),
    entry(3, { tool: 'shell', kind: 'decision', verdict: 'ask', decision: 'denied', source: 'person', rule: 'ask_when[0]', reason: 'denied by a person' }),
    entry(4, { tool: 'format_disk', verdict: 'block', decision: 'block', rule: 'tools.format_disk', session: 'sess-2' }),
    entry(5, { tool: 'write_file', verdict: 'ask', decision: 'approved', kind: 'decision', source: 'memory', chat: 'chat-9' }),
  ]);
}

describe('toolgate audit', () => {
  it('--help lists every flag and the exit codes', async () => {
    const result = await run(['--help']);
    expect(result.code).toBe(EXIT.ok);
    for (const flag of ['--log', '--policy', '--session', '--chat', '--run', '--approver', '--tool', '--decision', '--source', '--since', '--until', '--limit', '--json', '--help']) {
      expect(result.stdout).toContain(flag);
    }
    expect(result.stdout).toMatch(/Exit codes:\n\s+0 .*\n\s+2 .*\n\s+3 .*\n\s+4 /);
  });

  it.each([
    [['--bogus']],
    [['stray-positional']],
    [['--decision', 'maybe']],
    [['--source', 'oracle']],
    [['--since', 'yesterday']],
    [['--until', '5 minutes']],
    [['--since', '1h', '--until', '2h']],
    [['--limit', '0']],
    [['--limit', 'ten']],
    [['--log', 'a.jsonl', '--policy', 'toolgate.yaml']],
    [['--log', 'a.jsonl', '--store', 'postgres://toolgate@db/toolgate']],
    [['--store', '.toolgate/toolgate.db']],
    [['--tool']],
  ])('exits 2 with a usage message for %j', async (argv) => {
    const result = await run(argv);
    expect(result.code).toBe(EXIT.usage);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^toolgate audit: .+\nRun 'toolgate audit --help' for usage\.\n$/);
  });

  it('exits 2 and says where the log should be when it does not exist', async () => {
    const result = await run(['--log', 'missing.jsonl']);
    expect(result.code).toBe(EXIT.usage);
    expect(result.stderr).toContain(path.join(directory, 'missing.jsonl'));
    expect(result.stderr).toMatch(/does not exist.*\.toolgate\/audit\.jsonl beside the policy/);
  });

  it('reads ./.toolgate/audit.jsonl by default and prints an aligned table', async () => {
    standardLog(path.join(directory, '.toolgate', 'audit.jsonl'));
    const result = await run([]);
    expect(result.code).toBe(EXIT.ok);
    expect(result.stderr).toBe('');
    const [header, ...lines] = result.rows;
    expect(header).toMatch(/^TIME\s+TOOL\s+VERDICT→DECISION\s+SOURCE\s+APPROVER\s+RULE\s+CALL\s+REASON$/);
    // Each session named whole on a line of its own, above its rows.
    const sessions = lines.filter((line) => line.startsWith('session '));
    expect(sessions.length).toBeGreaterThan(0);
    const rows = lines.filter((line) => !line.startsWith('session '));
    expect(rows).toHaveLength(6);
    expect(rows[3]).toMatch(/Z\s+shell\s+ask→denied\s+person\s+-\s+ask_when\[0\]\s+\S.*\s+denied by a person$/);
    expect(lines[lines.indexOf(rows[3]!) - 1] === 'session sess-1' || lines.slice(0, lines.indexOf(rows[3]!)).filter((line) => line.startsWith('session ')).at(-1) === 'session sess-1').toBe(true);
    expect(rows[5]).toContain('ask→approved');
    // Every column starts at the same place on every line.
    for (const column of ['TOOL', 'SOURCE', 'APPROVER', 'RULE', 'CALL', 'REASON']) {
      const start = header!.indexOf(column);
      for (const row of rows) expect(row[start - 1]).toBe(' ');
      for (const row of rows) expect(row[start]).not.toBe(' ');
    }
  });

  it('filters by --tool, --decision, --source, --session and --chat', async () => {
    const file = path.join(directory, 'audit.jsonl');
    standardLog(file);
    const ids = async (argv: string[]) => {
      const result = await run(['--log', file, '--json', ...argv]);
      expect(result.code).toBe(EXIT.ok);
      return result.rows.map((row) => (JSON.parse(row) as AuditEntry).call_id);
    };
    expect(await ids(['--tool', 'shell'])).toEqual(['call-2', 'call-3']);
    expect(await ids(['--decision', 'denied'])).toEqual(['call-3']);
    expect(await ids(['--decision', 'ask'])).toEqual(['call-2']);
    expect(await ids(['--source', 'memory'])).toEqual(['call-5']);
    expect(await ids(['--session', 'sess-2'])).toEqual(['call-4']);
    expect(await ids(['--chat', 'chat-9'])).toEqual(['call-5']);
    expect(await ids(['--tool', 'shell', '--decision', 'allow'])).toEqual([]);
  });

  it('--session finds a server run by the session_id the API was given, whoever owns it; --run and --approver filter too', async () => {
    const file = path.join(directory, 'audit.jsonl');
    writeLog(file, [
      entry(1, { session: '["alice","s2"]', caller: 'alice', run: 'run_a' }),
      entry(2, { session: '["bob","s2"]', caller: 'bob', run: 'run_b', kind: 'decision', verdict: 'ask', decision: 'approved', source: 'person', approver: 'carol' }),
      entry(3, { session: 's2', run: null }),
      entry(4, { session: '["alice","s3"]', caller: 'alice', run: 'run_c', kind: 'decision', verdict: 'ask', decision: 'denied', source: 'person', approver: 'dave' }),
      // Not a scoped session: a JSON-looking session of another shape is matched only as it is.
      entry(5, { session: '["alice","s2","x"]' }),
    ]);
    const ids = async (argv: string[]) => {
      const result = await run(['--log', file, '--json', ...argv]);
      expect(result.code).toBe(EXIT.ok);
      return result.rows.map((row) => (JSON.parse(row) as AuditEntry).call_id);
    };
    expect(await ids(['--session', 's2'])).toEqual(['call-1', 'call-2', 'call-3']);
    expect(await ids(['--session', '["alice","s2"]'])).toEqual(['call-1']);
    expect(await ids(['--session', 'alice'])).toEqual([]);
    expect(await ids(['--session', '["alice","s2","x"]'])).toEqual(['call-5']);
    expect(await ids(['--run', 'run_b'])).toEqual(['call-2']);
    expect(await ids(['--approver', 'carol'])).toEqual(['call-2']);
    expect(await ids(['--approver', 'carol', '--session', 's3'])).toEqual([]);
    expect(await ids(['--session', 's3', '--decision', 'denied'])).toEqual(['call-4']);
    // The table names the session as the API was given it, and who decided.
    const table = await run(['--log', file, '--approver', 'dave']);
    expect(table.rows).toHaveLength(3);
    expect(table.rows[1]).toBe('session s3');
    expect(table.rows[2]).toMatch(/Z\s+read_file\s+ask→denied\s+person\s+dave\s+tools\.read_file\s+\S.*\s+reason 4$/);
  });

  it('an unknown session, run or approver matches nothing and says where it looked', async () => {
    const file = path.join(directory, 'audit.jsonl');
    standardLog(file);
    for (const argv of [['--session', 'nope'], ['--run', 'run_nope'], ['--approver', 'nobody']]) {
      const result = await run(['--log', file, ...argv]);
      expect(result.code).toBe(EXIT.ok);
      expect(result.stdout).toBe('');
      expect(result.stderr).toBe('no matching entries in audit.jsonl\n');
    }
  });

  it.each([
    ['--session', 'a session id'],
    ['--chat', 'a chat id'],
    ['--run', 'a run id'],
    ['--approver', 'the name of an approver'],
    ['--tool', 'a tool name'],
  ])('%s with an empty value exits 2 naming the flag and what it needs', async (flag, needs) => {
    const result = await run([flag, ' ']);
    expect(result.code).toBe(EXIT.usage);
    expect(result.stderr).toContain(`toolgate audit: ${flag} needs ${needs}`);
    expect(result.stderr).toContain('not an empty string');
  });

  it('filters by time, relative or absolute', async () => {
    const file = path.join(directory, 'audit.jsonl');
    standardLog(file);
    const ids = async (argv: string[]) => (await run(['--log', file, '--json', ...argv])).rows.map((row) => (JSON.parse(row) as AuditEntry).call_id);
    expect(await ids(['--since', '2h'])).toEqual(['call-1', 'call-2', 'call-3', 'call-4', 'call-5']);
    expect(await ids(['--since', '390s'])).toEqual(['call-4', 'call-5']);
    expect(await ids(['--until', '1h'])).toEqual(['old']);
    expect(await ids(['--since', new Date(Date.now() - 4 * HOUR).toISOString(), '--until', new Date(Date.now() - 2 * HOUR).toISOString()])).toEqual(['old']);
    expect(await ids(['--since', '2000-01-01'])).toHaveLength(6);
    expect(await ids(['--until', '2000-01-01'])).toEqual([]);
  });

  it('--limit keeps the last N matches, in order', async () => {
    const file = path.join(directory, 'audit.jsonl');
    standardLog(file);
    const result = await run(['--log', file, '--json', '--limit', '2']);
    expect(result.rows.map((row) => (JSON.parse(row) as AuditEntry).call_id)).toEqual(['call-4', 'call-5']);
    const filtered = await run(['--log', file, '--json', '--limit', '1', '--tool', 'shell']);
    expect(filtered.rows.map((row) => (JSON.parse(row) as AuditEntry).call_id)).toEqual(['call-3']);
    const table = await run(['--log', file, '--limit', '3']);
    const rows = table.rows.filter((row) => !row.startsWith('session '));
    expect(rows).toHaveLength(4);
    expect(rows[1]).toContain('ask→denied');
  });

  it('--json prints the stored records exactly', async () => {
    const file = path.join(directory, 'audit.jsonl');
    const stored = standardLog(file);
    const result = await run(['--log', file, '--json']);
    expect(result.code).toBe(EXIT.ok);
    expect(result.rows).toEqual(stored);
  });

  it('shows control characters escaped, so a log cannot drive the terminal', async () => {
    const file = path.join(directory, 'audit.jsonl');
    writeLog(file, [
      entry(1, { tool: 'evil\u001b[2J', reason: 'line\rover\u009b31mwritten\u202egnp.exe', rule: 'r\u0007', session: 's\n2' }),
      `{"v":1,"tool":"\u001b]0;pwned\u0007`,
    ]);
    const result = await run(['--log', file]);
    expect(result.code).toBe(EXIT.badInput);
    const everything = result.stdout + result.stderr;
    expect(everything).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/);
    expect(result.stdout).toContain('evil\\x1b[2J');
    expect(result.stdout).toContain('line\\rover\\x9b31mwritten\\u202egnp.exe');
    expect(result.stdout).toContain('s\\n2');
    const json = await run(['--log', file, '--json']);
    expect(json.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/);
    expect((JSON.parse(json.rows[0]!) as AuditEntry).reason).toBe('line\rover\u009b31mwritten\u202egnp.exe');
    expect(escapeControlCharacters('a\u001b[2Jb')).toBe('a\\x1b[2Jb');
  });

  it('cuts long fields short and fits the reason to the terminal', async () => {
    const file = path.join(directory, 'audit.jsonl');
    writeLog(file, [entry(1, { tool: 'a_very_long_tool_name_indeed_for_a_table', reason: 'r'.repeat(500) })]);
    const result = await run(['--log', file], { columns: 140 });
    const row = result.rows[2]!;
    expect(row).toContain('a_very_long_too…');
    expect(Array.from(row).length).toBeLessThanOrEqual(140);
    expect(row.endsWith('r…')).toBe(true);
    const piped = await run(['--log', file]);
    expect(Array.from(piped.rows[2]!).length).toBeLessThan(400);
  });

  it('reports invalid lines as FILE:LINE: skipped: why, shows the rest, and exits 4', async () => {
    const file = path.join(directory, 'logs', 'audit.jsonl');
    writeLog(file, [entry(1), JSON.stringify(entry(2)).slice(0, 25), { ...entry(3), v: 2 } as unknown as AuditEntry, entry(4)]);
    const result = await run(['--log', 'logs/audit.jsonl', '--json']);
    expect(result.code).toBe(EXIT.badInput);
    expect(result.rows.map((row) => (JSON.parse(row) as AuditEntry).call_id)).toEqual(['call-1', 'call-4']);
    const skipped = result.stderr.split('\n').filter((line) => line !== '');
    expect(skipped).toHaveLength(2);
    expect(skipped[0]).toMatch(/^logs\/audit\.jsonl:2: skipped: not valid JSON/);
    expect(skipped[1]).toMatch(/^logs\/audit\.jsonl:3: skipped: schema version 2 is newer/);
  });

  it('exits 0 and says so when nothing matches', async () => {
    const file = path.join(directory, 'audit.jsonl');
    standardLog(file);
    const result = await run(['--log', file, '--tool', 'nothing_like_it']);
    expect(result.code).toBe(EXIT.ok);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/no matching entries/);
  });

  describe('with a policy', () => {
    it('--policy reads .toolgate/audit.jsonl beside the policy', async () => {
      const project = path.join(directory, 'project');
      fs.mkdirSync(project);
      fs.writeFileSync(path.join(project, 'toolgate.yaml'), 'tools:\n  read_file: allow\n');
      standardLog(path.join(project, '.toolgate', 'audit.jsonl'));
      const result = await run(['--policy', 'project/toolgate.yaml', '--json']);
      expect(result.code).toBe(EXIT.ok);
      expect(result.rows).toHaveLength(6);
    });

    it('--policy honours audit.path, relative to the policy', async () => {
      const project = path.join(directory, 'project');
      fs.mkdirSync(project);
      fs.writeFileSync(path.join(project, 'toolgate.yaml'), 'audit:\n  path: logs/calls.jsonl\n');
      writeLog(path.join(project, 'logs', 'calls.jsonl'), [entry(1)]);
      const result = await run(['--policy', path.join(project, 'toolgate.yaml'), '--json']);
      expect(result.code).toBe(EXIT.ok);
      expect(result.rows).toHaveLength(1);
    });

    it('uses the policy in the working directory when there is one', async () => {
      fs.writeFileSync(path.join(directory, 'toolgate.yaml'), 'audit:\n  path: elsewhere.jsonl\n');
      writeLog(path.join(directory, 'elsewhere.jsonl'), [entry(1), entry(2)]);
      const result = await run(['--json']);
      expect(result.code).toBe(EXIT.ok);
      expect(result.rows).toHaveLength(2);
    });

    it('exits 3 when --policy is missing or invalid', async () => {
      expect((await run(['--policy', 'nope.yaml'])).code).toBe(EXIT.policy);
      fs.writeFileSync(path.join(directory, 'bad.yaml'), 'tools: [\n');
      const result = await run(['--policy', 'bad.yaml']);
      expect(result.code).toBe(EXIT.policy);
      expect(result.stderr).toContain('bad.yaml');
    });
  });
});

describe('parseAuditTime', () => {
  const now = Date.parse('2025-01-31T12:00:00Z');

  it('reads durations as that long ago', () => {
    expect(parseAuditTime('30m', now)).toBe(now - 30 * MINUTE);
    expect(parseAuditTime('2h', now)).toBe(now - 2 * HOUR);
    expect(parseAuditTime('7d', now)).toBe(now - 7 * 24 * HOUR);
    expect(parseAuditTime('90s', now)).toBe(now - 90_000);
    expect(parseAuditTime('1w', now)).toBe(now - 7 * 24 * HOUR);
  });

  it('reads ISO dates and times, local without an offset', () => {
    expect(parseAuditTime('2025-01-30T10:00:00Z', now)).toBe(Date.parse('2025-01-30T10:00:00Z'));
    expect(parseAuditTime('2025-01-30T10:00:00+02:00', now)).toBe(Date.parse('2025-01-30T08:00:00Z'));
    expect(parseAuditTime('2025-01-30', now)).toBe(new Date(2025, 0, 30).getTime());
    expect(parseAuditTime('2025-01-30 10:30', now)).toBe(new Date(2025, 0, 30, 10, 30).getTime());
  });

  it('refuses anything else', () => {
    for (const text of ['yesterday', '1', 'March 7', '2025-13-45', '5 minutes', '-2h', '']) {
      expect(() => parseAuditTime(text, now)).toThrow(/is not a time/);
    }
  });
});

describe('toolgate audit: gateway events', () => {
  it('shows a definition_changed record, and leaves it out under decision filters', async () => {
    const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-audit-event-'));
    const log = path.join(directory, 'audit.jsonl');
    const event = { v: 1, kind: 'definition_changed', time: '2026-11-01T10:00:00.000Z', server: 'files', tool: 'write_file', reason: 'description changed' };
    fs.writeFileSync(log, `${JSON.stringify(event)}\n`);
    const plain = await run(['--log', log]);
    expect(plain.code).toBe(0);
    expect(plain.stdout).toContain('definition changed: files/write_file — description changed');
    const json = await run(['--log', log, '--json']);
    expect(JSON.parse(json.stdout)).toEqual(event);
    const filtered = await run(['--log', log, '--decision', 'denied', '--json']);
    expect(filtered.stdout).toBe('');
    for (const flag of ['--run', '--approver', '--session']) expect((await run(['--log', log, flag, 'x', '--json'])).stdout).toBe('');
  });
});
