/** toolgate's real filesystem tools, gated inside AI SDK runs over a temporary project. */
import { generateText, type ModelMessage } from 'ai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { recordingApprover, scriptedModel, toolResultFor } from '../../../test/ai-sdk-fixture.ts';
import { createFsFixture, type FsFixture } from '../../../test/fs-fixture.ts';
import { createGate } from '../../core/gate.ts';
import { createFsTools } from '../../tools/fs/create-fs-tools.ts';
import { gateTools } from './gate-tools.ts';
import { resumeRun } from './resume-run.ts';
import { runOutcome } from './run-outcome.ts';
import { createRunState } from './run-state.ts';

let fixture: FsFixture;
beforeEach(() => {
  fixture = createFsFixture();
});
afterEach(() => fixture.cleanup());

const WRITE = { path: 'ws/notes.txt', content: 'rewritten\n' };

/** Writes ws/notes.txt as c1, then reports what it saw. */
function writeModel() {
  return scriptedModel((options) => {
    const seen = toolResultFor(options.prompt, 'c1');
    return seen === undefined ? { toolCalls: [{ toolCallId: 'c1', toolName: 'write_file', input: WRITE }] } : { text: JSON.stringify(seen.output) };
  });
}

/** The fixture's policy and tools, without the fixture's approver: the run's own approver is asked, or asks pause. */
function gateWithoutApprover() {
  return createGate({ policy: fixture.gate.policy, tools: fixture.tools });
}

