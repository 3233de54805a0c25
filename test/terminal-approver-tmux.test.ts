/**
 * The terminal approver on a real terminal: tmux runs the fixture in a
 * detached session, the test reads the screen with capture-pane and types
 * with send-keys. Proves that what a real terminal shows is the escaped
 * text, not what the escape sequences would do.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** A private tmux server, so the test never touches a person's sessions. */
const SOCKET = `toolgate-test-${process.pid}`;
const SESSION = 'approver';

function tmux(...args: string[]): string {
  return execFileSync('tmux', ['-L', SOCKET, '-f', '/dev/null', ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

function hasTmux(): boolean {
  try {
    execFileSync('tmux', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Polls the screen (wrapped lines joined) until `pattern` shows, for at most `timeoutMs`. */
async function waitForScreen(pattern: RegExp, timeoutMs = 15_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  let screen = '';
  while (Date.now() < deadline) {
    screen = tmux('capture-pane', '-p', '-J', '-t', SESSION);
    if (pattern.test(screen)) return screen;
    await sleep(100);
  }
  throw new Error(`timed out waiting for ${pattern} on the tmux screen:\n${screen}`);
}

describe('terminal approver in tmux', () => {
  it.skipIf(!hasTmux())('shows hostile arguments escaped on a real terminal and takes n, a reason and Enter', async () => {
    try {
      tmux('new-session', '-d', '-s', SESSION, '-x', '100', '-y', '40', '-c', ROOT, 'node_modules/.bin/node test/fixtures/terminal-approver-prompt.ts; sleep 5');
      const screen = await waitForScreen(/approve\? \[y\/s\/a\/n\/v\/e\/\?\]/);
      expect(screen).toMatch(/┌─ shell ─+┐/);
      expect(screen).toContain('[a] approve always');
      // The text before \r is still there, and the erase-line sequence is visible as text.
      expect(screen).toContain('$ echo visible-before\\r\\x1b[2Krm -rf ~/important');
      expect(screen).toContain('Run a command for report\\u202efdp.exe');
      expect(screen).toContain('in /work/ws');

      tmux('send-keys', '-t', SESSION, 'n');
      await waitForScreen(/reason for the model/);
      tmux('send-keys', '-t', SESSION, '-l', 'not with that path');
      await waitForScreen(/reason for the model .*not with that path/);
      tmux('send-keys', '-t', SESSION, 'Enter');

      const final = await waitForScreen(/RAW (true|false)/);
      const line = final.split('\n').find((text) => text.startsWith('DECISION '));
      expect(JSON.parse(line!.slice('DECISION '.length))).toEqual({ approved: false, scope: 'once', reason: 'not with that path' });
      expect(final).toContain('✗ denied — shell: not with that path');
      expect(final).toContain('RAW false');
    } finally {
      try {
        tmux('kill-session', '-t', SESSION);
      } catch {
        // Already gone.
      }
      try {
        tmux('kill-server');
      } catch {
        // Already gone.
      }
    }
  });
});
