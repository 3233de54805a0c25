import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { resolveMode, type ModeResolution } from './approval-controller.ts';
import { createInMemoryApprovalMemory } from './approval-memory.ts';
import { createNonInteractiveApprover, type PresentedRequest } from './approver.ts';
import type { ApprovalRequest, GateContext, RunMode } from './types.ts';

const CONTEXT: GateContext = { sessionId: 's' };

function request(required: boolean, overrides: Partial<ApprovalRequest> = {}): ApprovalRequest {
  return { tool: 'send_email', description: 'Send an email', payload: { to: 'a@x' }, required, ...overrides };
}

function resolve(mode: RunMode | undefined, required: boolean, options: { daemon?: boolean; autoApproveInDaemon?: boolean } = {}): ModeResolution {
  return resolveMode({
    request: request(required),
    mode,
    context: { ...CONTEXT, ...(options.daemon === undefined ? {} : { daemon: options.daemon }) },
    autoApproveInDaemon: options.autoApproveInDaemon ?? false,
  });
}

describe('resolveMode: the modes table of DESIGN.md', () => {
  const table: [RunMode | undefined, boolean, ModeResolution['action']][] = [
    ['interactive', true, 'ask-person'],
    ['interactive', false, 'ask-person'],
    [undefined, true, 'ask-person'],
    [undefined, false, 'ask-person'],
    ['approve_all', true, 'approve'],
    ['approve_all', false, 'approve'],
    ['strict', true, 'deny'],
    ['strict', false, 'approve'],
    ['auto_deny', true, 'deny'],
    ['auto_deny', false, 'deny'],
  ];

  it.each(table)('mode %s, required %s → %s', (mode, required, action) => {
    const resolution = resolve(mode, required);
    expect(resolution.action).toBe(action);
    if (resolution.action !== 'ask-person') {
      expect(resolution.reason).toContain(mode!);
    }
  });

  it('an unknown mode string (e.g. a mistyped CLI flag) resolves to something, and never to approve', () => {
    const resolution = resolveMode({ request: request(true), mode: 'yolo' as RunMode, context: CONTEXT, autoApproveInDaemon: true });
    expect(resolution).toBeDefined();
    expect(['deny', 'ask-person']).toContain(resolution?.action);
  });
});

describe('resolveMode: daemon auto-approval', () => {
  it('approves in a daemon run only where the policy enables it', () => {
    expect(resolve('interactive', true, { daemon: true, autoApproveInDaemon: true }).action).toBe('approve');
    expect(resolve(undefined, true, { daemon: true, autoApproveInDaemon: true }).action).toBe('approve');
    expect(resolve('interactive', true, { daemon: true, autoApproveInDaemon: false }).action).toBe('ask-person');
    expect(resolve('interactive', true, { daemon: false, autoApproveInDaemon: true }).action).toBe('ask-person');
    expect(resolve('interactive', true, { autoApproveInDaemon: true }).action).toBe('ask-person');
  });

  it('does not soften an explicit deny mode', () => {
    expect(resolve('auto_deny', false, { daemon: true, autoApproveInDaemon: true }).action).toBe('deny');
    expect(resolve('strict', true, { daemon: true, autoApproveInDaemon: true }).action).toBe('deny');
  });

  it('requires daemon to be exactly true', () => {
    const resolution = resolveMode({ request: request(true), mode: 'interactive', context: { sessionId: 's', daemon: 'yes' as unknown as boolean }, autoApproveInDaemon: true });
    expect(resolution.action).toBe('ask-person');
  });
});

