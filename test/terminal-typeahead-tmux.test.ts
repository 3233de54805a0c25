/**
 * Keys typed ahead never answer a question nobody saw (issue 15, class 2),
 * on a real terminal: tmux runs the approver and types with send-keys. A `y`
 * typed before the process starts, or a second `y` pressed at one prompt,
 * is dropped when the next question appears, and the screen says so.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { startTmuxSession } from './tmux-session.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PROMPT = /approve\? \[y\/s\/a\/n\/v\/e\/\?\] $/m;

function decisions(screen: string): Record<string, unknown> {
  const found: Record<string, unknown> = {};
  for (const line of screen.split('\n')) {
    const match = /^DECISION (\d) (.*)$/.exec(line);
    if (match !== null) found[match[1]!] = JSON.parse(match[2]!);
  }
  return found;
}

describe('typed-ahead keys in tmux', () => {
  it('a y typed before the process starts does not approve the first ask, and the screen says it was dropped', async () => {
    // The shell sleeps first: the y waits in the terminal's buffer before toolgate's process even exists.
    const terminal = startTmuxSession({ cwd: ROOT, width: 100, height: 40, command: 'sleep 1.5; node_modules/.bin/node test/fixtures/terminal-approver-two-asks.ts; sleep 5' });
    try {
      terminal.send('y');
      const screen = await terminal.waitFor(PROMPT);
      expect(screen).toContain('┌─ write_file');
      expect(screen).toContain('⚠ 1 key typed before this question appeared was ignored: answer now');
      // Nothing was decided by the early key, even after waiting.
      await sleep(800);
      expect(decisions(terminal.screen())).toEqual({});

      terminal.send('n');
      await terminal.waitFor(/reason for the model/);
      terminal.send('Enter');
      const second = await terminal.waitFor(/DECISION 1 [\s\S]*approve\? \[y\/s\/a\/n\/v\/e\/\?\] $/m);
      expect(decisions(second)).toEqual({ 1: { approved: false, scope: 'once' } });
      terminal.send('n');
      await terminal.waitFor(/reason for the model/);
      terminal.send('Enter');
      const final = await terminal.waitFor(/RAW (true|false)/);
      expect(decisions(final)).toEqual({ 1: { approved: false, scope: 'once' }, 2: { approved: false, scope: 'once' } });
      expect(final).toContain('RAW false');
    } finally {
      terminal.close();
    }
  });

  it('pressing y twice at one prompt approves that call only: the second y is dropped at the next prompt, which says so', async () => {
    // A wide settle time, so the second y surely lands before the next question even on a loaded machine.
    const terminal = startTmuxSession({ cwd: ROOT, width: 100, height: 40, env: { SETTLE_MS: '4000' }, command: 'node_modules/.bin/node test/fixtures/terminal-approver-two-asks.ts; sleep 5' });
    try {
      await terminal.waitFor(PROMPT);
      // Two presses, not one chunk: a busy terminal could deliver "yy" together, which is a paste and answers nothing.
      terminal.send('y');
      await terminal.waitFor(/DECISION 1 /);
      terminal.send('y');
      const second = await terminal.waitFor(/DECISION 1 [\s\S]*approve\? \[y\/s\/a\/n\/v\/e\/\?\] $/m);
      expect(decisions(second)).toEqual({ 1: { approved: true, scope: 'once' } });
      expect(second).toMatch(/Write second\.txt[\s\S]*⚠ 1 key typed before this question appeared was ignored: answer now\napprove\?/);
      await sleep(800);
      expect(decisions(terminal.screen())).toEqual({ 1: { approved: true, scope: 'once' } });

      // Keys pressed now, after the question appeared, answer it.
      terminal.send('n');
      await terminal.waitFor(/reason for the model/);
      terminal.send('Enter');
      const final = await terminal.waitFor(/RAW (true|false)/);
      expect(decisions(final)).toEqual({ 1: { approved: true, scope: 'once' }, 2: { approved: false, scope: 'once' } });
    } finally {
      terminal.close();
    }
  });

  it('keys typed while the box is being drawn, in the moment before the question, are dropped too', async () => {
    // A wide settle time, so the key surely lands after the box and before the question on a loaded machine.
    const terminal = startTmuxSession({ cwd: ROOT, width: 100, height: 40, env: { SETTLE_MS: '4000' }, command: 'node_modules/.bin/node test/fixtures/terminal-approver-two-asks.ts; sleep 5' });
    try {
      // The box is on screen but the question is not yet: a y now is a reflex, not an answer.
      await terminal.waitFor(/┌─ write_file/);
      expect(terminal.screen()).not.toMatch(/approve\?/);
      terminal.send('y');
      const screen = await terminal.waitFor(PROMPT);
      await sleep(500);
      expect(decisions(terminal.screen())).toEqual({});
      expect(screen).toContain('was ignored: answer now');
      terminal.send('y');
      await terminal.waitFor(/DECISION 1 /);
      expect(decisions(terminal.screen())).toEqual({ 1: { approved: true, scope: 'once' } });
    } finally {
      terminal.close();
    }
  });

  it('toolgate run: a y typed before it starts and a double y at the first prompt approve only the first write', async () => {
    const project = mkdtempSync(path.join(os.tmpdir(), 'toolgate-tmux-typeahead-'));
    mkdirSync(path.join(project, 'ws'));
    writeFileSync(path.join(project, 'toolgate.yaml'), 'fs:\n  zones:\n    - { name: workspace, root: ./ws, mode: rw, approval: { read: allow, write: ask, delete: ask } }\nsandbox: { os: preferred }\n');
    writeFileSync(
      path.join(project, 'script.yaml'),
      [
        'steps:',
        '  - tool_calls:',
        '      - { tool: write_file, args: { path: ws/a.txt, content: "first\\n" } }',
        '  - tool_calls:',
        '      - { tool: write_file, args: { path: ws/b.txt, content: "second\\n" } }',
        '  - text: "done"',
      ].join('\n'),
    );
    const terminal = startTmuxSession({
      cwd: project,
      command: `sleep 1.5; ${path.join(ROOT, 'node_modules/.bin/node')} ${path.join(ROOT, 'src/cli/main.ts')} run "write the files" --model script:script.yaml; echo EXIT=$?; sleep 30`,
      env: { NO_COLOR: '1' },
    });
    try {
      terminal.send('y');
      const first = await terminal.waitFor(/Write ws\/a\.txt[\s\S]*approve\? \[y\/s\/a\/n\/v\/e\/\?\] $/m);
      expect(first).toContain('⚠ 1 key typed before this question appeared was ignored: answer now');
      await sleep(800);
      expect(existsSync(path.join(project, 'ws', 'a.txt'))).toBe(false);

      terminal.send('y');
      terminal.send('y');
      // Two presses reach toolgate as two keys, or, on a busy machine, as one chunk "yy", which is a paste and
      // answers nothing. Either way the second y never answers the second write.
      let second = await terminal.waitFor(/pasted text is ignored|Write ws\/b\.txt[\s\S]*approve\? \[y\/s\/a\/n\/v\/e\/\?\] $/m);
      const pasted = !second.includes('Write ws/b.txt');
      if (pasted) {
        expect(existsSync(path.join(project, 'ws', 'a.txt'))).toBe(false);
        terminal.send('y');
        second = await terminal.waitFor(/Write ws\/b\.txt[\s\S]*approve\? \[y\/s\/a\/n\/v\/e\/\?\] $/m);
      } else {
        expect(second.slice(second.lastIndexOf('Write ws/b.txt'))).toContain('⚠ 1 key typed before this question appeared was ignored: answer now');
      }
      expect(readFileSync(path.join(project, 'ws', 'a.txt'), 'utf8')).toBe('first\n');
      await sleep(800);
      expect(existsSync(path.join(project, 'ws', 'b.txt'))).toBe(false);

      terminal.send('n');
      await terminal.waitFor(/reason for the model/);
      terminal.send('Enter');
      const final = await terminal.waitFor(/EXIT=\d+/);
      expect(final).toContain('✗ denied — write_file');
      expect(existsSync(path.join(project, 'ws', 'b.txt'))).toBe(false);
    } finally {
      terminal.close();
    }
  });
});
