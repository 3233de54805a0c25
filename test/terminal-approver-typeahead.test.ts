/**
 * Keys typed ahead never answer (issue 15, class 2), with the in-memory
 * terminal: whatever was typed before a question is on screen, and in the
 * settle time after the box is drawn, is dropped and counted on screen; only
 * keys typed after the question answer it. Also in line mode, and after the
 * editor had the terminal.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { droppedNotice } from '../src/approvers/terminal/prompt-input.ts';
import { presentedRequest, useTerminalApproverHarness } from './terminal-approver-harness.ts';

const harness = useTerminalApproverHarness();
const signal = () => new AbortController().signal;

describe('terminal approver: typed-ahead keys', () => {
  it('drops keys typed before the prompt and says how many', async () => {
    harness.terminal.type('y');
    harness.terminal.type('s');
    const decision = harness.approver().ask(presentedRequest(), { signal: signal() });
    await harness.terminal.waitFor('approve? [');
    expect(harness.screen()).toContain(`${droppedNotice(2)}\napprove? [`);
    harness.terminal.type('n');
    await harness.terminal.waitFor('reason');
    harness.terminal.type('\r');
    expect(await decision).toEqual({ approved: false, scope: 'once' });
  });

  it('drops keys typed after the box is drawn but inside the settle time', async () => {
    // A settle time no pause of a loaded machine between the box and the keys outlasts.
    const decision = harness.approver({ settleMilliseconds: 3_000 }).ask(presentedRequest(), { signal: signal() });
    await harness.terminal.waitFor('[?] help');
    expect(harness.screen()).not.toContain('approve? [');
    harness.terminal.type('y');
    harness.terminal.type('a');
    await harness.terminal.waitFor('approve? [');
    expect(harness.screen()).toContain(droppedNotice(2));
    harness.terminal.type('n');
    await harness.terminal.waitFor('reason');
    harness.terminal.type('\r');
    expect(await decision).toEqual({ approved: false, scope: 'once' });
  });

  it('a second y at one prompt does not approve the next ask', async () => {
    const approver = harness.approver();
    const first = approver.ask(presentedRequest(), { signal: signal() });
    const second = approver.ask(presentedRequest({ tool: 'shell', presentation: { type: 'command', content: 'rm -rf build' } }), { signal: signal() });
    await harness.terminal.waitFor('approve? [');
    harness.terminal.type('y');
    harness.terminal.type('y');
    expect(await first).toEqual({ approved: true, scope: 'once' });
    await harness.terminal.waitFor(/┌─ shell[\s\S]*approve\? \[/);
    // However the second y arrived (while the first prompt closed, or queued after it), the next prompt says it was dropped.
    expect(harness.screen().slice(harness.screen().indexOf('┌─ shell'))).toContain(droppedNotice(1));
    let settled = false;
    void second.then(() => (settled = true));
    await sleep(100);
    expect(settled).toBe(false);
    harness.terminal.type('n');
    await harness.terminal.waitFor('reason');
    harness.terminal.type('\r');
    expect(await second).toEqual({ approved: false, scope: 'once' });
  });

  it('a double y that arrives as one chunk is a paste: it answers nothing, and the prompt waits for a key', async () => {
    const decision = harness.approver().ask(presentedRequest(), { signal: signal() });
    await harness.terminal.waitFor('approve? [');
    harness.terminal.type('yy');
    await harness.terminal.waitFor('pasted text is ignored');
    harness.terminal.type('n');
    await harness.terminal.waitFor('reason');
    harness.terminal.type('\r');
    expect(await decision).toEqual({ approved: false, scope: 'once' });
  });

  it('says nothing when nothing was typed ahead', async () => {
    expect(await harness.answer(['y'])).toEqual({ approved: true, scope: 'once' });
    expect(harness.screen()).not.toContain('ignored');
  });

  it('in line mode, lines typed ahead are dropped as well', async () => {
    harness.useTerminal({ raw: false });
    harness.terminal.type('y\n');
    const decision = harness.approver().ask(presentedRequest(), { signal: signal() });
    await harness.terminal.waitFor('approve? [');
    expect(harness.screen()).toContain(droppedNotice(2));
    harness.terminal.type('n\n');
    await harness.terminal.waitFor('reason');
    harness.terminal.type('\n');
    expect(await decision).toEqual({ approved: false, scope: 'once' });
  });

  it('keys typed while the editor had the terminal do not answer the question after it', async () => {
    const editor = async () => {
      // The person types while the editor runs (or the editor leaves keys behind).
      harness.terminal.type('y');
      return '{ not json';
    };
    const decision = harness.approver({ editor }).ask(presentedRequest(), { signal: signal() });
    await harness.terminal.waitFor('approve? [');
    harness.terminal.type('e');
    await harness.terminal.waitFor('[c] cancel');
    expect(harness.screen()).toContain(droppedNotice(1));
    harness.terminal.type('c');
    await harness.terminal.waitFor('approve? [');
    harness.terminal.type('n');
    await harness.terminal.waitFor('reason');
    harness.terminal.type('\r');
    expect(await decision).toEqual({ approved: false, scope: 'once' });
  });

  it('Ctrl-C inside the settle time still interrupts', async () => {
    const decision = harness.approver({ settleMilliseconds: 5_000 }).ask(presentedRequest(), { signal: signal() });
    await harness.terminal.waitFor('[?] help');
    harness.terminal.type('\x03');
    expect(await decision).toMatchObject({ approved: false, reason: 'interrupted', stop: true });
  });

  it('keys pressed right after an answer, while the prompt is still open, are reported by the next prompt', async () => {
    const approver = harness.approver();
    const first = approver.ask(presentedRequest(), { signal: signal() });
    await harness.terminal.waitFor('approve? [');
    // One chunk per key, all before the approver has had a turn to close the first prompt.
    harness.terminal.type('y');
    harness.terminal.type('y');
    harness.terminal.type('s');
    expect(await first).toEqual({ approved: true, scope: 'once' });
    const second = approver.ask(presentedRequest({ tool: 'shell', presentation: { type: 'command', content: 'make deploy' } }), { signal: signal() });
    await harness.terminal.waitFor(/┌─ shell[\s\S]*approve\? \[/);
    expect(harness.screen()).toContain(droppedNotice(2));
    harness.terminal.type('n');
    await harness.terminal.waitFor('reason');
    harness.terminal.type('\r');
    expect(await second).toEqual({ approved: false, scope: 'once' });
  });
});