describe('built-in tools through the AI SDK', () => {
  it('reads at once, and writes after the person approved the diff they were shown', async () => {
    const approver = recordingApprover({ approved: true, scope: 'once' });
    const gated = gateTools({ tools: fixture.tools, gate: gateWithoutApprover(), context: { sessionId: 's1' }, resolve: 'blocking', approver });
    const { model, calls } = scriptedModel((options, step) => {
      if (step === 0) return { toolCalls: [{ toolCallId: 'r1', toolName: 'read_file', input: { path: 'ws/notes.txt' } }] };
      if (step === 1) return { toolCalls: [{ toolCallId: 'c1', toolName: 'write_file', input: WRITE }] };
      return { text: JSON.stringify(toolResultFor(options.prompt, 'c1')?.output) };
    });
    const result = await generateText({ model, prompt: 'edit the notes', ...gated });
    expect(toolResultFor(calls[1]!.prompt, 'r1')?.output).toMatchObject({ type: 'json', value: { content: 'line one\nline two\nline three\n' } });
    expect(approver.asked.map((request) => [request.tool, request.presentation?.type])).toEqual([['write_file', 'diff']]);
    expect(fixture.read('ws/notes.txt')).toBe('rewritten\n');
    expect(JSON.parse(result.text)).toMatchObject({ type: 'json', value: { path: 'ws/notes.txt', created: false } });
  });

  it('refuses to write when the file changed after the person saw its diff', async () => {
    const approver = recordingApprover(() => {
      fixture.write('ws/notes.txt', 'changed behind the approver\n');
      return { approved: true, scope: 'once' };
    });
    const gated = gateTools({ tools: fixture.tools, gate: gateWithoutApprover(), context: { sessionId: 's1' }, resolve: 'blocking', approver });
    const { model } = writeModel();
    const result = await generateText({ model, prompt: 'edit', ...gated });
    expect(fixture.read('ws/notes.txt')).toBe('changed behind the approver\n');
    expect(JSON.parse(result.text)).toMatchObject({ type: 'error-text', value: expect.stringContaining('changed since it was approved') });
  });

  it('blocks a path outside every zone, and the model reads why', async () => {
    const gated = gateTools({ tools: fixture.tools, gate: gateWithoutApprover(), context: { sessionId: 's1' }, resolve: 'blocking', approver: recordingApprover({ approved: true, scope: 'once' }) });
    const { model } = scriptedModel((options) => {
      const seen = toolResultFor(options.prompt, 'c1');
      return seen === undefined ? { toolCalls: [{ toolCallId: 'c1', toolName: 'read_file', input: { path: '../outside/secret.txt' } }] } : { text: JSON.stringify(seen.output) };
    });
    const before = fixture.outsideState();
    const result = await generateText({ model, prompt: 'read', ...gated });
    expect(JSON.parse(result.text)).toMatchObject({ type: 'execution-denied', reason: expect.stringMatching(/outside|zone/) });
    expect(fixture.outsideState()).toBe(before);
  });

  it('refuses a call whose arguments break the tool’s strict schema, in every run of the same tools (the schema is converted once)', async () => {
    const before = fixture.read('ws/notes.txt');
    for (const input of [{ ...WRITE, append: true }, { path: 'ws/notes.txt', content: 7 }, { path: ['ws/notes.txt'], content: 'x' }]) {
      const approver = recordingApprover({ approved: true, scope: 'once' });
      const gated = gateTools({ tools: fixture.tools, gate: gateWithoutApprover(), context: { sessionId: 's1' }, resolve: 'blocking', approver });
      const { model } = scriptedModel((options) => {
        const seen = toolResultFor(options.prompt, 'c1');
        return seen === undefined ? { toolCalls: [{ toolCallId: 'c1', toolName: 'write_file', input }] } : { text: 'done' };
      });
      const result = await generateText({ model, prompt: 'edit', ...gated });
      expect(result.steps[0]!.content.some((part) => part.type === 'tool-error')).toBe(true);
      expect(approver.asked).toEqual([]);
      expect(fixture.read('ws/notes.txt')).toBe(before);
    }
  });

  it('refuses built-in tools other than the ones the gate judges', () => {
    const others = createFsTools({ zones: fixture.zones, cwd: fixture.project });
    expect(() => gateTools({ tools: others, gate: fixture.gate, context: { sessionId: 's1' }, resolve: 'blocking' })).toThrow(/already knows another tool named read_file/);
  });

  it('deferred: a write approved later runs only if the file is still what the person was shown', async () => {
    const start: ModelMessage[] = [{ role: 'user', content: 'edit' }];
    const gated = gateTools({ tools: fixture.tools, gate: gateWithoutApprover(), context: { sessionId: 's1' }, resolve: 'deferred' });
    const { model } = writeModel();
    const paused = await generateText({ model, messages: start, ...gated });
    const outcome = runOutcome({ gated, content: paused.content });
    expect(outcome.pending[0]).toMatchObject({ tool: 'write_file', presentation: { type: 'diff' } });
    fixture.write('ws/notes.txt', 'changed while waiting\n');
    const resumed = await resumeRun({ gated, state: await createRunState({ gated, messages: start, result: paused }), decisions: [{ toolCallId: 'c1', approved: true }] });
    expect(resumed.decided[0]?.authorization).toMatchObject({ decision: 'denied', source: 'mode', reason: expect.stringContaining('changed after the person was shown it') });
    const finished = await generateText({ model, messages: resumed.messages, ...gated });
    expect(fixture.read('ws/notes.txt')).toBe('changed while waiting\n');
    expect(JSON.parse(finished.text)).toMatchObject({ type: 'execution-denied' });
  });

  it('deferred: an unchanged file is written on approval, with the approved presentation checked', async () => {
    const start: ModelMessage[] = [{ role: 'user', content: 'edit' }];
    const gated = gateTools({ tools: fixture.tools, gate: gateWithoutApprover(), context: { sessionId: 's1' }, resolve: 'deferred' });
    const { model } = writeModel();
    const paused = await generateText({ model, messages: start, ...gated });
    const resumed = await resumeRun({ gated, state: await createRunState({ gated, messages: start, result: paused }), decisions: [{ toolCallId: 'c1', approved: true }] });
    expect(resumed.decided[0]?.authorization).toMatchObject({ decision: 'approved', source: 'person', presentation: { type: 'diff' } });
    await generateText({ model, messages: resumed.messages, ...gated });
    expect(fixture.read('ws/notes.txt')).toBe('rewritten\n');
  });
});
