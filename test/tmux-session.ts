/**
 * A real terminal for tests: a detached tmux session on a private server
 * (never a person's sessions), read with capture-pane, typed into with
 * send-keys. The test script installs tmux; its absence is a failure here.
 */
import { execFileSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';

export interface TmuxSession {
  /** Types keys (tmux key names such as Enter), or `literal` text. */
  send(keys: string, options?: { literal?: boolean }): void;
  /** The screen, wrapped lines joined. */
  screen(): string;
  /** Polls the screen until `pattern` shows, for at most `timeoutMs`; throws with the screen otherwise. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>;
  close(): void;
}

export function startTmuxSession(options: { command: string; cwd: string; width?: number; height?: number; env?: Record<string, string> }): TmuxSession {
  const socket = `toolgate-test-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  const session = 'test';
  const tmux = (...args: string[]) => execFileSync('tmux', ['-L', socket, '-f', '/dev/null', ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const environment = Object.entries(options.env ?? {}).flatMap(([name, value]) => ['-e', `${name}=${value}`]);
  tmux('new-session', '-d', '-s', session, '-x', String(options.width ?? 110), '-y', String(options.height ?? 45), '-c', options.cwd, ...environment, options.command);
  const screen = () => tmux('capture-pane', '-p', '-J', '-t', session);
  return {
    send(keys, sendOptions) {
      tmux('send-keys', '-t', session, ...(sendOptions?.literal === true ? ['-l'] : []), keys);
    },
    screen,
    async waitFor(pattern, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      let text = '';
      while (Date.now() < deadline) {
        text = screen();
        if (pattern.test(text)) return text;
        await sleep(100);
      }
      throw new Error(`timed out waiting for ${pattern} on the tmux screen:\n${text}`);
    },
    close() {
      try {
        tmux('kill-server');
      } catch {
        // Already gone.
      }
    },
  };
}
