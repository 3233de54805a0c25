/**
 * What a person reads at the terminal, on a real terminal (tmux): the box
 * puts short fields before a 3,000-character body, a tool description full
 * of line breaks stays one bounded paragraph, a secret is masked in the box
 * and revealed only by [v], and stays [REDACTED] in the audit log; for a
 * file write, the `[s]` line says that the session approval covers any
 * later content for that path, and it does.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { startTmuxSession } from './tmux-session.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PROMPT = /approve\? \[y\/s\/a\/n\/v\/e\/\?\] $/m;

describe('what the terminal shows, in tmux', () => {
  it('short fields first, a bounded description, a masked secret revealed by [v] and hidden from the audit log', async () => {
    const directory = mkdtempSync(path.join(os.tmpdir(), 'toolgate-tmux-presentation-'));
    const log = path.join(directory, 'audit.jsonl');
    // A small terminal: the first screen is all a person sees before answering.
    const terminal = startTmuxSession({ cwd: ROOT, width: 90, height: 30, env: { NO_COLOR: '1', PAGER: '' }, command: `node_modules/.bin/node test/fixtures/terminal-approver-gate.ts ${log}; sleep 10` });
    try {
      const screen = await terminal.waitFor(PROMPT);
      const rows = screen.trimEnd().split('\n');
      expect(rows.length).toBeLessThanOrEqual(30);
      // The decisive short fields are on the first screen, before the body, whatever order the model chose.
      expect(screen).toContain('"to": "attacker@evil.example"');
      expect(screen).toContain('"subject": "Quarterly numbers"');
      expect(screen.indexOf('"to"')).toBeLessThan(screen.indexOf('"body"'));
      // The description's 120 line breaks are folded: one paragraph, a few rows, cut with a pointer to [v].
      expect(screen).toContain('Sends an email. It is a very helpful tool.');
      expect(screen.split('Really helpful.').length - 1).toBeLessThan(20);
      // The password is masked with its size, never shown, and the box says how to see it.
      expect(screen).toContain('"password": "‹secret: 18 characters›"');
      expect(screen).not.toContain('hunter2');
      expect(screen).toContain('🔒 1 secret value is masked (redact.keys): [v] view full shows them');

      // [v] shows the real value (the person deciding may see it); q comes back to the prompt.
      terminal.send('v');
      const full = await terminal.waitFor(/-- lines 1–\d+ of \d+/);
      expect(full).toContain('"password": "hunter2-TOP-SECRET"');
      terminal.send('q');
      await terminal.waitFor(PROMPT);
      terminal.send('y');
      const final = await terminal.waitFor(/DECISION \w+ \w+/);
      expect(final).toContain('DECISION approved person');
      const audit = readFileSync(log, 'utf8');
      expect(audit).not.toContain('hunter2');
      expect(audit).toContain('"password":"[REDACTED]"');
    } finally {
      terminal.close();
    }
  });

  it('toolgate run: the [s] line says a session approval of a write covers any later content for that path, and it does', async () => {
    const project = mkdtempSync(path.join(os.tmpdir(), 'toolgate-tmux-session-scope-'));
    mkdirSync(path.join(project, 'ws'));
    writeFileSync(path.join(project, 'toolgate.yaml'), 'fs:\n  zones:\n    - { name: workspace, root: ./ws, mode: rw, approval: { read: allow, write: ask, delete: ask } }\nsandbox: { os: preferred }\n');
    writeFileSync(
      path.join(project, 'script.yaml'),
      [
        'steps:',
        '  - tool_calls:',
        '      - { tool: write_file, args: { path: ws/a.txt, content: "first\\n" } }',
        '  - tool_calls:',
        '      - { tool: write_file, args: { path: ws/a.txt, content: "something else entirely\\n" } }',
        '  - text: "done writing"',
      ].join('\n'),
    );
    const terminal = startTmuxSession({
      cwd: project,
      command: `${path.join(ROOT, 'node_modules/.bin/node')} ${path.join(ROOT, 'src/cli/main.ts')} run "write" --model script:script.yaml; echo EXIT=$?; sleep 30`,
      env: { NO_COLOR: '1' },
    });
    try {
      const screen = await terminal.waitFor(PROMPT);
      expect(screen).toContain('[s] approve for session');
      // The line may wrap inside the box.
      expect(screen).toMatch(/\[s\] covers later write_file calls in this session with the same zone "workspace" and path "a\.txt",[\s│]+whatever their content/);
      terminal.send('s');
      await terminal.waitFor(/press s again to approve for this session/);
      terminal.send('s');
      const final = await terminal.waitFor(/EXIT=\d+/);
      expect(final).toContain('done writing');
      // The second write, with other content, was not asked: as the [s] line said.
      expect(final.match(/approve\? \[/g)).toHaveLength(1);
      expect(readFileSync(path.join(project, 'ws', 'a.txt'), 'utf8')).toBe('something else entirely\n');
    } finally {
      terminal.close();
    }
  });
});