describe('resolveMode never knows what a tool does', () => {
  it('depends only on the mode, the required flag and the daemon setting (property)', () => {
    const anyRequest = fc.record({
      tool: fc.string(),
      description: fc.string(),
      payload: fc.jsonValue(),
      required: fc.boolean(),
      groupId: fc.option(fc.string(), { nil: undefined }),
    });
    fc.assert(
      fc.property(
        anyRequest,
        fc.constantFrom<RunMode | undefined>(undefined, 'interactive', 'approve_all', 'strict', 'auto_deny'),
        fc.boolean(),
        fc.boolean(),
        (random, mode, daemon, autoApproveInDaemon) => {
          const reference = resolveMode({ request: request(random.required), mode, context: { sessionId: 'x', daemon }, autoApproveInDaemon });
          const actual = resolveMode({ request: random as ApprovalRequest, mode, context: { sessionId: 'y', chatId: 'z', daemon }, autoApproveInDaemon });
          expect(actual.action).toBe(reference.action);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('the non-interactive approver', () => {
  const presented: PresentedRequest = {
    tool: 'send_email',
    description: 'Send an email',
    payload: {},
    required: true,
    presentation: undefined,
    call: { tool: 'send_email', args: {}, callId: 'c' },
    context: CONTEXT,
  };

  it('denies once, names the tool and who could approve it, and never a mode or a rule that would let it through', async () => {
    const decision = await createNonInteractiveApprover().ask(presented, { signal: new AbortController().signal });
    expect(decision.approved).toBe(false);
    expect(decision.scope).toBe('once');
    expect(!decision.approved && decision.reason).toBe(
      "send_email needs approval, but nobody who can approve it is reachable here, so it did not run. A person can approve it where toolgate can reach them: an interactive terminal, an MCP client that supports elicitation, or toolgate serve's web inbox",
    );
  });

  it('names the rule that asked, and where it is written', async () => {
    const asked = { ...presented, askedBy: { rule: 'tools.send_email (ask)', at: 'toolgate.yaml:4' } };
    const decision = await createNonInteractiveApprover({ hint: 'nobody is here' }).ask(asked, { signal: new AbortController().signal });
    expect(!decision.approved && decision.reason).toBe('send_email needs approval (asked by tools.send_email (ask) — toolgate.yaml:4), but nobody is here');
    const unlocated = await createNonInteractiveApprover({ hint: 'nobody is here' }).ask({ ...presented, askedBy: { rule: 'tools.send_email (ask)' } }, { signal: new AbortController().signal });
    expect(!unlocated.approved && unlocated.reason).toBe('send_email needs approval (asked by tools.send_email (ask)), but nobody is here');
  });

  it('uses a custom hint', async () => {
    const decision = await createNonInteractiveApprover({ hint: 'approve it in the web inbox' }).ask(presented, { signal: new AbortController().signal });
    expect(!decision.approved && decision.reason).toContain('approve it in the web inbox');
  });

  it('never approves, whatever the request (property)', async () => {
    const approver = createNonInteractiveApprover();
    await fc.assert(
      fc.asyncProperty(fc.string(), fc.boolean(), async (tool, required) => {
        const decision = await approver.ask({ ...presented, tool, required }, { signal: new AbortController().signal });
        expect(decision.approved).toBe(false);
      }),
      { numRuns: 100 },
    );
  });
});

describe('in-memory approval memory', () => {
  it('returns undefined for unknown keys and the stored decision for known ones', () => {
    const memory = createInMemoryApprovalMemory();
    expect(memory.lookup('k')).toBeUndefined();
    memory.store('k', { approved: false, reason: 'no' });
    expect(memory.lookup('k')).toEqual({ approved: false, reason: 'no' });
    memory.store('k', { approved: true });
    expect(memory.lookup('k')).toEqual({ approved: true });
  });

  it('keys are opaque strings: __proto__ and constructor are ordinary keys', () => {
    const memory = createInMemoryApprovalMemory();
    expect(memory.lookup('__proto__')).toBeUndefined();
    expect(memory.lookup('constructor')).toBeUndefined();
    expect(memory.lookup('toString')).toBeUndefined();
  });

  it('stays within its bound', () => {
    const memory = createInMemoryApprovalMemory({ maxEntries: 3 });
    for (let index = 0; index < 10; index++) memory.store(`k${index}`, { approved: true });
    expect(['k0', 'k6'].map((key) => memory.lookup(key))).toEqual([undefined, undefined]);
    expect(['k7', 'k8', 'k9'].every((key) => memory.lookup(key)?.approved === true)).toBe(true);
  });
});
