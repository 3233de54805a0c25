/**
 * The terminal approver on a real terminal: tmux runs the fixture in a
 * detached session, the test reads the screen with capture-pane and types
 * with send-keys. Proves that what a real terminal shows is the escaped
 * text, not what the escape sequences would do.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { startTmuxSession } from './tmux-session.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

describe('terminal approver in tmux', () => {
  it('shows hostile arguments escaped on a real terminal and takes n, a reason and Enter', async () => {
    const terminal = startTmuxSession({ cwd: ROOT, width: 100, height: 40, command: 'node_modules/.bin/node test/fixtures/terminal-approver-prompt.ts; sleep 5' });
    try {
      const screen = await terminal.waitFor(/approve\? \[y\/s\/a\/n\/v\/e\/\?\]/);
      expect(screen).toMatch(/┌─ shell ─+┐/);
      expect(screen).toContain('[a] approve always');
      // The text before \r is still there, and the erase-line sequence is visible as text.
      expect(screen).toContain('$ echo visible-before\\r\\x1b[2Krm -rf ~/important');
      expect(screen).toContain('Run a command for report\\u202efdp.exe');
      expect(screen).toContain('in /work/ws');

      terminal.send('n');
      await terminal.waitFor(/reason for the model/);
      terminal.send('not with that path', { literal: true });
      await terminal.waitFor(/reason for the model .*not with that path/);
      terminal.send('Enter');

      const final = await terminal.waitFor(/RAW (true|false)/);
      const line = final.split('\n').find((text) => text.startsWith('DECISION '));
      expect(JSON.parse(line!.slice('DECISION '.length))).toEqual({ approved: false, scope: 'once', reason: 'not with that path' });
      expect(final).toContain('✗ denied — shell: not with that path');
      expect(final).toContain('RAW false');
    } finally {
      terminal.close();
    }
  });
});
