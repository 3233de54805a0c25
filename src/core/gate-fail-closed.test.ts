import { describe, expect, it } from 'vitest';
import type { ApprovalMemory } from './approval-memory.ts';
import type { Approver } from './approver.ts';
import type { AuditSink } from './audit-entry.ts';
import { createGate, type GateOptions } from './gate.ts';
import { normalizePolicy } from './policy/normalize-policy.ts';
import type { Policy } from './policy/policy.ts';
import { requiresApproval, type ToolDeclaration } from './tool-declaration.ts';
import type { ApprovalDecision, Authorization, GateContext, ToolCall } from './types.ts';

/**
 * Every error inside the approval path must deny or block the call, never
 * allow it, and the reason must say why. Each test breaks one part.
 */

const CONTEXT: GateContext = { sessionId: 's', chatId: 'c' };
let counter = 0;
function call(tool: string, args: unknown = {}): ToolCall {
  counter += 1;
  return { tool, args, callId: `fc-${counter}` };
}

const APPROVE: ApprovalDecision = { approved: true, scope: 'once' };
const approveAll: Approver = { ask: async () => APPROVE };

function policy(document: Record<string, unknown> = {}): Policy {
  // Fail-closed must hold even where the policy is as permissive as it gets.
  return normalizePolicy({ unknown_tools: { decision: 'allow' }, ...document });
}

function gate(tools: ToolDeclaration[], options: Partial<GateOptions> = {}) {
  return createGate({ policy: options.policy ?? policy(), tools, approver: approveAll, ...options });
}

function expectNotAllowed(result: Authorization, reason: RegExp): void {
  expect(['allow', 'approved']).not.toContain(result.decision);
  expect(['block', 'denied']).toContain(result.decision);
  expect(result.reason).toMatch(reason);
}

/**
 * Resolves to 'HUNG' if `promise` has not settled within `ms`: a hang is a
 * failure too. The calls here settle in milliseconds or never, so the wide
 * default tells a hang from a loaded machine.
 */
async function within<Value>(promise: Promise<Value>, ms = 15_000): Promise<Value | 'HUNG'> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hung = new Promise<'HUNG'>((resolve) => {
    timer = setTimeout(() => resolve('HUNG'), ms);
  });
  try {
    return await Promise.race([promise, hung]);
  } finally {
    clearTimeout(timer);
  }
}

async function authorizeOne(tool: ToolDeclaration, options: Partial<GateOptions> = {}, args: unknown = { a: 1 }): Promise<Authorization> {
  const result = await within(gate([tool], options).authorize(call(tool.name, args), CONTEXT));
  expect(result, 'authorize must settle').not.toBe('HUNG');
  return result as Authorization;
}

