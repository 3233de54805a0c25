/** Blocking runs (seed 002): real generateText/streamText loops with a scripted model. */
import { generateText, stepCountIs, streamText, tool, ToolLoopAgent, type ToolSet } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { recordingApprover, scriptedModel, toolResultFor } from '../../../test/ai-sdk-fixture.ts';
import { createGate } from '../../core/gate.ts';
import { normalizePolicy } from '../../core/policy/normalize-policy.ts';
import type { AuditEntry } from '../../core/audit-entry.ts';
import { AiSdkCallNotAuthorizedError } from './errors/ai-sdk-call-not-authorized-error.ts';
import { gateTools } from './gate-tools.ts';
import { runOutcome } from './run-outcome.ts';
import { EDITED_ARGUMENTS_NOTE } from './wrap-tool.ts';

const APPROVE_ONCE = { approved: true, scope: 'once' } as const;

/** Tools that record what actually ran. */
function fixtureTools() {
  const ran: { tool: string; args: unknown }[] = [];
  const tools = {
    read_notes: tool({
      description: 'Read the notes',
      inputSchema: z.object({ topic: z.string() }),
      execute: async (args) => {
        ran.push({ tool: 'read_notes', args });
        return `notes about ${args.topic}`;
      },
    }),
    send_email: tool({
      description: 'Send an email',
      inputSchema: z.object({ to: z.string(), body: z.string() }),
      execute: async (args) => {
        ran.push({ tool: 'send_email', args });
        return { sent: true, to: args.to };
      },
    }),
    shell: tool({
      description: 'Run a command',
      inputSchema: z.object({ command: z.string() }),
      execute: async (args) => {
        ran.push({ tool: 'shell', args });
        return 'ok';
      },
    }),
    format_disk: tool({ description: 'Format the disk', inputSchema: z.object({}), execute: async () => ran.push({ tool: 'format_disk', args: {} }) }),
    delete_everything: tool({ description: 'Delete it all', inputSchema: z.object({}), execute: async () => ran.push({ tool: 'delete_everything', args: {} }) }),
  } satisfies ToolSet;
  return { tools, ran };
}

function fixtureGate(options: { onDeny?: 'continue' | 'stop'; audit?: AuditEntry[] } = {}) {
  const policy = normalizePolicy({
    ...(options.onDeny ? { on_deny: options.onDeny } : {}),
    tools: {
      read_notes: 'allow',
      send_email: { decision: 'ask', description: 'Send an email' },
      format_disk: { decision: 'block', reason: 'Never' },
      shell: { decision: 'allow', rules: [{ args: { command: 'rm .*' }, decision: 'block', reason: 'rm is never allowed here' }] },
    },
    filter: { deny: ['.*delete.*'] },
  });
  const audit = options.audit;
  return createGate({ policy, ...(audit ? { audit: { record: async (entry: AuditEntry) => void audit.push(entry) } } : {}) });
}

const EMAIL = { to: 'ann@example.com', body: 'hi' };

/** What the SDK passes to `execute`, for calling one directly. */
function callOptions(toolCallId: string | undefined) {
  return { toolCallId: toolCallId as string, messages: [], context: undefined };
}

