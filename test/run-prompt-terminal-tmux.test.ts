/**
 * Where `toolgate run` asks (issue 13, items 3, 4, 6 and 7), in a real
 * terminal: the prompt goes to the terminal even when stderr is thrown away
 * or the task comes down a pipe; an "approve always" made under the built-in
 * policy is then listed by `toolgate approvals list` in the same directory;
 * without bubblewrap the run says once what it cannot do and still asks.
 * With no terminal at all, every ask is denied with the how-to line.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { pathWithoutBwrap } from './path-without-bwrap.ts';
import { startTmuxSession } from './tmux-session.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const NODE = path.join(ROOT, 'node_modules/.bin/node');
const CLI = `${NODE} ${path.join(ROOT, 'src/cli/main.ts')}`;
const PROMPT = /approve\? \[y\/s\/a\/n\/v\/e\/\?\]/;

/** A project without a policy file (the built-in policy applies) and a script that writes one file. */
function project(): string {
  const root = mkdtempSync(path.join(os.tmpdir(), 'toolgate-tmux-prompt-'));
  writeFileSync(
    path.join(root, 'script.yaml'),
    ['steps:', '  - text: "Writing."', '    tool_calls: [{ tool: write_file, args: { path: notes.txt, content: "from the agent\\n" } }]', '  - text: "Done."'].join('\n'),
  );
  return root;
}

function stateHome(): string {
  return mkdtempSync(path.join(os.tmpdir(), 'toolgate-tmux-state-'));
}