describe('checkApproval failures block the call', () => {
  it('checkApproval throws', async () => {
    const result = await authorizeOne({
      name: 't',
      checkApproval: () => {
        throw new Error('database unreachable');
      },
    });
    expectNotAllowed(result, /database unreachable/);
    expect(result.reason).toMatch(/fail closed/);
    expect(result.decision).toBe('block');
  });

  it('checkApproval throws a non-Error value', async () => {
    const result = await authorizeOne({
      name: 't',
      checkApproval: () => {
        throw 'plain string'; // eslint-disable-line no-throw-literal
      },
    });
    expectNotAllowed(result, /plain string/);
  });

  it('checkApproval returns a rejected promise', async () => {
    const result = await authorizeOne({ name: 't', checkApproval: async () => Promise.reject(new Error('rejected check')) });
    expectNotAllowed(result, /rejected check/);
  });

  it('checkApproval never resolves (check_timeout)', async () => {
    let aborted = false;
    const started = Date.now();
    const result = await authorizeOne(
      {
        name: 't',
        checkApproval: (_call, context) =>
          new Promise(() => {
            context.signal.addEventListener('abort', () => {
              aborted = true;
            });
          }),
      },
      { policy: policy({ check_timeout: '50ms' }) },
    );
    expectNotAllowed(result, /did not answer within 50 ms/);
    // The check never settles: the bound tells the deadline from a hang, with room for a loaded machine.
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(aborted).toBe(true);
  });

  it('checkApproval returns a thenable whose then throws', async () => {
    const thenable = {
      then() {
        throw new Error('bad thenable');
      },
    };
    const result = await authorizeOne({ name: 't', checkApproval: () => thenable as unknown as Promise<null> });
    expectNotAllowed(result, /bad thenable/);
  });

  const malformed: [string, unknown][] = [
    ['a string', 'ask'],
    ['a number', 42],
    ['true', true],
    ['false', false],
    ['an array', [{ tool: 't', description: 'd', payload: 1 }]],
    ['an empty object', {}],
    ['an object missing description', { tool: 't', payload: 1 }],
    ['an object missing payload', { tool: 't', description: 'd' }],
    ['an object with an undefined payload', { tool: 't', description: 'd', payload: undefined }],
    ['a request for another tool', { tool: 'other', description: 'd', payload: 1 }],
    ['a description that is not a string', { tool: 't', description: 7, payload: 1 }],
    ['a presentation of an unknown type', { tool: 't', description: 'd', payload: 1, presentation: { type: 'html', content: '<b>x</b>' } }],
    ['a presentation without content', { tool: 't', description: 'd', payload: 1, presentation: { type: 'text' } }],
    ['a presentation that is a string', { tool: 't', description: 'd', payload: 1, presentation: 'look at this' }],
    ['required that is not a boolean', { tool: 't', description: 'd', payload: 1, required: 'no' }],
    ['a groupId that is not a string', { tool: 't', description: 'd', payload: 1, groupId: 5 }],
    ['a block without a reason', { kind: 'block' }],
    ['a block with an empty reason', { kind: 'block', reason: '' }],
    ['an "allow" object', { kind: 'allow' }],
    ['a function', () => null],
  ];
  it.each(malformed)('checkApproval returns %s', async (_label, value) => {
    const result = await authorizeOne({ name: 't', checkApproval: () => value as null });
    expectNotAllowed(result, /malformed|not a request/);
    expect(result.decision).toBe('block');
  });

  it('checkApproval returns a request whose getter throws', async () => {
    for (const key of ['tool', 'description', 'payload', 'kind', 'presentation', 'required']) {
      const request: Record<string, unknown> = { tool: 't', description: 'd', payload: 1 };
      Object.defineProperty(request, key, {
        enumerable: true,
        get() {
          throw new Error(`getter ${key} exploded`);
        },
      });
      const result = await authorizeOne({ name: 't', checkApproval: () => request as never });
      expectNotAllowed(result, new RegExp(`getter ${key} exploded`));
    }
  });

  it('checkApproval returns a Proxy whose traps throw', async () => {
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('proxy trap');
        },
        has() {
          throw new Error('proxy trap');
        },
      },
    );
    const result = await authorizeOne({ name: 't', checkApproval: () => hostile as never });
    expectNotAllowed(result, /proxy trap/);
  });

  it('a failing check is a block that no mode or approver can lift', async () => {
    for (const mode of ['approve_all', 'strict', 'interactive'] as const) {
      const result = await authorizeOne(
        {
          name: 't',
          checkApproval: () => {
            throw new Error('check crashed');
          },
        },
        { mode },
      );
      expect(result.decision).toBe('block');
    }
  });

  it('gate.evaluate also blocks (it never throws)', async () => {
    const verdict = await gate([
      {
        name: 't',
        checkApproval: () => {
          throw new Error('boom');
        },
      },
    ]).evaluate(call('t'), CONTEXT);
    expect(verdict.kind).toBe('block');
    expect(verdict.reason).toMatch(/boom/);
  });
});

describe('needsApproval failures block the call', () => {
  it.each([
    ['a string', 'yes'],
    ['a number', 1],
    ['null', null],
    ['undefined', undefined],
    ['an object', { approve: false }],
  ])('needsApproval returns %s', async (_label, value) => {
    const result = await authorizeOne({ name: 't', needsApproval: () => value as unknown as boolean });
    expectNotAllowed(result, /instead of a boolean/);
  });

  it('needsApproval resolves to a non-boolean', async () => {
    const result = await authorizeOne({ name: 't', needsApproval: async () => 'false' as unknown as boolean });
    expectNotAllowed(result, /instead of a boolean/);
  });

  it('needsApproval is a non-boolean, non-function value', async () => {
    const result = await authorizeOne({ name: 't', needsApproval: 'false' as unknown as boolean });
    expectNotAllowed(result, /instead of a boolean/);
  });

  it('needsApproval throws', async () => {
    const result = await authorizeOne({
      name: 't',
      needsApproval: () => {
        throw new Error('cannot decide');
      },
    });
    expectNotAllowed(result, /cannot decide/);
  });

  it('needsApproval rejects', async () => {
    const result = await authorizeOne({ name: 't', needsApproval: async () => Promise.reject(new Error('rejected needsApproval')) });
    expectNotAllowed(result, /rejected needsApproval/);
  });

  it('needsApproval never resolves', async () => {
    const result = await authorizeOne({ name: 't', needsApproval: () => new Promise<boolean>(() => {}) }, { policy: policy({ check_timeout: '50ms' }) });
    expectNotAllowed(result, /did not answer/);
  });
});