describe('gateTools in blocking runs', () => {
  it('runs allowed calls at once, with no approval parts and nothing signed', async () => {
    const { tools, ran } = fixtureTools();
    const gated = gateTools({ tools, gate: fixtureGate(), context: { sessionId: 's1' }, resolve: 'blocking' });
    const { model, calls } = scriptedModel((_options, step) => (step === 0 ? { toolCalls: [{ toolCallId: 'c1', toolName: 'read_notes', input: { topic: 'x' } }] } : { text: 'done' }));
    const result = await generateText({ model, prompt: 'read', ...gated });
    expect(ran).toEqual([{ tool: 'read_notes', args: { topic: 'x' } }]);
    expect(toolResultFor(calls[1]!.prompt, 'c1')?.output).toEqual({ type: 'text', value: 'notes about x' });
    expect(result.content.some((part) => part.type === 'tool-approval-request')).toBe(false);
    expect(result.text).toBe('done');
  });

  it('asks the person inline and runs an approved call in the same run', async () => {
    const { tools, ran } = fixtureTools();
    const approver = recordingApprover(APPROVE_ONCE);
    const gated = gateTools({ tools, gate: fixtureGate(), context: { sessionId: 's1' }, resolve: 'blocking', approver });
    const { model, calls } = scriptedModel((_options, step) => (step === 0 ? { toolCalls: [{ toolCallId: 'c1', toolName: 'send_email', input: EMAIL }] } : { text: 'sent' }));
    const result = await generateText({ model, prompt: 'email ann', ...gated });
    expect(approver.asked.map((request) => [request.tool, request.description])).toEqual([['send_email', 'Send an email']]);
    expect(ran).toEqual([{ tool: 'send_email', args: EMAIL }]);
    expect(toolResultFor(calls[1]!.prompt, 'c1')?.output).toEqual({ type: 'json', value: { sent: true, to: 'ann@example.com' } });
    const request = result.content.find((part) => part.type === 'tool-approval-request');
    expect(request).toMatchObject({ isAutomatic: true, signature: expect.any(String) });
    expect(runOutcome({ gated, content: result.content }).status).toBe('finished');
  });

  it('gives a denial back to the model with the reason, and the model adapts in the same run', async () => {
    const { tools, ran } = fixtureTools();
    const approver = recordingApprover({ approved: false, scope: 'once', reason: 'not to Ann' });
    const gated = gateTools({ tools, gate: fixtureGate(), context: { sessionId: 's1' }, resolve: 'blocking', approver });
    const { model, calls } = scriptedModel((options, step) => {
      if (step === 0) return { toolCalls: [{ toolCallId: 'c1', toolName: 'send_email', input: EMAIL }] };
      const seen = toolResultFor(options.prompt, 'c1');
      // The next step depends on what the model saw.
      return seen?.output.type === 'execution-denied' ? { text: `I did not send it: ${seen.output.reason}` } : { text: 'sent' };
    });
    const result = await generateText({ model, prompt: 'email ann', ...gated });
    expect(ran).toEqual([]);
    expect(toolResultFor(calls[1]!.prompt, 'c1')?.output).toEqual({ type: 'execution-denied', reason: 'denied by a person: not to Ann' });
    expect(result.text).toBe('I did not send it: denied by a person: not to Ann');
    expect(runOutcome({ gated, content: result.content }).status).toBe('finished');
  });

  it('never runs a blocked call, and the model reads why', async () => {
    const { tools, ran } = fixtureTools();
    const approver = recordingApprover(APPROVE_ONCE);
    const gated = gateTools({ tools, gate: fixtureGate(), context: { sessionId: 's1' }, resolve: 'blocking', approver });
    const { model, calls } = scriptedModel((_options, step) =>
      step === 0
        ? {
            toolCalls: [
              { toolCallId: 'c1', toolName: 'shell', input: { command: 'rm -rf /' } },
              { toolCallId: 'c2', toolName: 'shell', input: { command: 'ls' } },
            ],
          }
        : { text: 'ok' },
    );
    await generateText({ model, prompt: 'clean up', ...gated });
    expect(ran).toEqual([{ tool: 'shell', args: { command: 'ls' } }]);
    expect(approver.asked).toEqual([]);
    expect(toolResultFor(calls[1]!.prompt, 'c1')?.output).toEqual({ type: 'execution-denied', reason: 'rm is never allowed here' });
  });

  it('keeps hidden and blocked-outright tools out of the model tool list, and never runs them', async () => {
    const { tools, ran } = fixtureTools();
    const gated = gateTools({ tools, gate: fixtureGate(), context: { sessionId: 's1' }, resolve: 'blocking' });
    expect(Object.keys(gated.tools).sort()).toEqual(['read_notes', 'send_email', 'shell']);
    const { model, calls } = scriptedModel((_options, step) =>
      step === 0
        ? {
            toolCalls: [
              { toolCallId: 'c1', toolName: 'format_disk', input: {} },
              { toolCallId: 'c2', toolName: 'delete_everything', input: {} },
            ],
          }
        : { text: 'ok' },
    );
    await generateText({ model, prompt: 'go', ...gated });
    const sent = (calls[0]!.tools ?? []).map((entry) => entry.name).sort();
    expect(sent).toEqual(['read_notes', 'send_email', 'shell']);
    expect(ran).toEqual([]);
    // The model asked for tools it does not have: it is told so, and nothing runs.
    expect(toolResultFor(calls[1]!.prompt, 'c1')?.output.type).toBe('error-text');
  });

  it('reuses "approve for session" for equal arguments only, and only in that session', async () => {
    const { tools, ran } = fixtureTools();
    const gate = fixtureGate();
    const approver = recordingApprover({ approved: true, scope: 'session' });
    const run = async (sessionId: string, inputs: unknown[]) => {
      const gated = gateTools({ tools, gate, context: { sessionId }, resolve: 'blocking', approver });
      const { model } = scriptedModel((_options, step) =>
        step === 0 ? { toolCalls: inputs.map((input, index) => ({ toolCallId: `${sessionId}-${index}`, toolName: 'send_email', input })) } : { text: 'ok' },
      );
      await generateText({ model, prompt: 'email', ...gated });
    };
    await run('s1', [EMAIL]);
    expect(approver.asked).toHaveLength(1);
    await run('s1', [EMAIL]); // remembered: not asked
    expect(approver.asked).toHaveLength(1);
    await run('s1', [{ ...EMAIL, body: 'other' }]); // other arguments: asked
    expect(approver.asked).toHaveLength(2);
    await run('s2', [EMAIL]); // other session: asked
    expect(approver.asked).toHaveLength(3);
    expect(ran).toHaveLength(4);
  });

  it('runs the person’s edited arguments, re-checked by the gate, and the model sees what ran', async () => {
    const { tools, ran } = fixtureTools();
    const edited = { to: 'bob@example.com', body: 'hi' };
    const approver = recordingApprover({ approved: true, scope: 'once', args: edited });
    const gated = gateTools({ tools, gate: fixtureGate(), context: { sessionId: 's1' }, resolve: 'blocking', approver });
    const { model, calls } = scriptedModel((_options, step) => (step === 0 ? { toolCalls: [{ toolCallId: 'c1', toolName: 'send_email', input: EMAIL }] } : { text: 'ok' }));
    await generateText({ model, prompt: 'email', ...gated });
    expect(ran).toEqual([{ tool: 'send_email', args: edited }]);
    expect(toolResultFor(calls[1]!.prompt, 'c1')?.output).toEqual({
      type: 'json',
      value: { note: EDITED_ARGUMENTS_NOTE, arguments: edited, result: { sent: true, to: 'bob@example.com' } },
    });
  });

  it('denies an edit into arguments the policy blocks', async () => {
    const { tools, ran } = fixtureTools();
    const gate = createGate({ policy: normalizePolicy({ tools: { shell: { decision: 'ask', rules: [{ args: { command: 'rm .*' }, decision: 'block' }] } } }) });
    const approver = recordingApprover({ approved: true, scope: 'once', args: { command: 'rm -rf /' } });
    const gated = gateTools({ tools: { shell: tools.shell }, gate, context: { sessionId: 's1' }, resolve: 'blocking', approver });
    const { model, calls } = scriptedModel((_options, step) => (step === 0 ? { toolCalls: [{ toolCallId: 'c1', toolName: 'shell', input: { command: 'ls' } }] } : { text: 'ok' }));
    await generateText({ model, prompt: 'ls', ...gated });
    expect(ran).toEqual([]);
    expect(toolResultFor(calls[1]!.prompt, 'c1')?.output).toMatchObject({ type: 'execution-denied', reason: expect.stringContaining('the edited arguments are blocked') });
  });

  it('refuses a direct call to a wrapped execute without the gate’s authorization, and runs an approval once', async () => {
    const { tools, ran } = fixtureTools();
    const gated = gateTools({ tools, gate: fixtureGate(), context: { sessionId: 's1' }, resolve: 'blocking', approver: recordingApprover(APPROVE_ONCE) });
    const execute = gated.tools.send_email.execute!;
    await expect(Promise.resolve(execute(EMAIL, callOptions('never-decided')))).rejects.toBeInstanceOf(AiSdkCallNotAuthorizedError);
    await expect(Promise.resolve(execute(EMAIL, callOptions(undefined)))).rejects.toMatchObject({ code: 'AI_SDK_CALL_NOT_AUTHORIZED' });
    // Authorized through the SDK's approval function: that call id, those arguments, once.
    await gated.toolApproval({ toolCall: { toolCallId: 'c1', toolName: 'send_email', input: EMAIL }, messages: [] });
    await expect(Promise.resolve(execute({ ...EMAIL, to: 'eve@example.com' }, callOptions('c1')))).rejects.toMatchObject({
      detail: 'the arguments differ from the ones the gate judged',
    });
    await expect(Promise.resolve(execute(EMAIL, callOptions('c1')))).resolves.toEqual({ sent: true, to: 'ann@example.com' });
    await expect(Promise.resolve(execute(EMAIL, callOptions('c1')))).rejects.toBeInstanceOf(AiSdkCallNotAuthorizedError);
    // Another tool's execute cannot use this tool's authorization.
    await gated.toolApproval({ toolCall: { toolCallId: 'c2', toolName: 'read_notes', input: { topic: 'x' } }, messages: [] });
    await expect(Promise.resolve(gated.tools.shell.execute!({ topic: 'x' } as never, callOptions('c2')))).rejects.toBeInstanceOf(AiSdkCallNotAuthorizedError);
    expect(ran).toEqual([{ tool: 'send_email', args: EMAIL }]);
  });

  it('answers an automatic decision without a promise, one that waits with a promise, and turns a throw into a rejection', async () => {
    const { tools, ran } = fixtureTools();
    const gated = gateTools({ tools, gate: fixtureGate(), context: { sessionId: 's1' }, resolve: 'blocking', approver: recordingApprover(APPROVE_ONCE) });
    const allowed = gated.toolApproval({ toolCall: { toolCallId: 'c1', toolName: 'read_notes', input: { topic: 'x' } }, messages: [] });
    expect(allowed).toBeUndefined();
    const blocked = gated.toolApproval({ toolCall: { toolCallId: 'c2', toolName: 'format_disk', input: {} }, messages: [] });
    expect(blocked).not.toBeInstanceOf(Promise);
    expect(blocked).toMatchObject({ type: 'denied', reason: 'format_disk is not a known tool; blocked' });
    const asked = gated.toolApproval({ toolCall: { toolCallId: 'c3', toolName: 'send_email', input: EMAIL }, messages: [] });
    expect(asked).toBeInstanceOf(Promise);
    await expect(asked).resolves.toMatchObject({ type: 'approved' });
    // Still the execute's only key: the synchronous answer armed c1 and nothing else.
    await expect(Promise.resolve(gated.tools.read_notes.execute!({ topic: 'x' }, callOptions('c1')))).resolves.toBeDefined();
    const thrown = gated.toolApproval({ toolCall: { toolCallId: 'c4', toolName: 'read_notes', input: {} }, messages: null as never });
    expect(thrown).toBeInstanceOf(Promise);
    await expect(thrown).rejects.toBeInstanceOf(TypeError);
    expect(ran.map((entry) => entry.tool)).toEqual(['read_notes']);
  });

  it('ends the run on a denial when the policy says on_deny: stop, and says so', async () => {
    const { tools, ran } = fixtureTools();
    const audit: AuditEntry[] = [];
    const approver = recordingApprover({ approved: false, scope: 'once', reason: 'no' });
    const gated = gateTools({ tools, gate: fixtureGate({ onDeny: 'stop', audit }), context: { sessionId: 's1' }, resolve: 'blocking', approver });
    const { model, calls } = scriptedModel((_options, step) =>
      step === 0
        ? {
            toolCalls: [
              { toolCallId: 'c1', toolName: 'send_email', input: EMAIL },
              { toolCallId: 'c2', toolName: 'read_notes', input: { topic: 'x' } },
            ],
          }
        : { text: 'should never be asked again' },
    );
    const result = await generateText({ model, prompt: 'email', ...gated });
    expect(calls).toHaveLength(1);
    expect(ran).toEqual([]);
    const outcome = runOutcome({ gated, content: result.content });
    expect(outcome).toMatchObject({ status: 'stopped', stoppedBy: { toolCallId: 'c1', tool: 'send_email', reason: 'denied by a person: no; the run was stopped by this denial' } });
    const denial = result.content.find((part) => part.type === 'tool-approval-response' && part.approvalId !== undefined && !part.approved);
    expect(denial).toMatchObject({ reason: expect.stringContaining('the run was stopped') });
    expect(audit.filter((entry) => entry.kind === 'decision').map((entry) => [entry.tool, entry.decision])).toEqual([['send_email', 'denied']]);
  });

  it('ends the run when the person’s denial says stop, with on_deny: continue', async () => {
    const { tools, ran } = fixtureTools();
    const approver = recordingApprover({ approved: false, scope: 'once', reason: 'stop everything', stop: true });
    const gated = gateTools({ tools, gate: fixtureGate(), context: { sessionId: 's1' }, resolve: 'blocking', approver });
    const { model, calls } = scriptedModel((_options, step) => (step < 5 ? { toolCalls: [{ toolCallId: `c${step}`, toolName: 'send_email', input: EMAIL }] } : { text: 'done' }));
    const result = await generateText({ model, prompt: 'email', ...gated });
    expect(calls).toHaveLength(1);
    expect(ran).toEqual([]);
    expect(runOutcome({ gated, content: result.content }).status).toBe('stopped');
  });

  it('works with streamText: approvals, denials and results the same way', async () => {
    const { tools, ran } = fixtureTools();
    const approver = recordingApprover((request) => (request.call.callId === 'c1' ? APPROVE_ONCE : { approved: false, scope: 'once', reason: 'not twice' }));
    const gated = gateTools({ tools, gate: fixtureGate(), context: { sessionId: 's1' }, resolve: 'blocking', approver });
    const { model, calls } = scriptedModel((_options, step) =>
      step === 0
        ? {
            toolCalls: [
              { toolCallId: 'c1', toolName: 'send_email', input: EMAIL },
              { toolCallId: 'c2', toolName: 'send_email', input: { ...EMAIL, body: 'again' } },
            ],
          }
        : { text: 'done' },
    );
    const result = streamText({ model, prompt: 'email', ...gated });
    expect(await result.text).toBe('done');
    expect(ran).toEqual([{ tool: 'send_email', args: EMAIL }]);
    expect(toolResultFor(calls[1]!.prompt, 'c1')?.output).toEqual({ type: 'json', value: { sent: true, to: 'ann@example.com' } });
    expect(toolResultFor(calls[1]!.prompt, 'c2')?.output).toEqual({ type: 'execution-denied', reason: 'denied by a person: not twice' });
    expect(runOutcome({ gated, content: await result.content }).status).toBe('finished');
  });

  it('works as ToolLoopAgent settings', async () => {
    const { tools, ran } = fixtureTools();
    const gated = gateTools({ tools, gate: fixtureGate(), context: { sessionId: 's1' }, resolve: 'blocking', approver: recordingApprover(APPROVE_ONCE) });
    const { model } = scriptedModel((_options, step) => (step === 0 ? { toolCalls: [{ toolCallId: 'c1', toolName: 'send_email', input: EMAIL }] } : { text: 'sent' }));
    const agent = new ToolLoopAgent({ model, ...gated });
    const result = await agent.generate({ prompt: 'email ann' });
    expect(result.text).toBe('sent');
    expect(ran).toEqual([{ tool: 'send_email', args: EMAIL }]);
  });

  it('turns a tool’s Standard Schema into JSON Schema once, not at every step, and still validates with it', async () => {
    // A Standard Schema of another vendor than zod, counting its conversions (the SDK converts zod schemas the same way).
    let conversions = 0;
    const topicSchema = {
      '~standard': {
        version: 1,
        vendor: 'counting',
        validate: (value: unknown) =>
          typeof value === 'object' && value !== null && typeof (value as { topic?: unknown }).topic === 'string' ? { value } : { issues: [{ message: 'topic must be a string' }] },
        jsonSchema: {
          input: () => {
            conversions++;
            return { type: 'object', properties: { topic: { type: 'string' } }, required: ['topic'] };
          },
        },
      },
    };
    const ran: unknown[] = [];
    const tools = { read_notes: tool({ description: 'Read the notes', inputSchema: topicSchema as never, execute: async (args: unknown) => void ran.push(args) }) };
    const script = (_options: unknown, step: number) =>
      step < 4 ? { toolCalls: [{ toolCallId: `c${step}`, toolName: 'read_notes', input: step === 2 ? { topic: 7 } : { topic: `t${step}` } }] } : { text: 'done' };
    const ungated = scriptedModel(script);
    await generateText({ model: ungated.model, prompt: 'read', tools, stopWhen: stepCountIs(6) });
    expect(conversions).toBe(5);
    conversions = 0;
    ran.length = 0;
    const gated = scriptedModel(script);
    const result = await generateText({ model: gated.model, prompt: 'read', ...gateTools({ tools, gate: fixtureGate(), context: { sessionId: 's1' }, resolve: 'blocking', stopWhen: stepCountIs(6) }) });
    expect(conversions).toBe(1);
    // Every step still offered the tool with its schema, and the invalid call was refused by it, not run.
    for (const call of gated.calls) expect(call.tools?.find((offered) => offered.name === 'read_notes')).toMatchObject({ inputSchema: { required: ['topic'] } });
    expect(ran).toEqual([{ topic: 't0' }, { topic: 't1' }, { topic: 't3' }]);
    expect(result.steps[2]!.content.some((part) => part.type === 'tool-error')).toBe(true);
  });

  it('honours an AI SDK tool’s own needsApproval through the gate, and refuses weak secrets', async () => {
    const ran: unknown[] = [];
    const gate = createGate({ policy: normalizePolicy({}) });
    const guarded = tool({
      description: 'Pay',
      inputSchema: z.object({ amount: z.number() }),
      needsApproval: async ({ amount }) => amount > 100,
      execute: async (args) => void ran.push(args),
    });
    const approver = recordingApprover({ approved: false, scope: 'once', reason: 'too much' });
    const gated = gateTools({ tools: { pay: guarded }, gate, context: { sessionId: 's1' }, resolve: 'blocking', approver });
    const { model } = scriptedModel((_options, step) =>
      step === 0
        ? {
            toolCalls: [
              { toolCallId: 'c1', toolName: 'pay', input: { amount: 5 } },
              { toolCallId: 'c2', toolName: 'pay', input: { amount: 500 } },
            ],
          }
        : { text: 'ok' },
    );
    await generateText({ model, prompt: 'pay', ...gated });
    expect(ran).toEqual([{ amount: 5 }]);
    expect(approver.asked.map((request) => request.call.args)).toEqual([{ amount: 500 }]);
    expect(() => gateTools({ tools: {}, gate, context: { sessionId: 's1' }, resolve: 'blocking', secret: 'short' })).toThrow(/at least 32 bytes/);
  });
});
