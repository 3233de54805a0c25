import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { codexCallArguments, lastUserMessageIn, readRegularFile } from './host-transcript.ts';

const directory = mkdtempSync(path.join(os.tmpdir(), 'toolgate-transcript-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

function transcript(name: string, lines: unknown[]): string {
  const file = path.join(directory, name);
  writeFileSync(file, `${lines.map((line) => JSON.stringify(line)).join('\n')}\nnot json\n`);
  return file;
}

describe('lastUserMessageIn', () => {
  it("finds the person's last message in Claude Code's transcript, past tool results and its own meta notes", () => {
    const file = transcript('claude.jsonl', [
      { type: 'user', message: { role: 'user', content: 'first ask' } },
      { type: 'user', message: { role: 'user', content: [{ type: 'text', text: 'fix the parser' }] } },
      { type: 'assistant', message: { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'Bash', input: {} }] } },
      { type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'ok' }] } },
      { type: 'user', isMeta: true, message: { role: 'user', content: '<system-reminder>x</system-reminder>' } },
    ]);
    expect(lastUserMessageIn(file)).toBe('fix the parser');
  });

  it("finds it in Codex's rollout, not in the context Codex injects", () => {
    const file = transcript('codex.jsonl', [
      { type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'add a test' }] } },
      { type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: '<environment_context>…</environment_context>' }] } },
      { type: 'response_item', payload: { type: 'function_call', name: 'exec_command' } },
    ]);
    expect(lastUserMessageIn(file)).toBe('add a test');
  });

  it('cuts a long message, and gives nothing for a missing file, a named pipe (which would hang the hook) or a transcript without one', () => {
    expect(lastUserMessageIn(transcript('long.jsonl', [{ type: 'user', message: { role: 'user', content: 'x'.repeat(2000) } }]))).toBe(`${'x'.repeat(500)}…`);
    expect(lastUserMessageIn(path.join(directory, 'missing.jsonl'))).toBeUndefined();
    const fifo = path.join(directory, 'pipe.jsonl');
    execFileSync('mkfifo', [fifo]);
    expect(lastUserMessageIn(fifo)).toBeUndefined();
    expect(lastUserMessageIn(transcript('none.jsonl', [{ type: 'assistant', message: { role: 'assistant', content: 'hi' } }]))).toBeUndefined();
  });
});

describe('readRegularFile and the Codex call lookup', () => {
  it('reads a whole regular file, says "too large" past the limit, and gives nothing for a pipe or a missing file', () => {
    const directory = mkdtempSync(path.join(os.tmpdir(), 'toolgate-read-'));
    try {
      writeFileSync(path.join(directory, 'small'), 'abc');
      expect(readRegularFile(path.join(directory, 'small'), 3)).toBe('abc');
      expect(readRegularFile(path.join(directory, 'small'), 2)).toBe('too large');
      expect(readRegularFile(path.join(directory, 'missing'), 10)).toBeUndefined();
      execFileSync('mkfifo', [path.join(directory, 'pipe')]);
      expect(readRegularFile(path.join(directory, 'pipe'), 10)).toBeUndefined();
      // A call whose line is longer than the short tail is still found (the longer read), and the latest line of its id wins.
      const line = (args: Record<string, unknown>) => JSON.stringify({ type: 'response_item', payload: { type: 'function_call', arguments: JSON.stringify(args), call_id: 'call_1' } });
      writeFileSync(path.join(directory, 'rollout.jsonl'), `${line({ cmd: 'x'.repeat(300 * 1024), shell: '/bin/zsh' })}\n${JSON.stringify({ type: 'event_msg', payload: { text: 'mentions call_1' } })}\n`);
      expect(codexCallArguments(path.join(directory, 'rollout.jsonl'), 'call_1')).toMatchObject({ shell: '/bin/zsh' });
      expect(codexCallArguments(path.join(directory, 'rollout.jsonl'), 'call_2')).toBeUndefined();
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