describe('requiresApproval failures block the call', () => {
  it("requiresApproval's description function throws", async () => {
    const execute = requiresApproval((_args: unknown) => 1, {
      description: () => {
        throw new Error('description exploded');
      },
    });
    const result = await authorizeOne({ name: 't', execute });
    expectNotAllowed(result, /description exploded/);
  });

  it("requiresApproval's payload function throws", async () => {
    const execute = requiresApproval((_args: unknown) => 1, {
      payload: () => {
        throw new Error('payload exploded');
      },
    });
    const result = await authorizeOne({ name: 't', execute });
    expectNotAllowed(result, /payload exploded/);
  });

  it("requiresApproval's description function returns a non-string", async () => {
    const execute = requiresApproval((_args: unknown) => 1, { description: () => 42 as unknown as string });
    const result = await authorizeOne({ name: 't', execute });
    expectNotAllowed(result, /instead of a string/);
  });
});

describe('payloads that cannot be fingerprinted deny the call', () => {
  it('a payload with a cycle', async () => {
    const payload: Record<string, unknown> = { a: 1 };
    payload.self = payload;
    const result = await authorizeOne({ name: 't', checkApproval: () => ({ tool: 't', description: 'd', payload }) });
    expectNotAllowed(result, /fingerprint/);
    expect(result.decision).toBe('denied');
  });

  it('a payload with a function', async () => {
    const result = await authorizeOne({ name: 't', checkApproval: () => ({ tool: 't', description: 'd', payload: { run: () => 1 } }) });
    expectNotAllowed(result, /fingerprint/);
  });

  it('a payload with a symbol, from requiresApproval', async () => {
    const execute = requiresApproval((_args: unknown) => 1, { payload: () => ({ key: Symbol('x') }) });
    const result = await authorizeOne({ name: 't', execute });
    expectNotAllowed(result, /fingerprint/);
  });

  it('arguments (the default payload) with a cycle', async () => {
    const args: Record<string, unknown> = {};
    args.loop = args;
    const result = await authorizeOne({ name: 't', needsApproval: true }, {}, args);
    expectNotAllowed(result, /fingerprint|fail closed/);
  });

  it('arguments with a getter that throws', async () => {
    const args = {};
    Object.defineProperty(args, 'path', {
      enumerable: true,
      get() {
        throw new Error('getter in args');
      },
    });
    const result = await authorizeOne({ name: 't', needsApproval: true }, {}, args);
    expectNotAllowed(result, /getter in args/);
  });

  it('a payload nested absurdly deep', async () => {
    let deep: unknown = 1;
    for (let index = 0; index < 5_000; index++) deep = { d: deep };
    const result = await authorizeOne({ name: 't', checkApproval: () => ({ tool: 't', description: 'd', payload: deep }) });
    expectNotAllowed(result, /fingerprint/);
  });
});

describe('presentation failures deny the call', () => {
  const withPresentation = (presentation: unknown): ToolDeclaration => ({
    name: 't',
    checkApproval: () => ({ tool: 't', description: 'd', payload: 1, presentation: presentation as never }),
  });

  it('the presentation function throws', async () => {
    const result = await authorizeOne(
      withPresentation(() => {
        throw new Error('render failed');
      }),
    );
    expectNotAllowed(result, /render failed/);
    expect(result.decision).toBe('denied');
  });

  it('the presentation function rejects', async () => {
    const result = await authorizeOne(withPresentation(async () => Promise.reject(new Error('async render failed'))));
    expectNotAllowed(result, /async render failed/);
  });

  it('the presentation function returns a malformed presentation', async () => {
    for (const bad of [null, 'text', { type: 'html', content: 'x' }, { type: 'text', content: 5 }, { type: 'text', content: 'x', metadata: 'm' }]) {
      const result = await authorizeOne(withPresentation(() => bad));
      expectNotAllowed(result, /presentation|prompt/);
    }
  });

  it('the presentation function never resolves', async () => {
    const result = await within(
      gate([withPresentation(() => new Promise(() => {}))], { policy: policy({ approval_timeout: '50ms', check_timeout: '50ms' }) }).authorize(call('t'), CONTEXT),
    );
    expect(result, 'a presentation that never resolves must not hang the call forever').not.toBe('HUNG');
    expectNotAllowed(result as Authorization, /.+/);
  });

  it('when the approver is never reached, it is never asked', async () => {
    let asked = 0;
    const approver: Approver = {
      ask: async () => {
        asked += 1;
        return APPROVE;
      },
    };
    await authorizeOne(
      withPresentation(() => {
        throw new Error('x');
      }),
      { approver },
    );
    expect(asked).toBe(0);
  });
});

