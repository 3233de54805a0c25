import { droppedNotice } from './prompt-input.ts';
import { getEventListeners } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { expectTerminalSafe, presentedRequest, UNSAFE, useTerminalApproverHarness, withoutColour } from '../../../test/terminal-approver-harness.ts';
import { createGate } from '../../core/gate.ts';
import { normalizePolicy } from '../../core/policy/normalize-policy.ts';
import { TERMINAL_APPROVAL_KEYS } from './terminal-approver.ts';
import { TerminalPromptError } from './terminal-prompt-error.ts';

const harness = useTerminalApproverHarness();

describe('terminal approver: keys', () => {
  it('shows the box with the key line, reads one key in raw mode, and restores the terminal', async () => {
    const decision = await harness.answer(['y']);
    expect(decision).toEqual({ approved: true, scope: 'once' });
    const output = harness.screen();
    expect(output).toContain('┌─ ');
    expect(output).toContain('write_file');
    expect(output).toContain('Edit notes/report.md');
    expect(output).toContain('+## Executive Summary');
    expect(output).toContain('[a] approve always');
    expect(output).toContain('✓ approved once');
    expect(harness.terminal.input.setRawMode.mock.calls).toEqual([[true], [false]]);
  });

  it.each([
    ['y', { approved: true, scope: 'once' }, '✓ approved once'],
    ['Y', { approved: true, scope: 'once' }, '✓ approved once'],
    ['s', { approved: true, scope: 'session' }, '✓ approved for this session'],
    ['a', { approved: true, scope: 'always' }, '✓ approved always'],
  ])('%s answers %o', async (key, expected, line) => {
    // y at once; s and a say what they cover first, and the same key again approves (as in the web inbox).
    const keys = key.toLowerCase() === 'y' ? [key] : [key, { wait: `press ${key} again to approve` }, key];
    expect(await harness.answer(keys)).toEqual(expected);
    expect(harness.screen()).toContain(line);
  });

  it('a double press of a is not its second step: the second a, pressed before what "always" covers was shown, is dropped', async () => {
    const decision = harness.approver().ask(presentedRequest(), { signal: new AbortController().signal });
    await harness.terminal.waitFor('approve? [');
    harness.terminal.type('a');
    harness.terminal.type('a');
    await harness.terminal.waitFor('press a again');
    expect(harness.screen()).toContain(droppedNotice(1));
    harness.terminal.type('n');
    await harness.terminal.waitFor('not approved: choose again');
    await harness.terminal.waitFor('approve? [');
    harness.terminal.type('y');
    expect(await decision).toEqual({ approved: true, scope: 'once' });
  });

  it('s and a say what they cover, and any other key takes them back without answering', async () => {
    const decision = await harness.answer(['a', { wait: 'press a again' }, 'y', { wait: 'not approved: choose again' }, { wait: 'approve? [' }, 's', { wait: 'press s again' }, 's']);
    expect(decision).toEqual({ approved: true, scope: 'session' });
    const output = harness.screen();
    expect(output).toContain('“Always” lets these run without asking: later write_file calls in this session and every later one with the same');
    expect(output).toContain('until revoked (toolgate approvals).');
    expect(output).toContain('“For this session” lets these run without asking: later write_file calls in this session with the same');
    // The y that took "always" back was not taken as "allow once".
    expect(output).not.toContain('✓ approved once');
  });

  it('where "always" offers choices, they are numbered narrowest first: a again takes the first, a number another, any other key takes it back', async () => {
    const alwaysScopes = [
      { id: 'exact', text: 'write_file with exactly these arguments, nothing else', rule: 'write_file with arguments sha256:0123456789abcdef' },
      { id: 'folder', text: 'write_file of any file under "notes/" in zone ws', rule: 'write_file: zone ws, path "notes/**"' },
    ];
    const request = presentedRequest({ alwaysScopes });
    expect(await harness.answer(['a', { wait: 'or 1-3' }, 'a'], { request })).toEqual({ approved: true, scope: 'always', alwaysScope: 'exact' });
    const screen = harness.screen();
    expect(screen).toContain('  1  only this exact call: write_file with exactly these arguments');
    expect(screen).toContain('  2  calls like this one: later write_file calls');
    expect(screen).toContain('  3  wider: write_file of any file under "notes/" in zone ws — rule: write_file: zone ws, path "notes/**"');
    expect(screen).toContain('press a again to approve always (the first), or 1-3');
  });

  it.each([
    ['1', { approved: true, scope: 'always', alwaysScope: 'exact' }],
    ['2', { approved: true, scope: 'always' }],
    ['3', { approved: true, scope: 'always', alwaysScope: 'folder' }],
  ])('"always", then %s, answers %o', async (key, expected) => {
    const alwaysScopes = [
      { id: 'exact', text: 'write_file with exactly these arguments, nothing else', rule: 'r1' },
      { id: 'folder', text: 'write_file of any file under "notes/"', rule: 'r2' },
    ];
    expect(await harness.answer(['a', { wait: 'or 1-3' }, key], { request: presentedRequest({ alwaysScopes }) })).toEqual(expected);
  });

  it('a number past the choices, or another key, approves nothing', async () => {
    const request = presentedRequest({ alwaysScopes: [{ id: 'exact', text: 'exactly', rule: 'r' }] });
    const decision = await harness.answer(['a', { wait: 'or 1-2' }, '3', { wait: 'not approved: choose again' }, { wait: 'approve? [' }, 'y'], { request });
    expect(decision).toEqual({ approved: true, scope: 'once' });
  });

  it('n asks for a reason the model will see, echoes it and passes it on', async () => {
    const decision = await harness.answer(['n', { wait: 'reason for the model' }, 'too ', 'risky', '\r']);
    expect(decision).toEqual({ approved: false, scope: 'once', reason: 'too risky' });
    expect(harness.screen()).toContain('too risky\n');
    expect(harness.screen()).toContain('✗ denied — write_file: too risky');
  });

  it('n then Enter denies without a reason', async () => {
    expect(await harness.answer(['n', { wait: 'reason for the model' }, '\r'])).toEqual({ approved: false, scope: 'once' });
  });

  it('Esc at the reason goes back to the prompt', async () => {
    const decision = await harness.answer(['n', { wait: 'Esc to go back' }, '\x1b', { wait: 'not denied' }, { wait: 'approve? [' }, 's', { wait: 'press s again' }, 's']);
    expect(decision).toEqual({ approved: true, scope: 'session' });
  });

  it('the reason takes backspace and Ctrl-U, drops control characters and escape sequences, and shows hidden characters escaped', async () => {
    const decision = await harness.answer(['n', { wait: 'reason' }, 'wrong', '\x7f\x7f\x7f\x7f\x7f', 'zz\x15', 'no\x07', '\x1b[2K', ' \u202eway', '\r']);
    expect(decision).toEqual({ approved: false, scope: 'once', reason: 'no \u202eway' });
    const output = harness.screen();
    expect(output).toContain('\\u202eway');
    expectTerminalSafe(harness.terminal.text());
  });

  it('ignores unknown keys, pastes and arrow keys with a hint, and keeps waiting', async () => {
    const decision = await harness.answer(['x', { wait: 'unknown key "x"' }, 'yes', { wait: 'pasted text is ignored' }, '\x1b[A', { wait: 'press y, s, a, n, v or e (? for help)' }, '\u202e', { wait: 'unknown key "\\u202e"' }, 'y']);
    expect(decision).toEqual({ approved: true, scope: 'once' });
    expectTerminalSafe(harness.terminal.text());
  });

  it('? shows the help', async () => {
    await harness.answer(['?', { wait: 'Ctrl-C  deny and stop the run' }, 'y']);
    expect(harness.screen()).toContain('approve always: remembered across sessions');
  });

  it('discards keys typed before the prompt appeared', async () => {
    harness.terminal.type('y');
    expect(await harness.answer(['n', { wait: 'reason' }, '\r'])).toEqual({ approved: false, scope: 'once' });
  });

  it('reads whole lines when the terminal cannot go raw', async () => {
    harness.useTerminal({ raw: false });
    const decision = await harness.answer(['yes\n', { wait: 'type one letter, then Enter' }, 'n\n', { wait: 'reason' }, 'not now\x07\n']);
    expect(decision).toEqual({ approved: false, scope: 'once', reason: 'not now' });
  });

  it('asks one prompt at a time: a second ask waits for the first', async () => {
    const asker = harness.approver();
    const first = asker.ask(presentedRequest(), { signal: new AbortController().signal });
    const second = asker.ask(presentedRequest({ tool: 'shell', presentation: { type: 'command', content: 'ls' } }), { signal: new AbortController().signal });
    await harness.terminal.waitFor('approve? [');
    expect(harness.screen()).not.toContain('┌─ shell');
    harness.terminal.type('y');
    await harness.terminal.waitFor('┌─ shell');
    await harness.terminal.waitFor('approve? [');
    harness.terminal.type('s');
    await harness.terminal.waitFor('press s again');
    harness.terminal.type('s');
    expect(await first).toEqual({ approved: true, scope: 'once' });
    expect(await second).toEqual({ approved: true, scope: 'session' });
  });
});