describe('toolgate run asks on the terminal the prompt is shown on', () => {
  it('`run 2>/dev/null` still shows the prompt (on /dev/tty) and takes the answer', async () => {
    const root = project();
    const terminal = startTmuxSession({
      cwd: root,
      command: `${CLI} run "write the notes" --model script:script.yaml 2>/dev/null; echo EXIT=$?; sleep 30`,
      env: { NO_COLOR: '1', TOOLGATE_STATE_HOME: stateHome() },
    });
    try {
      const screen = await terminal.waitFor(PROMPT);
      expect(screen).toMatch(/┌─ write_file ─+┐/);
      expect(screen).toContain('from the agent');
      // stderr is gone: the transcript is not on screen, only the prompt.
      expect(screen).not.toContain('toolgate: the built-in default policy');
      terminal.send('y');
      const final = await terminal.waitFor(/EXIT=\d+/);
      expect(final).toContain('✓ approved once');
      expect(final).toContain('EXIT=0');
      expect(readFileSync(path.join(root, 'notes.txt'), 'utf8')).toBe('from the agent\n');
    } finally {
      terminal.close();
    }
  });

  it('`echo task | toolgate run` takes the task from the pipe and asks at the keyboard; the "always" is then in `approvals list`', async () => {
    const root = project();
    const terminal = startTmuxSession({
      cwd: root,
      command: `echo "write the notes" | ${CLI} run --model script:script.yaml; echo EXIT=$?; ${CLI} approvals list; echo LISTED=$?; sleep 30`,
      env: { NO_COLOR: '1', TOOLGATE_STATE_HOME: stateHome() },
    });
    try {
      await terminal.waitFor(PROMPT);
      terminal.send('a');
      // As in the web inbox: a asks which calls "always" covers, narrowest first, and a again takes the first (this exact call).
      await terminal.waitFor(/press a again to approve always \(the first\), or 1-2/);
      expect(terminal.screen()).toContain('1  only this exact call: write_file with exactly these arguments, nothing else');
      terminal.send('a');
      const final = await terminal.waitFor(/LISTED=\d+/);
      expect(final).toContain('✓ approved always');
      expect(final).toContain('EXIT=0');
      // Made under the built-in policy, found by the state command in the same directory, listed as the rule it amounts to.
      expect(final).toContain("the built-in default policy's state in");
      expect(final).toMatch(/write_file\s*\n\s+write_file with exactly these arguments, nothing else\s*\n\s+rule: write_file with arguments sha256:[0-9a-f]{16}/);
      expect(final).toContain('LISTED=0');
      expect(readFileSync(path.join(root, 'notes.txt'), 'utf8')).toBe('from the agent\n');
    } finally {
      terminal.close();
    }
  });

  it('answers never come from the pipe: piped "y" lines are the task, and the keyboard still decides', async () => {
    const root = project();
    const terminal = startTmuxSession({
      cwd: root,
      command: `printf 'y\\ny\\na\\n' | ${CLI} run --model script:script.yaml; echo EXIT=$?; sleep 30`,
      env: { NO_COLOR: '1', TOOLGATE_STATE_HOME: stateHome() },
    });
    try {
      await terminal.waitFor(PROMPT);
      terminal.send('n');
      await terminal.waitFor(/reason for the model/);
      terminal.send('Enter');
      const final = await terminal.waitFor(/EXIT=\d+/);
      expect(final).toContain('✗ denied');
      expect(final).toContain('1 denied');
      expect(existsSync(path.join(root, 'notes.txt'))).toBe(false);
    } finally {
      terminal.close();
    }
  });

  it('in a terminal, `run` without a task stops at once with how to give one (it does not wait on stdin)', async () => {
    const root = project();
    const terminal = startTmuxSession({ cwd: root, command: `${CLI} run --model script:script.yaml; echo EXIT=$?; sleep 30`, env: { NO_COLOR: '1', TOOLGATE_STATE_HOME: stateHome() } });
    try {
      const final = await terminal.waitFor(/EXIT=\d+/, 10_000);
      expect(final).toContain('give a task: toolgate run "what the agent should do", or on stdin: echo "what the agent should do" | toolgate run');
      expect(final).toContain('EXIT=2');
    } finally {
      terminal.close();
    }
  });

  it('without bubblewrap the run says once what it cannot do and how to install it, and still asks', async () => {
    const root = project();
    const terminal = startTmuxSession({
      cwd: root,
      // PATH for toolgate alone (tmux's -e does not reach the pane's shell PATH here).
      command: `PATH=${pathWithoutBwrap()} ${CLI} run "write the notes" --model script:script.yaml; echo EXIT=$?; sleep 30`,
      env: { NO_COLOR: '1', TOOLGATE_STATE_HOME: stateHome() },
      height: 60,
    });
    try {
      const screen = await terminal.waitFor(PROMPT);
      expect(screen.split('no OS sandbox').length - 1).toBe(1);
      expect(screen).toContain('bwrap (bubblewrap) is not installed or not on PATH');
      expect(screen).toContain('apt-get install bubblewrap');
      expect(screen).toContain('run `toolgate init` to write');
      terminal.send('n');
      await terminal.waitFor(/reason for the model/);
      terminal.send('Enter');
      const final = await terminal.waitFor(/EXIT=\d+/);
      expect(final).toContain('EXIT=0');
      expect(existsSync(path.join(root, 'notes.txt'))).toBe(false);
    } finally {
      terminal.close();
    }
  });
});

describe('toolgate run with no terminal at all', () => {
  it('a task on a pipe and no controlling terminal: every ask is denied with the how-to line', async () => {
    const root = project();
    // detached: a new session, so the child has no controlling terminal (/dev/tty cannot be opened).
    const child = spawn(NODE, [path.join(ROOT, 'src/cli/main.ts'), 'run', '--model', 'script:script.yaml'], {
      cwd: root,
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1', TOOLGATE_STATE_HOME: stateHome() },
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.resume();
    child.stdin.end('write the notes\n');
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    expect(code).toBe(0);
    expect(stderr).toContain('nobody who can approve it is reachable here: toolgate run has no terminal to ask on');
    expect(stderr).toContain('To be asked, start toolgate run from a terminal');
    expect(stderr).not.toMatch(/approve_all|--approve-all|mode:/);
    expect(existsSync(path.join(root, 'notes.txt'))).toBe(false);
  });
});