describe('approver failures deny the call', () => {
  const asking: ToolDeclaration = { name: 't', needsApproval: true };

  it('the approver throws synchronously', async () => {
    const approver: Approver = {
      ask: () => {
        throw new Error('terminal gone');
      },
    };
    const result = await authorizeOne(asking, { approver });
    expectNotAllowed(result, /terminal gone/);
    expect(result.decision).toBe('denied');
  });

  it('the approver rejects', async () => {
    const result = await authorizeOne(asking, { approver: { ask: async () => Promise.reject(new Error('inbox down')) } });
    expectNotAllowed(result, /inbox down/);
  });

  it.each([
    ['{ approved: "yes" }', { approved: 'yes', scope: 'once' }],
    ['null', null],
    ['undefined', undefined],
    ['a string', 'approve'],
    ['true', true],
    ['{ approved: true } without scope', { approved: true }],
    ['{ approved: true, scope: "forever" }', { approved: true, scope: 'forever' }],
    ['{ approved: false, scope: "always" }', { approved: false, scope: 'always' }],
    ['{ approved: 1, scope: "once" }', { approved: 1, scope: 'once' }],
    ['{ approved: false, reason: 42 }', { approved: false, scope: 'once', reason: 42 }],
    ['an array', [{ approved: true, scope: 'once' }]],
  ])('the approver returns a malformed decision: %s', async (_label, decision) => {
    const result = await authorizeOne(asking, { approver: { ask: async () => decision as ApprovalDecision } });
    expectNotAllowed(result, /malformed/);
    expect(result.decision).toBe('denied');
  });

  it('the approver approves with edited arguments that cannot be fingerprinted', async () => {
    const args: Record<string, unknown> = {};
    args.self = args;
    const result = await authorizeOne(asking, { approver: { ask: async () => ({ approved: true, scope: 'once', args }) } });
    expectNotAllowed(result, /fail closed|cycle/);
  });

  it('the approver approves with edited arguments containing a function', async () => {
    const result = await authorizeOne(asking, { approver: { ask: async () => ({ approved: true, scope: 'once', args: { run: () => 1 } }) } });
    expectNotAllowed(result, /fail closed|function/);
  });

  it('a group approver that throws denies the whole group', async () => {
    const grouped = (name: string): ToolDeclaration => ({ name, checkApproval: () => ({ tool: name, description: name, payload: name, groupId: 'g' }) });
    const approver: Approver = {
      ask: async () => APPROVE,
      askGroup: async () => {
        throw new Error('group prompt crashed');
      },
    };
    const results = await gate([grouped('a'), grouped('b')], { approver }).authorizeAll([call('a'), call('b')], CONTEXT);
    for (const result of results) expectNotAllowed(result, /group prompt crashed/);
  });

  it('a group with one unpresentable request denies every call of the group', async () => {
    const grouped = (name: string, presentation?: () => never): ToolDeclaration => ({
      name,
      checkApproval: () => ({ tool: name, description: name, payload: name, groupId: 'g', ...(presentation ? { presentation } : {}) }),
    });
    const approver: Approver = { ask: async () => APPROVE, askGroup: async () => APPROVE };
    const results = await gate(
      [
        grouped('a'),
        grouped('b', () => {
          throw new Error('cannot render b');
        }),
      ],
      { approver },
    ).authorizeAll([call('a'), call('b')], CONTEXT);
    for (const result of results) expectNotAllowed(result, /cannot render b|could not be shown/);
  });
});