describe('terminal approver: stopping', () => {
  it('Ctrl-C denies with stop, calls onInterrupt after restoring raw mode', async () => {
    const rawWhenInterrupted: boolean[] = [];
    const onInterrupt = vi.fn(() => void rawWhenInterrupted.push(harness.terminal.input.isRaw));
    const decision = await harness.answer(['\x03'], { onInterrupt });
    expect(decision).toEqual({ approved: false, scope: 'once', reason: 'interrupted', stop: true });
    expect(onInterrupt).toHaveBeenCalledTimes(1);
    expect(rawWhenInterrupted).toEqual([false]);
    expect(harness.screen()).toContain('✗ denied — write_file: interrupted (the run stops)');
  });

  it('Ctrl-C while typing a reason also interrupts', async () => {
    expect(await harness.answer(['n', { wait: 'reason' }, 'abc\x03'])).toMatchObject({ reason: 'interrupted', stop: true });
  });

  it('SIGINT at a prompt interrupts too', async () => {
    const onInterrupt = vi.fn();
    const controller = new AbortController();
    const decision = harness.approver({ onInterrupt }).ask(presentedRequest(), { signal: controller.signal });
    await harness.terminal.waitFor('approve? [');
    expect(process.listenerCount('SIGINT')).toBe(harness.sigintListeners + 1);
    process.emit('SIGINT');
    expect(await decision).toEqual({ approved: false, scope: 'once', reason: 'interrupted', stop: true });
    expect(onInterrupt).toHaveBeenCalledTimes(1);
  });

  it('an aborted signal ends the prompt at once, prints "timed out" and leaves no listener behind', async () => {
    const before = harness.terminal.inputListeners();
    const controller = new AbortController();
    const decision = harness.approver().ask(presentedRequest(), { signal: controller.signal });
    await harness.terminal.waitFor('approve? [');
    expect(harness.terminal.input.isRaw).toBe(true);
    controller.abort(new Error('approval timed out'));
    const error = await decision.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TerminalPromptError);
    expect((error as TerminalPromptError).code).toBe('TERMINAL_ABORTED');
    expect(harness.screen()).toContain('✗ timed out — write_file');
    expect(harness.terminal.input.setRawMode.mock.calls.at(-1)).toEqual([false]);
    expect(harness.terminal.inputListeners()).toEqual(before);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    // Keys typed afterwards are not read by anyone.
    harness.terminal.type('y');
    expect(harness.terminal.input.readableLength).toBe(1);
  });

  it('an abort while the editor is open ends the prompt and aborts the editor', async () => {
    let editorSignal: AbortSignal | undefined;
    const editor = (_text: string, signal: AbortSignal) => {
      editorSignal = signal;
      return new Promise<string>(() => undefined);
    };
    const controller = new AbortController();
    const decision = harness.approver({ editor }).ask(presentedRequest(), { signal: controller.signal });
    await harness.terminal.waitFor('approve? [');
    harness.terminal.type('e');
    await harness.terminal.waitFor('opening the editor');
    controller.abort(new Error('cancelled by the run'));
    await expect(decision).rejects.toMatchObject({ code: 'TERMINAL_ABORTED' });
    expect(editorSignal?.aborted).toBe(true);
    expect(harness.screen()).toContain('✗ cancelled');
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('a signal aborted while waiting for another prompt rejects without showing anything', async () => {
    const asker = harness.approver();
    const first = asker.ask(presentedRequest(), { signal: new AbortController().signal });
    await harness.terminal.waitFor('approve? [');
    const controller = new AbortController();
    const second = asker.ask(presentedRequest({ tool: 'shell' }), { signal: controller.signal });
    controller.abort(new Error('approval timed out'));
    await expect(second).rejects.toMatchObject({ code: 'TERMINAL_ABORTED' });
    harness.terminal.type('y');
    expect(await first).toEqual({ approved: true, scope: 'once' });
    expect(harness.screen()).not.toContain('shell');
  });

  it('the input closing while waiting rejects (the gate denies)', async () => {
    const decision = harness.approver().ask(presentedRequest(), { signal: new AbortController().signal });
    await harness.terminal.waitFor('approve? [');
    harness.terminal.input.end();
    await expect(decision).rejects.toMatchObject({ code: 'TERMINAL_INPUT_CLOSED' });
  });

  it('through the gate, approval_timeout is recorded as "timed out"', async () => {
    const gate = createGate({
      policy: normalizePolicy({ approval_timeout: '100ms' }),
      tools: [{ name: 'pay', needsApproval: true }],
      approver: harness.approver(),
    });
    const result = await gate.authorize({ tool: 'pay', args: { amount: 5 }, callId: 'c1' }, { sessionId: 's1' });
    expect(result).toMatchObject({ decision: 'denied', source: 'timeout', reason: 'timed out' });
    expect(harness.screen()).toContain('✗ timed out — pay');
  });

  it('through the gate, a person\'s keys decide', async () => {
    const gate = createGate({ policy: normalizePolicy({}), tools: [{ name: 'pay', needsApproval: true }], approver: harness.approver() });
    const result = gate.authorize({ tool: 'pay', args: { amount: 5 }, callId: 'c1' }, { sessionId: 's1' });
    await harness.terminal.waitFor('approve? [');
    harness.terminal.type('n');
    await harness.terminal.waitFor('reason');
    harness.terminal.type('not today\r');
    expect(await result).toMatchObject({ decision: 'denied', source: 'person', reason: 'denied by a person: not today' });
  });
});

describe('terminal approver: non-interactive input', () => {
  it('denies at once with automatic: true and says how to approve, without reading the input', async () => {
    harness.useTerminal({ isTTY: false });
    harness.terminal.type('y\n');
    const decision = await harness.approver().ask(presentedRequest({ tool: 'evil\x1b]52;c;aGk=\x07' }), { signal: new AbortController().signal });
    expect(decision).toMatchObject({ approved: false, scope: 'once', automatic: true });
    expect((decision as { reason: string }).reason).toMatch(/needs approval, but nobody who can approve it is reachable here: the input is not an interactive terminal.*To be asked, run toolgate in a terminal$/);
    expect((decision as { reason: string }).reason).not.toMatch(/approve-all|approve_all|mode:/);
    expect(harness.terminal.input.setRawMode).not.toHaveBeenCalled();
    expect(harness.terminal.input.readableLength).toBe(2);
    expect(harness.screen()).toContain('✗ denied automatically: evil\\x1b]52;c;aGk=\\x07 needs approval');
    expectTerminalSafe(harness.terminal.text());
  });

  it('denies a batch the same way', async () => {
    harness.useTerminal({ isTTY: false });
    const decision = await harness.approver().askGroup!([presentedRequest(), presentedRequest({ tool: 'shell' })], { signal: new AbortController().signal });
    expect(decision).toMatchObject({ approved: false, automatic: true });
    expect((decision as { reason: string }).reason).toMatch(/^the batch of 2 requests \(write_file, shell\) needs approval, but nobody who can approve it is reachable here/);
  });
});

describe('terminal approver: terminal safety', () => {
  const hostile = presentedRequest({
    tool: 'write_file\x1b]52;c;cm0gLXJmIH4=\x07',
    description: 'harmless\r\x1b[2Kdelete everything',
    presentation: { type: 'command', content: 'echo safe\r\x1b[2Krm -rf ~ \u202ecod.exe', metadata: { cwd: '/tmp\x9b31m' } },
  });

  it('NO_COLOR: not a single escape sequence reaches the output', async () => {
    await harness.answer(['?', { wait: 'this help' }, 'x', { wait: 'unknown key' }, 'n', { wait: 'reason' }, 'nope\r'], { env: { NO_COLOR: '' }, request: hostile });
    expect(harness.terminal.text()).not.toContain('\x1b');
    expect(harness.terminal.text()).not.toMatch(UNSAFE);
  });

  it('output that is not a TTY gets no colour; a TTY does', async () => {
    harness.useTerminal({ outputTTY: false });
    await harness.answer(['y']);
    expect(harness.terminal.text()).not.toContain('\x1b');
    harness.useTerminal({});
    await harness.answer(['y']);
    expect(harness.terminal.text()).toMatch(/\x1b\[[0-9;]*m/);
  });

  it('hostile request content (\\r\\x1b[2K, OSC 52, C1 CSI, bidi) is shown escaped, also with colour on', async () => {
    await harness.answer(['v', { wait: '-- end' }, 'q', { wait: 'approve? [' }, 'n', { wait: 'reason' }, '\r'], { request: hostile });
    const output = harness.screen();
    expectTerminalSafe(harness.terminal.text());
    expect(output).toContain('echo safe\\r\\x1b[2Krm -rf ~ \\u202ecod.exe');
    expect(output).toContain('harmless\\r\\x1b[2Kdelete everything');
    expect(output).toContain('\\x1b]52;c;cm0gLXJmIH4=\\x07');
    expect(output).toContain('\\x9b31m');
  });

  it('$PAGER receives only sanitized text', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'toolgate-pager-'));
    try {
      const file = join(directory, 'paged.txt');
      await harness.answer(['v', { wait: 'approve? [' }, 'y'], { env: { PAGER: `cat > '${file}'` }, request: hostile });
      const paged = await readFile(file, 'utf8');
      expect(withoutColour(paged)).toContain('echo safe\\r\\x1b[2Krm -rf ~');
      expectTerminalSafe(paged);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });

  it('the key line names every key', () => {
    expect(TERMINAL_APPROVAL_KEYS).toMatch(/\[y\].*\[s\].*\[a\] approve always.*\[n\].*\[v\].*\[e\].*\[\?\]/);
  });
});
