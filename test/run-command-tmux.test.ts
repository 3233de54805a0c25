/**
 * `toolgate run` in a real terminal: the person answers with single keys and
 * sees exactly what the model asked for, escape sequences shown, not obeyed.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { startTmuxSession } from './tmux-session.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

describe('toolgate run in tmux', () => {
  it('shows a hostile write escaped, takes y / n + reason, and the model adapts', async () => {
    const project = mkdtempSync(path.join(os.tmpdir(), 'toolgate-tmux-run-'));
    mkdirSync(path.join(project, 'ws'));
    writeFileSync(path.join(project, 'ws', 'a.txt'), 'one\n');
    writeFileSync(
      path.join(project, 'toolgate.yaml'),
      'fs:\n  zones:\n    - { name: workspace, root: ./ws, mode: rw, approval: { read: allow, write: ask, delete: ask } }\nsandbox: { os: preferred }\n',
    );
    // YAML double-quoted strings: \r is a carriage return and \e is ESC.
    writeFileSync(
      path.join(project, 'script.yaml'),
      [
        'steps:',
        '  - text: "Writing two files."',
        '    tool_calls:',
        '      - { tool: write_file, args: { path: ws/a.txt, content: "SAFE LINE\\r\\e[2KEVIL LINE\\n" } }',
        '  - text: "Now the second one."',
        '    tool_calls:',
        '      - { tool: write_file, args: { path: ws/b.txt, content: "second\\n" } }',
        '  - when: { tool: write_file, last_result: denied }',
        '    text: "ADAPTED after the denial"',
        '  - when: otherwise',
        '    text: "not adapted"',
      ].join('\n'),
    );
    const terminal = startTmuxSession({
      cwd: project,
      command: `${path.join(ROOT, 'node_modules/.bin/node')} ${path.join(ROOT, 'src/cli/main.ts')} run "write the files" --model script:script.yaml; echo EXIT=$?; sleep 30`,
      env: { NO_COLOR: '1' },
    });
    try {
      const first = await terminal.waitFor(/approve\? \[y\/s\/a\/n\/v\/e\/\?\]/);
      expect(first).toMatch(/┌─ write_file ─+┐/);
      // The text before \r is not erased, and the erase-line sequence shows as text.
      expect(first).toContain('SAFE LINE\\r\\x1b[2KEVIL LINE');
      expect(first).toContain('-one');
      terminal.send('y');
      await terminal.waitFor(/✓ approved once/);
      await terminal.waitFor(/Write ws\/b\.txt[\s\S]*approve\? \[y\/s\/a\/n\/v\/e\/\?\]\s*$/);
      terminal.send('n');
      await terminal.waitFor(/reason for the model/);
      terminal.send('not now', { literal: true });
      terminal.send('Enter');
      const final = await terminal.waitFor(/EXIT=\d+/);
      expect(final).toContain('✗ denied — write_file: not now');
      expect(final).toContain('ADAPTED after the denial');
      expect(final).toContain('2 tool calls: 0 allowed, 1 approved, 1 denied, 0 blocked');
      expect(final).toContain('EXIT=0');
      expect(readFileSync(path.join(project, 'ws', 'a.txt'), 'utf8')).toBe('SAFE LINE\r\u001b[2KEVIL LINE\n');
    } finally {
      terminal.close();
    }
  });
});