describe('waiting for a person can be cancelled', () => {
  const asking: ToolDeclaration = { name: 't', needsApproval: true };
  const never: Approver = { ask: () => new Promise<ApprovalDecision>(() => {}) };

  it('an AbortSignal aborted while waiting denies the call', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('run cancelled by user')), 20);
    const result = await within(gate([asking], { approver: never }).authorize(call('t'), CONTEXT, { signal: controller.signal }));
    expect(result).not.toBe('HUNG');
    expectNotAllowed(result as Authorization, /cancelled/);
    expect((result as Authorization).source).not.toBe('person');
  });

  it('an AbortSignal already aborted denies the call at once', async () => {
    const result = await within(gate([asking], { approver: never }).authorize(call('t'), CONTEXT, { signal: AbortSignal.abort(new Error('too late')) }));
    expect(result).not.toBe('HUNG');
    expectNotAllowed(result as Authorization, /cancelled/);
  });

  it('the approver sees its own signal aborted', async () => {
    const controller = new AbortController();
    let abortedInside = false;
    const approver: Approver = {
      ask: (_request, { signal }) =>
        new Promise<ApprovalDecision>(() => {
          signal.addEventListener('abort', () => {
            abortedInside = true;
          });
          setTimeout(() => controller.abort(), 10);
        }),
    };
    await within(gate([asking], { approver }).authorize(call('t'), CONTEXT, { signal: controller.signal }));
    expect(abortedInside).toBe(true);
  });
});

