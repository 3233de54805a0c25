/** Who a gated run asks (issue 39): the gate's own approver is asked, never silently ignored; the model reads the situation, not CLI flags. */
import { generateText, tool, type ToolSet } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { recordingApprover, scriptedModel, toolResultFor } from '../../../test/ai-sdk-fixture.ts';
import type { AuditEntry } from '../../core/audit-entry.ts';
import { createGate } from '../../core/gate.ts';
import { parsePolicy } from '../../core/policy/parse-policy.ts';
import { createStepBatches } from '../../runtime/step-batches.ts';
import { gateTools } from './gate-tools.ts';
import { runOutcome } from './run-outcome.ts';

const EMAIL = { to: 'ann@example.com', body: 'hi' };
const APPROVE_ONCE = { approved: true, scope: 'once' } as const;

/** What a model must never be told to do: a CLI flag, a broader mode, or a rule that lets the call through. */
const WIDENING_ADVICE = /(^|\s)--[a-z]|approve_all|approve-all|auto_deny|mode:|: allow\b|allow it/;

function emailTools() {
  const ran: unknown[] = [];
  const tools = {
    send_email: tool({
      description: 'Send an email',
      inputSchema: z.object({ to: z.string(), body: z.string() }),
      execute: async (args) => {
        ran.push(args);
        return `sent to ${args.to}`;
      },
    }),
  } satisfies ToolSet;
  return { tools, ran };
}

/** Asks for every email; the policy text gives the rule a place (`toolgate.yaml:3`). */
function emailGate(options: { approver?: ReturnType<typeof recordingApprover>; audit?: AuditEntry[] } = {}) {
  const policy = parsePolicy({ text: 'version: 1\ntools:\n  send_email: ask\n', source: 'toolgate.yaml' });
  const audit = options.audit;
  return createGate({
    policy,
    ...(options.approver === undefined ? {} : { approver: options.approver }),
    ...(audit === undefined ? {} : { audit: { record: async (entry: AuditEntry) => void audit.push(entry) } }),
  });
}

function emailModel() {
  return scriptedModel((options) => {
    const seen = toolResultFor(options.prompt, 'c1');
    return seen === undefined ? { toolCalls: [{ toolCallId: 'c1', toolName: 'send_email', input: EMAIL }] } : { text: JSON.stringify(seen.output) };
  });
}

describe('gateTools: who is asked', () => {
  it('asks the approver the gate was created with when gateTools is given none, and runs what it approved', async () => {
    const { tools, ran } = emailTools();
    const approver = recordingApprover(APPROVE_ONCE);
    const gated = gateTools({ tools, gate: emailGate({ approver }), context: { sessionId: 's1' }, resolve: 'blocking' });
    const { model } = emailModel();
    const result = await generateText({ model, prompt: 'email ann', ...gated });
    expect(approver.asked.map((request) => [request.tool, request.askedBy])).toEqual([['send_email', { rule: 'tools.send_email', at: 'toolgate.yaml:3' }]]);
    expect(ran).toEqual([EMAIL]);
    expect(JSON.parse(result.text)).toEqual({ type: 'text', value: 'sent to ann@example.com' });
    expect(runOutcome({ gated, content: result.content }).status).toBe('finished');
  });

  it("asks the gate's approver through a wrapping gate too (runAgent's step batches)", async () => {
    const { tools, ran } = emailTools();
    const approver = recordingApprover({ approved: false, scope: 'once', reason: 'not today' });
    const { model } = emailModel();
    const batches = createStepBatches({ model, gate: emailGate({ approver }), tools: () => gated.tools });
    const gated = gateTools({ tools, gate: batches.gate, context: { sessionId: 's1' }, resolve: 'blocking' });
    const result = await generateText({ model: batches.model, prompt: 'email ann', ...gated });
    expect(approver.asked).toHaveLength(1);
    expect(ran).toEqual([]);
    expect(JSON.parse(result.text)).toEqual({ type: 'execution-denied', reason: 'denied by a person: not today' });
  });

  it('takes the same approver given to both the gate and gateTools, and asks it once', async () => {
    const { tools, ran } = emailTools();
    const approver = recordingApprover(APPROVE_ONCE);
    const gated = gateTools({ tools, gate: emailGate({ approver }), context: { sessionId: 's1' }, resolve: 'blocking', approver });
    await generateText({ model: emailModel().model, prompt: 'email ann', ...gated });
    expect(approver.asked).toHaveLength(1);
    expect(ran).toEqual([EMAIL]);
  });

  it('refuses, before the model is called, a gateTools approver that differs from the gate’s own, and names both', () => {
    const { tools } = emailTools();
    const own = recordingApprover(APPROVE_ONCE);
    const other = recordingApprover(APPROVE_ONCE);
    const attempt = () => gateTools({ tools, gate: emailGate({ approver: own }), context: { sessionId: 's1' }, resolve: 'blocking', approver: other });
    expect(attempt).toThrow(expect.objectContaining({ code: 'USAGE', message: expect.stringMatching(/^gateTools was given an approver, and the gate has another of its own \(createGate\(\{ approver \}\)\)/) }));
    expect(own.asked).toEqual([]);
    expect(other.asked).toEqual([]);
  });

  it('refuses an approver in a deferred run, on the gate or given to gateTools: it would never be asked', () => {
    const { tools } = emailTools();
    const approver = recordingApprover(APPROVE_ONCE);
    expect(() => gateTools({ tools, gate: emailGate({ approver }), context: { sessionId: 's1' }, resolve: 'deferred' })).toThrow(
      /^the gate has an approver of its own \(createGate\(\{ approver \}\)\), but a deferred run asks nobody inline: its asks pause the run and are decided with resumeRun/,
    );
    expect(() => gateTools({ tools, gate: emailGate(), context: { sessionId: 's1' }, resolve: 'deferred', approver })).toThrow(/^gateTools was given an approver, but a deferred run asks nobody inline/);
    expect(approver.asked).toEqual([]);
  });

  it('with nobody to ask, denies (in the audit log too) and tells the model the situation and the rule that asked, with no CLI flag and no advice to widen the policy', async () => {
    const { tools, ran } = emailTools();
    const audit: AuditEntry[] = [];
    const gated = gateTools({ tools, gate: emailGate({ audit }), context: { sessionId: 's1' }, resolve: 'blocking' });
    const { model, calls } = emailModel();
    const result = await generateText({ model, prompt: 'email ann', ...gated });
    expect(ran).toEqual([]);
    const seen = toolResultFor(calls[1]!.prompt, 'c1')?.output;
    expect(seen).toEqual({
      type: 'execution-denied',
      reason:
        'send_email needs approval (asked by tools.send_email — toolgate.yaml:3), but nobody who can approve it is reachable from this run ' +
        '(neither the gate nor gateTools was given an approver), so it did not run. Do not retry it; tell the user it needs their approval',
    });
    expect(seen?.reason).not.toMatch(WIDENING_ADVICE);
    // An automatic denial: recorded as decided without a person.
    expect(audit.filter((entry) => entry.kind === 'decision').map((entry) => [entry.tool, entry.decision, entry.source])).toEqual([['send_email', 'denied', 'mode']]);
  });
});
