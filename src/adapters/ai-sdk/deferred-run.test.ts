/** Deferred runs (seed 004): pause on approvals, save the state as JSON, resume with decisions. */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { generateText, streamText, type ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { scriptedModel, toolResultFor, type ModelStep } from '../../../test/ai-sdk-fixture.ts';
import { emailTools, EMAIL, emailGate, RESUME_SECRET } from '../../../test/ai-sdk-email-tools.ts';
import type { AuditEntry } from '../../core/audit-entry.ts';
import { gateTools } from './gate-tools.ts';
import { pendingApprovals } from './pending-approvals.ts';
import { resumeRun } from './resume-run.ts';
import { runOutcome } from './run-outcome.ts';
import { createRunState, parseRunState, serializeRunState } from './run-state.ts';
import type { LanguageModelV4CallOptions } from '@ai-sdk/provider';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const run = promisify(execFile);

/** Calls send_email until it sees a result for c1, then says what it saw. */
function emailModel(options: LanguageModelV4CallOptions): ModelStep {
  const seen = toolResultFor(options.prompt, 'c1');
  if (seen === undefined) return { toolCalls: [{ toolCallId: 'c1', toolName: 'send_email', input: EMAIL }] };
  return { text: seen.output.type === 'execution-denied' ? `denied: ${seen.output.reason}` : `saw: ${JSON.stringify(seen.output.value)}` };
}

const START: ModelMessage[] = [{ role: 'user', content: 'email ann' }];

describe('deferred runs', () => {
  it('pause with signed approval requests that carry toolgate’s request, and run nothing', async () => {
    const { tools, ran } = emailTools();
    const gated = gateTools({ tools, gate: emailGate(), context: { sessionId: 's1' }, resolve: 'deferred' });
    const { model } = scriptedModel((options) => emailModel(options));
    const result = await generateText({ model, messages: START, ...gated });
    expect(ran).toEqual([]);
    const outcome = runOutcome({ gated, content: result.content });
    expect(outcome.status).toBe('awaiting-approval');
    expect(outcome.pending).toEqual([
      {
        approvalId: expect.any(String),
        toolCallId: 'c1',
        tool: 'send_email',
        args: EMAIL,
        description: 'Send an email',
        payload: EMAIL,
        required: true,
        reason: 'waiting for approval: tools.send_email is ask',
        presentation: { type: 'structured', content: expect.stringContaining('ann@example.com') },
        askedBy: { rule: 'tools.send_email' },
      },
    ]);
    const request = result.content.find((part) => part.type === 'tool-approval-request');
    expect(request).toMatchObject({ reason: 'Send an email', signature: expect.any(String) });
    expect(request).not.toHaveProperty('isAutomatic', true);
  });

  it('resume in the same process: an approval runs once and the model gets the result; a replay runs nothing', async () => {
    const { tools, ran } = emailTools();
    const audit: AuditEntry[] = [];
    const gated = gateTools({ tools, gate: emailGate({ audit }), context: { sessionId: 's1' }, resolve: 'deferred' });
    const { model } = scriptedModel((options) => emailModel(options));
    const paused = await generateText({ model, messages: START, ...gated });
    const state = parseRunState(serializeRunState(await createRunState({ gated, messages: START, result: paused })));
    const resumed = await resumeRun({ gated, state, decisions: [{ toolCallId: 'c1', approved: true, reason: 'fine' }] });
    expect(resumed.stoppedBy).toBeUndefined();
    const finished = await generateText({ model, messages: resumed.messages, ...gated });
    expect(ran).toEqual([EMAIL]);
    expect(finished.text).toBe('saw: {"sent":true,"to":"ann@example.com"}');
    // The pause is recorded as a pending decision, then the person's answer.
    expect(audit.filter((entry) => entry.kind === 'decision').map((entry) => [entry.decision, entry.source, entry.reason])).toEqual([
      ['ask', 'policy', 'waiting for approval: tools.send_email is ask'],
      ['approved', 'person', 'approved by a person: fine'],
    ]);
    // The same approval sent again (say, a client retrying) runs nothing.
    const replay = await generateText({ model, messages: resumed.messages, ...gated });
    expect(ran).toEqual([EMAIL]);
    expect(replay.text).toMatch(/^denied: send_email was not approved through toolgate/);
    // Resuming the saved state a second time (a retried request) decides nothing and runs nothing.
    await expect(resumeRun({ gated, state, decisions: [{ toolCallId: 'c1', approved: true }] })).rejects.toMatchObject({ code: 'AI_SDK_DECISION_INVALID', message: expect.stringContaining('already decided') });
    expect(ran).toEqual([EMAIL]);
  });

  it('a denial reaches the model with its reason and the model adapts', async () => {
    const { tools, ran } = emailTools();
    const gated = gateTools({ tools, gate: emailGate(), context: { sessionId: 's1' }, resolve: 'deferred' });
    const { model } = scriptedModel((options) => emailModel(options));
    const paused = await generateText({ model, messages: START, ...gated });
    const resumed = await resumeRun({ gated, state: await createRunState({ gated, messages: START, result: paused }), decisions: [{ toolCallId: 'c1', approved: false, reason: 'not today' }] });
    const finished = await generateText({ model, messages: resumed.messages, ...gated });
    expect(ran).toEqual([]);
    expect(finished.text).toBe('denied: denied by a person: not today');
  });

  it('a denial with stop ends the run: resumeRun reports it and writes the denial out', async () => {
    const { tools, ran } = emailTools();
    const gated = gateTools({ tools, gate: emailGate(), context: { sessionId: 's1' }, resolve: 'deferred' });
    const { model } = scriptedModel((options) => emailModel(options));
    const paused = await generateText({ model, messages: START, ...gated });
    const resumed = await resumeRun({ gated, state: await createRunState({ gated, messages: START, result: paused }), decisions: [{ toolCallId: 'c1', approved: false, reason: 'no', stop: true }] });
    expect(resumed.stoppedBy).toEqual({ toolCallId: 'c1', tool: 'send_email', reason: 'denied by a person: no; the run was stopped by this denial' });
    expect(resumed.messages.at(-1)).toMatchObject({
      role: 'tool',
      content: [
        { type: 'tool-approval-response', approved: false },
        { type: 'tool-result', toolCallId: 'c1', output: { type: 'execution-denied', reason: expect.stringContaining('stopped') } },
      ],
    });
    expect(runOutcome({ gated, content: [] }).status).toBe('stopped');
    expect(ran).toEqual([]);
  });

  it('on_deny: stop in the policy stops a deferred run too', async () => {
    const { tools } = emailTools();
    const gated = gateTools({ tools, gate: emailGate({ onDeny: 'stop' }), context: { sessionId: 's1' }, resolve: 'deferred' });
    const { model } = scriptedModel((options) => emailModel(options));
    const paused = await generateText({ model, messages: START, ...gated });
    const resumed = await resumeRun({ gated, state: await createRunState({ gated, messages: START, result: paused }), decisions: [{ toolCallId: 'c1', approved: false }] });
    expect(resumed.stoppedBy?.tool).toBe('send_email');
  });

  it('"approve for session" given on resume is remembered for equal calls in the session', async () => {
    const { tools, ran } = emailTools();
    const gate = emailGate();
    const gated = gateTools({ tools, gate, context: { sessionId: 's1' }, resolve: 'deferred' });
    const { model } = scriptedModel((options) => emailModel(options));
    const paused = await generateText({ model, messages: START, ...gated });
    const resumed = await resumeRun({ gated, state: await createRunState({ gated, messages: START, result: paused }), decisions: [{ toolCallId: 'c1', approved: true, scope: 'session' }] });
    await generateText({ model, messages: resumed.messages, ...gated });
    // A new run in the same session: the same call runs without pausing.
    const again = gateTools({ tools, gate, context: { sessionId: 's1' }, resolve: 'deferred' });
    const second = await generateText({ model: scriptedModel((options) => emailModel(options)).model, messages: START, ...again });
    expect(runOutcome({ gated: again, content: second.content }).status).toBe('finished');
    expect(ran).toEqual([EMAIL, EMAIL]);
    // Another session still pauses.
    const other = gateTools({ tools, gate, context: { sessionId: 's2' }, resolve: 'deferred' });
    const third = await generateText({ model: scriptedModel((options) => emailModel(options)).model, messages: START, ...other });
    expect(runOutcome({ gated: other, content: third.content }).status).toBe('awaiting-approval');
  });

  it('edited arguments given on resume are what runs', async () => {
    const { tools, ran } = emailTools();
    const gated = gateTools({ tools, gate: emailGate(), context: { sessionId: 's1' }, resolve: 'deferred' });
    const { model } = scriptedModel((options) => emailModel(options));
    const paused = await generateText({ model, messages: START, ...gated });
    const edited = { to: 'bob@example.com', body: 'hi' };
    const resumed = await resumeRun({ gated, state: await createRunState({ gated, messages: START, result: paused }), decisions: [{ toolCallId: 'c1', approved: true, args: edited }] });
    const finished = await generateText({ model, messages: resumed.messages, ...gated });
    expect(ran).toEqual([edited]);
    expect(finished.text).toContain('"to":"bob@example.com"');
  });

  it('runs the allowed calls of a step at once and pauses only on the asks', async () => {
    const { tools, ran } = emailTools();
    const gated = gateTools({ tools, gate: emailGate(), context: { sessionId: 's1' }, resolve: 'deferred' });
    const { model, calls } = scriptedModel((options) => {
      const seen = toolResultFor(options.prompt, 'c1');
      if (seen !== undefined) return { text: 'done' };
      return {
        toolCalls: [
          { toolCallId: 'r1', toolName: 'read_notes', input: { topic: 'ann' } },
          { toolCallId: 'c1', toolName: 'send_email', input: EMAIL },
        ],
      };
    });
    const paused = await generateText({ model, messages: START, ...gated });
    expect(paused.toolResults.map((result) => [result.toolCallId, result.output])).toEqual([['r1', 'notes about ann']]);
    expect(pendingApprovals({ gated, content: paused.content }).map((pending) => pending.toolCallId)).toEqual(['c1']);
    const resumed = await resumeRun({ gated, state: await createRunState({ gated, messages: START, result: paused }), decisions: [{ toolCallId: 'c1', approved: true }] });
    const finished = await generateText({ model, messages: resumed.messages, ...gated });
    expect(finished.text).toBe('done');
    expect(ran).toEqual([EMAIL]);
    expect(toolResultFor(calls.at(-1)!.prompt, 'r1')?.output).toEqual({ type: 'text', value: 'notes about ann' });
  });

  it('works with streamText: pause, then resume', async () => {
    const { tools, ran } = emailTools();
    const gated = gateTools({ tools, gate: emailGate(), context: { sessionId: 's1' }, resolve: 'deferred' });
    const { model } = scriptedModel((options) => emailModel(options));
    const paused = streamText({ model, messages: START, ...gated });
    const result = { responseMessages: await paused.responseMessages, content: await paused.content };
    expect(pendingApprovals({ gated, content: result.content }).map((pending) => pending.toolCallId)).toEqual(['c1']);
    const resumed = await resumeRun({ gated, state: await createRunState({ gated, messages: START, result }), decisions: [{ toolCallId: 'c1', approved: true }] });
    const finished = streamText({ model, messages: resumed.messages, ...gated });
    expect(await finished.text).toBe('saw: {"sent":true,"to":"ann@example.com"}');
    expect(ran).toEqual([EMAIL]);
  });

  it('resumes in a fresh process: the tool runs exactly once and the model gets its result', async () => {
    const scratch = mkdtempSync(path.join(os.tmpdir(), 'toolgate-ai-sdk-'));
    try {
      const log = path.join(scratch, 'sent.log');
      const { tools } = emailTools({ log });
      const gated = gateTools({ tools, gate: emailGate(), context: { sessionId: 's1', runId: 'run-1' }, resolve: 'deferred', secret: RESUME_SECRET });
      const paused = await generateText({ model: scriptedModel((options) => emailModel(options)).model, messages: START, ...gated });
      expect(existsSync(log)).toBe(false);
      const input = path.join(scratch, 'input.json');
      const output = path.join(scratch, 'output.json');
      writeFileSync(input, JSON.stringify({ state: serializeRunState(await createRunState({ gated, messages: START, result: paused })), decisions: [{ toolCallId: 'c1', approved: true, reason: 'ok by me' }], log }));
      await run(path.join(ROOT, 'node_modules/.bin/node'), [path.join(ROOT, 'test/ai-sdk-resume-child.ts'), input, output], {
        cwd: ROOT,
        // The secret travels outside the state, as a server's key would.
        env: { ...process.env, TOOLGATE_TEST_APPROVAL_SECRET: RESUME_SECRET },
        timeout: 60_000,
      });
      const outcome = JSON.parse(readFileSync(output, 'utf8'));
      expect(readFileSync(log, 'utf8').trim().split('\n')).toEqual([JSON.stringify(EMAIL)]);
      expect(outcome.text).toBe('saw: {"sent":true,"to":"ann@example.com"}');
      expect(outcome.seen).toEqual({ type: 'json', value: { sent: true, to: 'ann@example.com' } });
      expect(outcome.decisions).toEqual([{ tool: 'send_email', decision: 'approved', source: 'person', reason: 'approved by a person: ok by me', run: 'run-1' }]);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});
