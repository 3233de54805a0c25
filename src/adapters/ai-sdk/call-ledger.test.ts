/** At most once through a ledger: one paused run state resumed twice, and a call that started before a crash. */
import { generateText, type ModelMessage } from 'ai';
import type { LanguageModelV4CallOptions } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { scriptedModel, toolResultFor, type ModelStep } from '../../../test/ai-sdk-fixture.ts';
import { emailTools, EMAIL, emailGate, RESUME_SECRET } from '../../../test/ai-sdk-email-tools.ts';
import { createInMemoryCallLedger, type CallLedger } from './call-ledger.ts';
import { gateTools } from './gate-tools.ts';
import { resumeRun } from './resume-run.ts';
import { createRunState, parseRunState, serializeRunState, type RunState } from './run-state.ts';

const START: ModelMessage[] = [{ role: 'user', content: 'email ann' }];

function emailModel(options: LanguageModelV4CallOptions): ModelStep {
  const seen = toolResultFor(options.prompt, 'c1');
  if (seen === undefined) return { toolCalls: [{ toolCallId: 'c1', toolName: 'send_email', input: EMAIL }] };
  const output = seen.output as { type: string; value?: unknown; reason?: string };
  return { text: output.type === 'error-text' ? `error: ${String(output.value)}` : `saw: ${JSON.stringify(output.value)}` };
}

/** A paused state, as a server stores it, and a fresh "process" (gated set) to resume it in. */
async function pausedState(): Promise<RunState> {
  const { tools } = emailTools();
  const gated = gateTools({ tools, gate: emailGate(), context: { sessionId: 's1', runId: 'r1' }, resolve: 'deferred', secret: RESUME_SECRET });
  const { model } = scriptedModel((options) => emailModel(options));
  const paused = await generateText({ model, messages: START, ...gated });
  return parseRunState(serializeRunState(await createRunState({ gated, messages: START, result: paused })));
}

async function resumeInNewProcess(state: RunState, ledger: CallLedger) {
  const { tools, ran } = emailTools();
  const gated = gateTools({ tools, gate: emailGate(), context: { sessionId: 's1', runId: 'r1' }, resolve: 'deferred', secret: RESUME_SECRET, ledger });
  const { model } = scriptedModel((options) => emailModel(options));
  const resumed = await resumeRun({ gated, state, decisions: [{ toolCallId: 'c1', approved: true }] });
  const finished = await generateText({ model, messages: resumed.messages, ...gated });
  return { ran, text: finished.text };
}

describe('a call ledger', () => {
  it('runs an approved call once when the same state is resumed in two processes at once', async () => {
    const state = await pausedState();
    const ledger = createInMemoryCallLedger();
    const [first, second] = await Promise.all([resumeInNewProcess(state, ledger), resumeInNewProcess(state, ledger)]);
    expect(first.ran.length + second.ran.length).toBe(1);
    // The one that lost the race gets the call's own result once it completed, or "interrupted" while it ran.
    const texts = [first.text, second.text];
    expect(texts).toContain('saw: {"sent":true,"to":"ann@example.com"}');
    for (const text of texts) expect(text).toMatch(/^saw: \{"sent":true|^error: .*was interrupted/);
  });

  it('returns a completed call’s stored result to a later resume instead of running it again', async () => {
    const state = await pausedState();
    const ledger = createInMemoryCallLedger();
    const first = await resumeInNewProcess(state, ledger);
    const again = await resumeInNewProcess(state, ledger);
    expect(first.ran).toEqual([EMAIL]);
    expect(again.ran).toEqual([]);
    expect(again.text).toBe('saw: {"sent":true,"to":"ann@example.com"}');
  });

  it('reports a call that started before a crash as interrupted, and never runs it again', async () => {
    const state = await pausedState();
    const ledger = createInMemoryCallLedger();
    // The crashed process had taken the call's start, and never finished it.
    await ledger.begin({ runId: 'r1', toolCallId: 'c1', tool: 'send_email', args: EMAIL });
    const after = await resumeInNewProcess(state, ledger);
    expect(after.ran).toEqual([]);
    expect(after.text).toMatch(/^error: (AiSdkCallInterruptedError: )?send_email \(tool call "c1"\) was interrupted: it may have completed\. It started before the run was stopped/);
  });

  it('replays what the ledger recorded of a call without asking the gate again (a recovered run), and gates a call it does not know', async () => {
    const replay = async (ledger: CallLedger) => {
      const { tools, ran } = emailTools();
      const gated = gateTools({ tools, gate: emailGate(), context: { sessionId: 's1', runId: 'r1' }, resolve: 'deferred', secret: RESUME_SECRET, ledger });
      const { model } = scriptedModel((options) => emailModel(options));
      const result = await generateText({ model, messages: START, ...gated });
      return { ran, text: result.text, asked: result.content.filter((part) => part.type === 'tool-approval-request').length };
    };
    const recordedIn = (inner: CallLedger, ids: readonly string[]): CallLedger => ({ ...inner, recorded: (toolCallId) => ids.includes(toolCallId) });

    // Completed before the restart: its recorded output, no person asked, nothing run.
    const completed = createInMemoryCallLedger();
    await completed.begin({ runId: 'r1', toolCallId: 'c1', tool: 'send_email', args: EMAIL });
    await completed.finish({ runId: 'r1', toolCallId: 'c1', tool: 'send_email', args: EMAIL }, { status: 'completed', output: { sent: true, to: 'ann@example.com' } });
    expect(await replay(recordedIn(completed, ['c1']))).toEqual({ ran: [], text: 'saw: {"sent":true,"to":"ann@example.com"}', asked: 0 });

    // Begun and never ended: interrupted, never run.
    const begun = createInMemoryCallLedger();
    await begun.begin({ runId: 'r1', toolCallId: 'c1', tool: 'send_email', args: EMAIL });
    const interrupted = await replay(recordedIn(begun, ['c1']));
    expect(interrupted.ran).toEqual([]);
    expect(interrupted.asked).toBe(0);
    expect(interrupted.text).toMatch(/was interrupted: it may have completed/);

    // A call the ledger does not hold goes through the gate as ever: it asks, and the run pauses.
    expect(await replay(recordedIn(createInMemoryCallLedger(), ['other']))).toMatchObject({ ran: [], asked: 1 });
  });

  it('refuses the call when the ledger fails (fail closed)', async () => {
    const state = await pausedState();
    const broken: CallLedger = {
      begin: async () => {
        throw new Error('disk full');
      },
      finish: async () => {},
    };
    const after = await resumeInNewProcess(state, broken);
    expect(after.ran).toEqual([]);
    expect(after.text).toMatch(/^error: (Error: )?disk full$/);
  });

  it('records a failed call as failed: a later resume reports it interrupted rather than running it again', async () => {
    const state = await pausedState();
    const ledger = createInMemoryCallLedger();
    const { tools } = emailTools();
    const failing = { ...tools, send_email: { ...tools.send_email, execute: async () => { throw new Error('smtp down'); } } };
    const gated = gateTools({ tools: failing, gate: emailGate(), context: { sessionId: 's1', runId: 'r1' }, resolve: 'deferred', secret: RESUME_SECRET, ledger });
    const { model } = scriptedModel((options) => emailModel(options));
    const resumed = await resumeRun({ gated, state, decisions: [{ toolCallId: 'c1', approved: true }] });
    expect((await generateText({ model, messages: resumed.messages, ...gated })).text).toMatch(/^error: (Error: )?smtp down$/);
    const again = await resumeInNewProcess(state, ledger);
    expect(again.ran).toEqual([]);
    expect(again.text).toMatch(/was interrupted/);
  });
});
