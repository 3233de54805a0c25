/**
 * `toolgate audit` over what `toolgate serve` recorded (issue 39): the real
 * server over loopback HTTP on a real SQLite store writes the audit log
 * beside its policy; the CLI then finds a run by the `session_id`, `chat_id`
 * and `run_id` the API was given and by who approved, and shows the approver
 * and the rule in the table.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from './cli-harness.ts';
import { auditEntries, eventually, type ApiServer, type TokenName, serveForEachTest } from './server-api-harness.ts';

const FINISHED = ['completed', 'cancelled', 'failed'];
const { serve } = serveForEachTest();

/** Starts a run of the note script as `token`, waits for its ask, answers it as `approver`, and waits for the end. */
async function decidedRun(api: ApiServer, options: { session_id: string; chat_id: string; token: TokenName; approver: TokenName; approved: boolean }): Promise<string> {
  const started = await api.startRun({ input: 'Write the note', session_id: options.session_id, chat_id: options.chat_id }, options.token);
  expect(started.status).toBe(201);
  const runId = started.json.run_id as string;
  expect((await api.waitForStatus(runId, ['paused_checkpoint', ...FINISHED])).status).toBe('paused_checkpoint');
  const answer = await api.approve(runId, { approved: options.approved, reason: options.approved ? 'fine' : 'not now' }, options.approver);
  expect(answer.status).toBe(200);
  expect((await api.waitForStatus(runId, FINISHED)).status).toBe('completed');
  return runId;
}

async function audit(api: ApiServer, argv: string[]) {
  const result = await runCli(['audit', '--policy', api.project.policyFile, ...argv], { cwd: api.project.root });
  return { ...result, rows: result.stdout.split('\n').filter((line) => line !== '') };
}

describe('toolgate audit of a server\'s runs', () => {
  it('finds runs by the API\'s session_id, chat_id, run_id and approver, and shows the approver and the rule', async () => {
    const api = await serve({ script: 'write-note.yaml' });
    const alices = await decidedRun(api, { session_id: 's2', chat_id: 'c1', token: 'alice', approver: 'carol', approved: true });
    const bobs = await decidedRun(api, { session_id: 's2', chat_id: 'c2', token: 'bob', approver: 'admin', approved: false });
    const other = await decidedRun(api, { session_id: 's3', chat_id: 'c1', token: 'alice', approver: 'carol', approved: false });
    await eventually('the three decisions are in the audit log', () => auditEntries(api.project).filter((entry) => entry.kind === 'decision' && entry.source === 'person').length === 3);
    // What the server stores: the session scoped by its owner, which nobody types.
    expect(auditEntries(api.project).find((entry) => entry.run === alices)?.session).toBe('["alice","s2"]');

    const session = await audit(api, ['--session', 's2', '--json']);
    expect(session.code).toBe(0);
    const runs = new Set(session.rows.map((row) => JSON.parse(row).run));
    expect(runs).toEqual(new Set([alices, bobs]));

    const byRun = await audit(api, ['--run', other, '--json']);
    expect(byRun.rows.length).toBeGreaterThanOrEqual(2);
    expect(byRun.rows.every((row) => JSON.parse(row).run === other)).toBe(true);

    const chat = await audit(api, ['--session', 's2', '--chat', 'c2', '--json']);
    expect(chat.rows.length).toBeGreaterThan(0);
    expect(chat.rows.every((row) => JSON.parse(row).run === bobs)).toBe(true);

    // carol decided two runs; only one of them was in s2.
    const carol = await audit(api, ['--approver', 'carol', '--json']);
    expect(carol.rows.map((row) => JSON.parse(row).run).sort()).toEqual([alices, other].sort());
    const carolInS2 = await audit(api, ['--approver', 'carol', '--session', 's2']);
    expect(carolInS2.code).toBe(0);
    const [header, sessionLine, ...rows] = carolInS2.rows;
    expect(header).toMatch(/^TIME\s+TOOL\s+VERDICT→DECISION\s+SOURCE\s+APPROVER\s+RULE\s+CALL\s+REASON$/);
    expect(sessionLine).toBe('session s2');
    expect(rows).toHaveLength(1);
    const decision = auditEntries(api.project).find((entry) => entry.run === alices && entry.kind === 'decision' && entry.source === 'person')!;
    expect(decision.approver).toBe('carol');
    // The session as the API was given it, the approver, and whatever rule the entry records.
    expect(rows[0]).toMatch(new RegExp(`Z\\s+write_file\\s+ask→approved\\s+person\\s+carol\\s+${escapeRegExp((decision.rule ?? '-').slice(0, 19))}`));

    // The table's APPROVER column is where the approver is, for the admin too.
    const admin = await audit(api, ['--approver', 'admin']);
    expect(admin.rows).toHaveLength(3);
    const approverColumn = admin.rows[0]!.indexOf('APPROVER');
    expect(admin.rows[2]!.slice(approverColumn, approverColumn + 'admin'.length)).toBe('admin');
    expect(admin.rows[2]).toContain('ask→denied');
  });

  it('an unknown session, run or approver matches nothing, exits 0 and says which log it read', async () => {
    const api = await serve({ script: 'write-note.yaml' });
    await decidedRun(api, { session_id: 's2', chat_id: 'c1', token: 'alice', approver: 'carol', approved: true });
    for (const argv of [['--session', 's9'], ['--run', 'run_unknown'], ['--approver', 'mallory'], ['--session', 'alice']]) {
      const result = await audit(api, argv);
      expect(result.code).toBe(0);
      expect(result.stdout).toBe('');
      expect(result.stderr).toBe('no matching entries in .toolgate/audit.jsonl\n');
    }
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