describe('audit failures deny the call', () => {
  const failing: AuditSink = { record: async () => Promise.reject(new Error('disk full')) };

  it('an audit sink that rejects turns an allow into a denial', async () => {
    const result = await authorizeOne({ name: 'read' }, { policy: policy({ tools: { read: 'allow' } }), audit: failing });
    expectNotAllowed(result, /audit.*disk full|disk full/);
    expect(result.decision).toBe('denied');
  });

  it('an audit sink that throws synchronously turns an allow into a denial', async () => {
    const throwing: AuditSink = {
      record: () => {
        throw new Error('sink threw');
      },
    };
    const result = await authorizeOne({ name: 'read' }, { policy: policy({ tools: { read: 'allow' } }), audit: throwing });
    expectNotAllowed(result, /sink threw/);
  });

  it('an audit sink that fails on the decision record turns an approval into a denial', async () => {
    let records = 0;
    const failsSecond: AuditSink = {
      record: async () => {
        records += 1;
        if (records > 1) throw new Error('decision not durable');
      },
    };
    const result = await authorizeOne({ name: 't', needsApproval: true }, { audit: failsSecond });
    expectNotAllowed(result, /decision not durable/);
  });

  it('a session approval the audit log could not record is denied and never remembered', async () => {
    let failDecisions = true;
    const flaky: AuditSink = {
      record: async (entry) => {
        if (failDecisions && entry.kind === 'decision') throw new Error('decision not durable');
      },
    };
    let asked = 0;
    const approver: Approver = {
      ask: async () => {
        asked += 1;
        return { approved: true, scope: 'session' };
      },
    };
    const g = gate([{ name: 't', needsApproval: true }], { audit: flaky, approver });
    expectNotAllowed(await g.authorize(call('t', { a: 1 }), CONTEXT), /decision not durable/);
    failDecisions = false;
    const next = await g.authorize(call('t', { a: 1 }), CONTEXT);
    expect(next.source).toBe('person');
    expect(asked).toBe(2);
  });

  it('an audit failure on a mode approval denies it', async () => {
    const result = await authorizeOne({ name: 't', needsApproval: true }, { audit: failing, mode: 'approve_all' });
    expectNotAllowed(result, /disk full/);
  });

  it('an allow is answered only once its record is written, and the observer sees what was answered', async () => {
    let written!: () => void;
    const slow: AuditSink = { record: () => new Promise<void>((resolve) => (written = resolve)) };
    const seen: string[] = [];
    const g = gate([{ name: 'read' }], { policy: policy({ tools: { read: 'allow' } }), audit: slow, observer: { authorized: (event) => seen.push(event.authorization.decision) } });
    let settled = false;
    const pending = g.authorize(call('read'), CONTEXT).then((result) => {
      settled = true;
      return result;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(settled).toBe(false);
    expect(seen).toEqual([]);
    written();
    expect((await pending).decision).toBe('allow');
    expect(seen).toEqual(['allow']);

    const denying = gate([{ name: 'read' }], { policy: policy({ tools: { read: 'allow' } }), audit: failing, observer: { authorized: (event) => seen.push(event.authorization.decision) } });
    expect((await denying.authorize(call('read'), CONTEXT)).decision).toBe('denied');
    expect(seen).toEqual(['allow', 'denied']);
  });

  it('arguments that throw while their record is built deny an allow (the record is never skipped)', async () => {
    const records: unknown[] = [];
    const recording: AuditSink = { record: async (entry) => void records.push(entry) };
    const args = {
      get path(): string {
        throw new Error('getter exploded');
      },
    };
    const result = await authorizeOne({ name: 'read' }, { policy: policy({ tools: { read: 'allow' } }), audit: recording }, args);
    expectNotAllowed(result, /getter exploded/);
    expect(records).toEqual([]);
  });

  it('an audit failure never turns a block into anything but a block', async () => {
    const result = await authorizeOne({ name: 'rm' }, { policy: policy({ tools: { rm: 'block' } }), audit: failing });
    expect(result.decision).toBe('block');
  });
});

describe('malformed calls and contexts', () => {
  const g = () => gate([{ name: 'read' }], { policy: policy({ tools: { read: 'allow' } }), openWorld: true });

  it.each([
    ['a call with no tool name', { args: {}, callId: 'x' }],
    ['a call with an empty tool name', { tool: '', args: {}, callId: 'x' }],
    ['a call with a numeric tool name', { tool: 42, args: {}, callId: 'x' }],
    ['a call with an object tool name', { tool: { toString: () => 'read' }, args: {}, callId: 'x' }],
    ['a null call', null],
    ['an undefined call', undefined],
    ['a string call', 'read'],
  ])('%s is not allowed', async (_label, value) => {
    const result = await within(g().authorize(value as unknown as ToolCall, CONTEXT));
    expect(result).not.toBe('HUNG');
    expectNotAllowed(result as Authorization, /no tool|fail|blocked/);
  });

  it('a null call in a batch is blocked without affecting the others', async () => {
    const results = await g().authorizeAll([null as unknown as ToolCall, call('read')], CONTEXT);
    expect(['allow', 'approved']).not.toContain(results[0]!.decision);
    expect(results[1]!.decision).toBe('allow');
  });

  it('gate.evaluate blocks malformed calls too', async () => {
    for (const value of [null, undefined, { tool: 7, args: {} }, { args: {} }]) {
      expect((await g().evaluate(value as unknown as ToolCall, CONTEXT)).kind).toBe('block');
    }
  });

  it('a null context on an ask is denied, not allowed', async () => {
    const result = await within(gate([{ name: 't', needsApproval: true }]).authorize(call('t'), null as unknown as GateContext));
    expect(result).not.toBe('HUNG');
    expect(['allow', 'approved']).not.toContain((result as Authorization).decision);
  });
});

describe('other collaborators that fail', () => {
  it('an observer that throws does not change the decision', async () => {
    const observer = {
      authorized: () => {
        throw new Error('metrics broke');
      },
    };
    const allow = await authorizeOne({ name: 'read' }, { policy: policy({ tools: { read: 'allow' } }), observer });
    expect(allow.decision).toBe('allow');
    const block = await authorizeOne({ name: 'rm' }, { policy: policy({ tools: { rm: 'block' } }), observer });
    expect(block.decision).toBe('block');
    const approved = await authorizeOne({ name: 't', needsApproval: true }, { observer });
    expect(approved.decision).toBe('approved');
    const denied = await authorizeOne({ name: 't', needsApproval: true }, { observer, mode: 'auto_deny' });
    expect(denied.decision).toBe('denied');
  });

  it('a memory store whose lookup throws denies the call', async () => {
    const memory: ApprovalMemory = {
      lookup: () => {
        throw new Error('memory corrupted');
      },
      store: () => {},
    };
    const result = await authorizeOne({ name: 't', needsApproval: true }, { memory });
    expectNotAllowed(result, /memory corrupted/);
  });

  it('an always store whose has() throws denies the call', async () => {
    const always = {
      has: () => {
        throw new Error('approvals file unreadable');
      },
      add: async () => {},
    };
    const result = await authorizeOne({ name: 't', needsApproval: true }, { always });
    expectNotAllowed(result, /approvals file unreadable/);
  });

  it('an unknown mode (e.g. a mistyped CLI flag) never approves', async () => {
    const result = await authorizeOne({ name: 't', needsApproval: true }, { mode: 'yolo' as never });
    expect(['allow', 'approved']).not.toContain(result.decision);
  });

  it('an always store whose has() returns a truthy non-boolean does not approve', async () => {
    const always = { has: () => 'yes' as unknown as boolean, add: async () => {} };
    const result = await authorizeOne({ name: 't', needsApproval: true }, { always, mode: 'auto_deny' });
    expect(result.decision).toBe('denied');
  });
});
