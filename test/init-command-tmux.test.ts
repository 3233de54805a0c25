/**
 * `toolgate init` at a real terminal (tmux) asks before it adds `.toolgate/`
 * to .gitignore (issue 39): y adds the one line, Enter (the default, no)
 * leaves the file as it was.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { startTmuxSession, type TmuxSession } from './tmux-session.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = `${path.join(ROOT, 'node_modules/.bin/node')} ${path.join(ROOT, 'src/cli/main.ts')}`;
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function repository(gitignore: string): string {
  const root = mkdtempSync(path.join(os.tmpdir(), 'toolgate-init-tty-'));
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  execFileSync('git', ['init', '-q'], { cwd: root });
  writeFileSync(path.join(root, '.gitignore'), gitignore);
  return root;
}

function initAtTerminal(cwd: string): TmuxSession {
  const terminal = startTmuxSession({ command: `${CLI} init; echo EXIT=$?; sleep 30`, cwd });
  cleanups.push(() => terminal.close());
  return terminal;
}

describe('toolgate init at a terminal', () => {
  it('asks, and y adds exactly one line', async () => {
    const root = repository('node_modules/');
    const terminal = initAtTerminal(root);
    await terminal.waitFor(/add \.toolgate\/ \(toolgate's approvals and audit log\) to .*\.gitignore\? \[y\/N\]/);
    // Nothing changes while the question waits.
    expect(readFileSync(path.join(root, '.gitignore'), 'utf8')).toBe('node_modules/');
    terminal.send('y', { literal: true });
    terminal.send('Enter');
    const screen = await terminal.waitFor(/EXIT=\d+/);
    expect(screen).toContain('EXIT=0');
    expect(screen).toContain('.gitignore: added .toolgate/');
    expect(readFileSync(path.join(root, '.gitignore'), 'utf8')).toBe('node_modules/\n.toolgate/\n');
  });

  it('Enter is no: the file stays as it was, and init says how to add the line later', async () => {
    const root = repository('dist/\n');
    const terminal = initAtTerminal(root);
    await terminal.waitFor(/\[y\/N\]/);
    terminal.send('Enter');
    const screen = await terminal.waitFor(/EXIT=\d+/);
    expect(screen).toContain('EXIT=0');
    expect(screen).toContain('.gitignore: left as it is; `toolgate init --gitignore` adds .toolgate/');
    expect(readFileSync(path.join(root, '.gitignore'), 'utf8')).toBe('dist/\n');
    expect(readFileSync(path.join(root, 'toolgate.yaml'), 'utf8')).toContain('# toolgate policy');
  });
});
