/** Regressions from the security review: each once let a call run that nobody approved. */
import { generateText, tool, type ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { scriptedModel, toolResultFor } from '../../../test/ai-sdk-fixture.ts';
import { EMAIL, emailGate, emailTools } from '../../../test/ai-sdk-email-tools.ts';
import { createGate } from '../../core/gate.ts';
import { normalizePolicy } from '../../core/policy/normalize-policy.ts';
import { gateTools } from './gate-tools.ts';
import { resumeRun } from './resume-run.ts';
import { createRunState, parseRunState, serializeRunState } from './run-state.ts';
import { signRunState } from './run-state-signature.ts';
import { stateOf } from './gated-tools-state.ts';

const START: ModelMessage[] = [{ role: 'user', content: 'email ann twice' }];

describe('review fixes', () => {
  it("a person's explicit denial on resume is not overruled by the session approval of an equal call", async () => {
    const { tools, ran } = emailTools();
    const gated = gateTools({ tools, gate: emailGate(), context: { sessionId: 's1' }, resolve: 'deferred' });
    const { model } = scriptedModel((options) =>
      toolResultFor(options.prompt, 'c1') === undefined
        ? { toolCalls: [{ toolCallId: 'c1', toolName: 'send_email', input: EMAIL }, { toolCallId: 'c2', toolName: 'send_email', input: EMAIL }] }
        : { text: 'done' },
    );
    const paused = await generateText({ model, messages: START, ...gated });
    const state = parseRunState(serializeRunState(await createRunState({ gated, messages: START, result: paused })));
    const resumed = await resumeRun({
      gated,
      state,
      decisions: [
        { toolCallId: 'c1', approved: true, scope: 'session' },
        { toolCallId: 'c2', approved: false, reason: 'NO' },
      ],
    });
    const byCall = new Map(resumed.decided.map((call) => [call.toolCallId, call.authorization]));
    expect(byCall.get('c1')).toMatchObject({ decision: 'approved', source: 'person' });
    expect(byCall.get('c2')).toMatchObject({ decision: 'denied', source: 'person', reason: 'denied by a person: NO' });
    await generateText({ model, messages: resumed.messages, ...gated });
    expect(ran).toHaveLength(1);
  });

  it("refuses an AI SDK tool whose own needsApproval a shared gate's other declaration would override", () => {
    const gate = createGate({ policy: normalizePolicy({}), tools: [{ name: 'wire_money', needsApproval: false }] });
    const wireMoney = tool({ description: 'Wire money', inputSchema: z.object({ amount: z.number() }), needsApproval: true, execute: async () => 'sent' });
    expect(() => gateTools({ tools: { wire_money: wireMoney }, gate, context: { sessionId: 's' }, resolve: 'blocking' })).toThrow(/needsApproval would be ignored/);
    // The same tool object gated twice with one gate is fine.
    const shared = createGate({ policy: normalizePolicy({}) });
    gateTools({ tools: { wire_money: wireMoney }, gate: shared, context: { sessionId: 's' }, resolve: 'blocking' });
    expect(() => gateTools({ tools: { wire_money: wireMoney }, gate: shared, context: { sessionId: 's' }, resolve: 'blocking' })).not.toThrow();
  });

  it('denies a resumed approval when the prompt was never recorded as shown', async () => {
    const { tools, ran } = emailTools();
    const gated = gateTools({ tools, gate: emailGate(), context: { sessionId: 's1' }, resolve: 'deferred' });
    const { model } = scriptedModel((options) =>
      toolResultFor(options.prompt, 'c1') === undefined ? { toolCalls: [{ toolCallId: 'c1', toolName: 'send_email', input: EMAIL }] } : { text: 'done' },
    );
    const paused = await generateText({ model, messages: START, ...gated });
    const saved = JSON.parse(serializeRunState(await createRunState({ gated, messages: START, result: paused })));
    for (const pending of saved.pending) delete pending.presentation;
    // Removed from a saved state, the presentation breaks its signature.
    await expect(resumeRun({ gated, state: parseRunState(JSON.stringify(saved)), decisions: [{ toolCallId: 'c1', approved: true }] })).rejects.toMatchObject({ reason: 'tampered' });
    // A state signed without one (its prompt could not be built when the run paused): the approval does not cover the prompt built now.
    saved.signature = await signRunState({ state: saved, secret: stateOf(gated).secret });
    const resumed = await resumeRun({ gated, state: parseRunState(JSON.stringify(saved)), decisions: [{ toolCallId: 'c1', approved: true }] });
    expect(resumed.decided[0]!.authorization).toMatchObject({ decision: 'denied', source: 'mode' });
    expect(resumed.decided[0]!.authorization.reason).toContain('never recorded as shown');
    await generateText({ model, messages: resumed.messages, ...gated });
    expect(ran).toEqual([]);
  });
});
