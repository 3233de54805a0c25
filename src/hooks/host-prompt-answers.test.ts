/**
 * What a person answered in Claude Code's own prompt reaches the audit log
 * (issue 53, point 13): the hook leaves an ask to the host, and the next
 * call of the session reads the answer from the transcript — a rejection
 * (with what the person said), a call that ran, Claude Code's own denial
 * when nobody could answer — and records it as a decision, once. The
 * transcript lines are Claude Code's own format and words (2.1.332).
 */
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { loadPolicyFile } from '../config/load-policy-file.ts';
import { claudeCode } from './hosts/claude-code.ts';
import { runHook } from './run-hook.ts';

const directory = mkdtempSync(path.join(os.tmpdir(), 'toolgate-host-answers-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
const policyFile = path.join(directory, 'toolgate.yaml');
const auditFile = path.join(directory, '.toolgate', 'audit.jsonl');
writeFileSync(
  policyFile,
  `version: 1
fs:
  zones:
    - { name: project, root: ., mode: rw, approval: { read: allow, write: ask, delete: ask } }
shell:
  default: ask
  rules:
    - { match: ls, decision: allow }
`,
);
const env = { TOOLGATE_STATE_HOME: path.join(directory, 'state'), SHELL: '/bin/bash' };

function transcriptOf(name: string): string {
  const file = path.join(directory, `${name}.jsonl`);
  writeFileSync(file, `${JSON.stringify({ type: 'user', message: { role: 'user', content: 'write the notes' }, timestamp: '2026-12-06T10:00:00.000Z' })}\n`);
  return file;
}

async function hook(transcript: string, session: string, id: string, tool: string, input: Record<string, unknown>): Promise<string> {
  const call = JSON.stringify({ session_id: session, transcript_path: transcript, cwd: directory, hook_event_name: 'PreToolUse', tool_name: tool, tool_input: input, tool_use_id: id });
  const answer = await runHook({ dialect: claudeCode, stdin: Readable.from([call]), loadPolicy: () => loadPolicyFile(policyFile), env });
  if (answer.stdout === '') throw new Error(`no answer (exit ${answer.exitCode}): ${answer.stderr}`);
  return (JSON.parse(answer.stdout) as { hookSpecificOutput: { permissionDecision: string } }).hookSpecificOutput.permissionDecision;
}

function answered(transcript: string, id: string, content: unknown, isError = false): void {
  appendFileSync(transcript, `${JSON.stringify({ type: 'user', message: { role: 'user', content: [{ tool_use_id: id, type: 'tool_result', content, is_error: isError }] }, timestamp: new Date(Date.now() + 5_000).toISOString() })}\n`);
}

function decisionsFor(id: string): Array<Record<string, unknown>> {
  return readFileSync(auditFile, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((entry) => entry.call_id === id && entry.kind === 'decision' && entry.decision !== 'ask');
}

describe("answers given in Claude Code's own prompt", () => {
  it('are recorded by the next call of the session: a rejection with what the person said, a call that ran, each once', async () => {
    const transcript = transcriptOf('session-a');
    expect(await hook(transcript, 'a', 'toolu_A', 'Write', { file_path: path.join(directory, 'notes.txt'), content: 'x' })).toBe('ask');
    expect(decisionsFor('toolu_A')).toEqual([]);
    answered(transcript, 'toolu_A', "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). To tell you how to proceed, the user said:\nnot that file, use docs/", true);
    expect(await hook(transcript, 'a', 'toolu_B', 'Write', { file_path: path.join(directory, 'docs.txt'), content: 'y' })).toBe('ask');
    const [rejected, ...more] = decisionsFor('toolu_A');
    expect(more).toEqual([]);
    expect(rejected).toMatchObject({ decision: 'denied', source: 'person', verdict: 'ask', tool: 'write_file', session: 'claude-code:a', approver: "the person at Claude Code's prompt", reason: "denied in Claude Code's own prompt: not that file, use docs/" });
    expect(rejected!.rule_at).toMatch(/toolgate\.yaml:\d+$/);
    answered(transcript, 'toolu_B', [{ type: 'text', text: 'File created successfully at: docs.txt' }]);
    expect(await hook(transcript, 'a', 'toolu_C', 'Bash', { command: 'ls' })).toBe('allow');
    expect(decisionsFor('toolu_B')).toMatchObject([{ decision: 'approved', source: 'person', reason: expect.stringContaining("approved in Claude Code's own prompt: the call ran") }]);
    // Nothing is recorded twice, and a call that was never asked about is not taken for an answer.
    await hook(transcript, 'a', 'toolu_D', 'Bash', { command: 'ls' });
    expect(decisionsFor('toolu_A')).toHaveLength(1);
    expect(decisionsFor('toolu_B')).toHaveLength(1);
  });

  it("records Claude Code's own denial where nobody could answer its prompt (claude -p) as no person's, and an interruption as the person's", async () => {
    const transcript = transcriptOf('session-b');
    await hook(transcript, 'b', 'toolu_E', 'Write', { file_path: path.join(directory, 'e.txt'), content: 'e' });
    await hook(transcript, 'b', 'toolu_F', 'Write', { file_path: path.join(directory, 'f.txt'), content: 'f' });
    answered(transcript, 'toolu_E', "Claude requested permissions to write to e.txt, but you haven't granted it yet.", true);
    answered(transcript, 'toolu_F', '[Request interrupted by user for tool use]', true);
    await hook(transcript, 'b', 'toolu_G', 'Bash', { command: 'ls' });
    expect(decisionsFor('toolu_E')).toMatchObject([{ decision: 'denied', source: 'mode', reason: expect.stringContaining('nobody could answer its prompt') }]);
    expect(decisionsFor('toolu_E')[0]).not.toHaveProperty('approver');
    expect(decisionsFor('toolu_F')).toMatchObject([{ decision: 'denied', source: 'person' }]);
  });

  it("a call that ran and printed Claude Code's words of refusal is recorded as run, not as refused", async () => {
    const transcript = transcriptOf('session-e');
    await hook(transcript, 'e', 'toolu_L', 'Bash', { command: 'echo "The user doesn\'t want to proceed with this tool use."' });
    answered(transcript, 'toolu_L', "The user doesn't want to proceed with this tool use.\n", false);
    await hook(transcript, 'e', 'toolu_M', 'Bash', { command: 'ls' });
    expect(decisionsFor('toolu_L')).toMatchObject([{ decision: 'approved', source: 'person' }]);
  });

  it("keeps an unanswered ask for later, and another session's transcript answers nothing of this one", async () => {
    const mine = transcriptOf('session-c');
    const theirs = transcriptOf('session-d');
    await hook(mine, 'c', 'toolu_H', 'Write', { file_path: path.join(directory, 'h.txt'), content: 'h' });
    answered(theirs, 'toolu_H', 'File created successfully');
    await hook(theirs, 'd', 'toolu_I', 'Bash', { command: 'ls' });
    expect(decisionsFor('toolu_H')).toEqual([]);
    await hook(mine, 'c', 'toolu_J', 'Bash', { command: 'ls' });
    expect(decisionsFor('toolu_H')).toEqual([]);
    answered(mine, 'toolu_H', 'File created successfully');
    await hook(mine, 'c', 'toolu_K', 'Bash', { command: 'ls' });
    expect(decisionsFor('toolu_H')).toMatchObject([{ decision: 'approved' }]);
  });
});
