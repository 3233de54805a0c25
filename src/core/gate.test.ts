import { describe, expect, it, vi } from 'vitest';
import { toolKey } from './approval-memory.ts';
import { createNonInteractiveApprover, type Approver, type PresentedRequest } from './approver.ts';
import type { AuditEntry, AuditSink } from './audit-entry.ts';
import { authorizeSoon, createGate, type AlwaysApprovals, type Gate, type GateOptions } from './gate.ts';
import { normalizePolicy } from './policy/normalize-policy.ts';
import { parsePolicy } from './policy/parse-policy.ts';
import type { Policy } from './policy/policy.ts';
import { blockCall, requiresApproval, type ToolDeclaration } from './tool-declaration.ts';
import type { ApprovalDecision, Authorization, GateContext, RunMode, ToolCall } from './types.ts';

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

let callCounter = 0;
function call(tool: string, args: unknown = {}): ToolCall {
  callCounter += 1;
  return { tool, args, callId: `call-${callCounter}` };
}

const CONTEXT: GateContext = { sessionId: 'session-1', chatId: 'chat-1' };

function yaml(text: string): Policy {
  return parsePolicy({ text, source: 'test.yaml' });
}

function policy(document: Record<string, unknown> = {}): Policy {
  return normalizePolicy(document);
}

/** An approver that answers from a script (or a function) and records what it was asked. */
function scripted(answer: ApprovalDecision | ((request: PresentedRequest) => ApprovalDecision | Promise<ApprovalDecision>)) {
  const asked: PresentedRequest[] = [];
  const approver: Approver = {
    ask: async (request) => {
      asked.push(request);
      return typeof answer === 'function' ? answer(request) : answer;
    },
  };
  return { approver, asked };
}

/** An approver that never answers; records whether its signal was aborted. */
function silent() {
  const state = { asked: 0, aborted: false };
  const approver: Approver = {
    ask: (_request, { signal }) =>
      new Promise<ApprovalDecision>(() => {
        state.asked += 1;
        signal.addEventListener('abort', () => {
          state.aborted = true;
        });
      }),
  };
  return { approver, state };
}

function auditLog() {
  const entries: AuditEntry[] = [];
  const sink: AuditSink = {
    record: async (entry) => {
      entries.push(structuredClone(entry));
    },
  };
  return { sink, entries };
}

function alwaysStore() {
  const keys = new Set<string>();
  const added: { tool: string; identity?: string; payload: unknown; description: string }[] = [];
  const store: AlwaysApprovals = {
    has: (entry) => keys.has(toolKey(entry)),
    add: async (entry) => {
      added.push(entry);
      keys.add(toolKey(entry));
    },
  };
  return { store, added };
}

const APPROVE_ONCE: ApprovalDecision = { approved: true, scope: 'once' };
const APPROVE_SESSION: ApprovalDecision = { approved: true, scope: 'session' };

function isAllowed(authorization: Authorization): boolean {
  return authorization.decision === 'allow' || authorization.decision === 'approved';
}

function gateWith(options: Partial<GateOptions> & { policy?: Policy }) {
  return createGate({ policy: options.policy ?? policy(), ...options });
}

// ---------------------------------------------------------------------------
// Filter and unknown tools
// ---------------------------------------------------------------------------

describe('filter', () => {
  const filtered = yaml(
    [
      'tools:',
      '  delete_file: allow',
      'filter:',
      '  allow: ["read_.*", "list_.*", "write_file", "delete_file"]',
      '  deny: [".*delete.*"]',
      'unknown_tools: { decision: allow }',
      '',
    ].join('\n'),
  );
  const tools = ['read_file', 'unread_file', 'list_dir', 'write_file', 'write_files', 'delete_file', 'shell'].map((name) => ({ name }));

  it('deny wins over allow, and hidden tools are not visible', () => {
    const gate = gateWith({ policy: filtered, tools });
    expect(gate.isVisible('read_file')).toBe(true);
    expect(gate.isVisible('list_dir')).toBe(true);
    expect(gate.isVisible('write_file')).toBe(true);
    expect(gate.isVisible('delete_file')).toBe(false);
    expect(gate.isVisible('shell')).toBe(false);
  });

  it('full-match: read_.* does not admit unread_file, write_file does not admit write_files', () => {
    const gate = gateWith({ policy: filtered, tools });
    expect(gate.isVisible('unread_file')).toBe(false);
    expect(gate.isVisible('write_files')).toBe(false);
  });

  it('blocks calls to hidden tools even when a tool rule allows them', async () => {
    const gate = gateWith({ policy: filtered, tools, approver: scripted(APPROVE_ONCE).approver, mode: 'approve_all' });
    const denied = await gate.authorize(call('delete_file', { path: 'x' }), CONTEXT);
    expect(denied.decision).toBe('block');
    expect(denied.rule).toBe('filter.deny[0]');
    expect(denied.reason).toContain('delete_file');
    const notAllowed = await gate.authorize(call('unread_file'), CONTEXT);
    expect(notAllowed.decision).toBe('block');
    expect(notAllowed.rule).toBe('filter.allow');
    expect((await gate.authorize(call('read_file'), CONTEXT)).decision).toBe('allow');
  });

  it('a newline in a name does not dodge a deny pattern', async () => {
    const gate = gateWith({ policy: filtered, openWorld: true });
    expect(gate.isVisible('x\ndelete')).toBe(false);
    expect((await gate.authorize(call('read_\ndelete'), CONTEXT)).decision).toBe('block');
  });
});

describe('unknown and undeclared tools', () => {
  it('blocks a tool that is not registered', async () => {
    const gate = gateWith({ policy: policy({ tools: { ghost: 'allow' } }), tools: [{ name: 'read_file' }], mode: 'approve_all' });
    const result = await gate.authorize(call('ghost'), CONTEXT);
    expect(result.decision).toBe('block');
    expect(result.reason).toMatch(/not a known tool/);
  });

  it('blocks lookalike names of registered tools', async () => {
    const gate = gateWith({ policy: policy({ tools: { read_file: 'allow' } }), tools: [{ name: 'read_file' }] });
    for (const name of ['re\u0430d_file', 'read_file\u200D', 'READ_FILE', 'read_file ']) {
      expect((await gate.authorize(call(name), CONTEXT)).decision).toBe('block');
    }
    expect((await gate.authorize(call('read_file'), CONTEXT)).decision).toBe('allow');
  });

  it('openWorld treats unregistered tools as tools that declare nothing', async () => {
    const gate = gateWith({ policy: policy({ tools: { known: 'allow' } }), openWorld: true });
    expect((await gate.evaluate(call('mystery'), CONTEXT)).kind).toBe('ask');
    expect((await gate.evaluate(call('known'), CONTEXT)).kind).toBe('allow');
  });

  it('a registered tool with no rule and no declaration asks by default', async () => {
    const gate = gateWith({ tools: [{ name: 'get_weather' }] });
    const verdict = await gate.evaluate(call('get_weather', { city: 'Oslo' }), CONTEXT);
    expect(verdict.kind).toBe('ask');
    expect(verdict.rule).toBe('unknown_tools.decision');
    if (verdict.kind === 'ask') {
      expect(verdict.request.tool).toBe('get_weather');
      expect(verdict.request.payload).toEqual({ city: 'Oslo' });
      expect(verdict.request.required).toBe(true);
    }
  });

  it('unknown_tools.decision allow and block', async () => {
    const allowGate = gateWith({ policy: policy({ unknown_tools: { decision: 'allow' } }), tools: [{ name: 'get_weather' }] });
    expect((await allowGate.authorize(call('get_weather'), CONTEXT)).decision).toBe('allow');
    const blockGate = gateWith({ policy: policy({ unknown_tools: { decision: 'block' } }), tools: [{ name: 'get_weather' }], mode: 'approve_all' });
    expect((await blockGate.authorize(call('get_weather'), CONTEXT)).decision).toBe('block');
  });

  it('the dangerous-keyword heuristic raises allow to ask (name or description)', async () => {
    const gate = gateWith({
      policy: policy({ unknown_tools: { decision: 'allow', dangerous_keywords: true } }),
      tools: [{ name: 'run_shell' }, { name: 'get_weather' }, { name: 'tidy', description: 'Delete old files' }, { name: 'ExecuteQuery' }],
    });
    expect((await gate.evaluate(call('run_shell'), CONTEXT)).kind).toBe('ask');
    expect((await gate.evaluate(call('run_shell'), CONTEXT)).rule).toBe('unknown_tools.dangerous_keywords');
    expect((await gate.evaluate(call('tidy'), CONTEXT)).kind).toBe('ask');
    expect((await gate.evaluate(call('ExecuteQuery'), CONTEXT)).kind).toBe('ask');
    expect((await gate.evaluate(call('get_weather'), CONTEXT)).kind).toBe('allow');
  });

  it('evaluate gives a verdict\'s own fields only, in a promise even for a malformed call', async () => {
    const gate = gateWith({ policy: policy({ unknown_tools: { decision: 'allow', dangerous_keywords: true }, tools: { get_weather: 'block' } }), tools: [{ name: 'run_shell' }, { name: 'get_weather' }, { name: 'ls' }] });
    const asked = await gate.evaluate(call('run_shell', { cmd: 'x' }), CONTEXT);
    expect(Object.keys(asked).sort()).toEqual(['kind', 'reason', 'request', 'rule', 'trace']);
    expect(Object.keys(await gate.evaluate(call('get_weather'), CONTEXT)).sort()).toEqual(['kind', 'reason', 'rule', 'trace']);
    expect(Object.keys(await gate.evaluate(call('ls'), CONTEXT)).sort()).toEqual(['kind', 'reason', 'rule', 'trace']);
    const malformed = gate.evaluate(null as unknown as ToolCall, CONTEXT);
    expect(malformed).toBeInstanceOf(Promise);
    expect((await malformed).kind).toBe('block');
  });

  it('custom dangerous keywords, and the heuristic never lowers block', async () => {
    const custom = gateWith({ policy: policy({ unknown_tools: { decision: 'allow', dangerous_keywords: ['Transfer'] } }), tools: [{ name: 'bank_transfer' }, { name: 'run_shell' }] });
    expect((await custom.evaluate(call('bank_transfer'), CONTEXT)).kind).toBe('ask');
    expect((await custom.evaluate(call('run_shell'), CONTEXT)).kind).toBe('allow');
    const blocking = gateWith({ policy: policy({ unknown_tools: { decision: 'block', dangerous_keywords: true } }), tools: [{ name: 'run_shell' }] });
    expect((await blocking.evaluate(call('run_shell'), CONTEXT)).kind).toBe('block');
  });

  it('register and unregister change what is known', async () => {
    const gate = gateWith({ policy: policy({ tools: { late: 'allow' } }) });
    expect((await gate.authorize(call('late'), CONTEXT)).decision).toBe('block');
    gate.register({ name: 'late' });
    expect(gate.tool('late')?.name).toBe('late');
    expect((await gate.authorize(call('late'), CONTEXT)).decision).toBe('allow');
    gate.unregister('late');
    expect((await gate.authorize(call('late'), CONTEXT)).decision).toBe('block');
  });
});

// ---------------------------------------------------------------------------
// Tools' own approval semantics
// ---------------------------------------------------------------------------

describe('needsApproval', () => {
  it('true asks, false allows (a declaring tool is not an unknown tool)', async () => {
    const gate = gateWith({ tools: [{ name: 'pay', needsApproval: true }, { name: 'read', needsApproval: false }] });
    const ask = await gate.evaluate(call('pay', { amount: 5 }), CONTEXT);
    expect(ask.kind).toBe('ask');
    expect(ask.rule).toBe('tool:needsApproval');
    expect((await gate.evaluate(call('read'), CONTEXT)).kind).toBe('allow');
  });

  it('a function of the arguments decides per call and receives the context', async () => {
    const seen: unknown[] = [];
    const tool: ToolDeclaration = {
      name: 'pay',
      needsApproval: (args: { amount: number }, context) => {
        seen.push(context.sessionId, context.signal instanceof AbortSignal);
        return args.amount > 100;
      },
    };
    const gate = gateWith({ tools: [tool] });
    expect((await gate.evaluate(call('pay', { amount: 500 }), CONTEXT)).kind).toBe('ask');
    expect((await gate.evaluate(call('pay', { amount: 5 }), CONTEXT)).kind).toBe('allow');
    expect(seen).toEqual(['session-1', true, 'session-1', true]);
  });

  it('an async function works the same', async () => {
    const gate = gateWith({ tools: [{ name: 'pay', needsApproval: async (args: { amount: number }) => args.amount > 100 }] });
    expect((await gate.evaluate(call('pay', { amount: 500 }), CONTEXT)).kind).toBe('ask');
    expect((await gate.evaluate(call('pay', { amount: 5 }), CONTEXT)).kind).toBe('allow');
  });

  it('the default request describes the call as name(key=value, ...) (seed 001) and takes all arguments as payload', async () => {
    const gate = gateWith({ tools: [{ name: 'pay', description: 'Pay someone', needsApproval: true }] });
    const verdict = await gate.evaluate(call('pay', { amount: 5, to: 'x' }), CONTEXT);
    expect(verdict.kind === 'ask' && verdict.request).toMatchObject({ tool: 'pay', description: 'pay(amount=5, to="x")', payload: { amount: 5, to: 'x' }, required: true });
  });
});

describe('checkApproval', () => {
  function emailTool(presentation = vi.fn(() => ({ type: 'text' as const, content: 'an email' }))) {
    const tool: ToolDeclaration = {
      name: 'send_email',
      checkApproval: (toolCall) => {
        const args = toolCall.args as { to: string; body: string };
        if (args.to.endsWith('@blocked.example')) return blockCall('that domain is off limits');
        if (args.to.endsWith('@self.example')) return null;
        return { tool: 'send_email', description: `Send an email to ${args.to}`, payload: { to: args.to }, presentation, required: true };
      },
    };
    return { tool, presentation };
  }

  it('returns a rich request: its payload and description are what the person sees', async () => {
    const { tool, presentation } = emailTool();
    const { approver, asked } = scripted(APPROVE_ONCE);
    const gate = gateWith({ tools: [tool], approver });
    const verdict = await gate.evaluate(call('send_email', { to: 'a@x.example', body: 'secret body' }), CONTEXT);
    expect(verdict.kind).toBe('ask');
    expect(verdict.kind === 'ask' && verdict.request.payload).toEqual({ to: 'a@x.example' });
    expect(presentation).not.toHaveBeenCalled(); // evaluate never builds it
    const result = await gate.authorize(call('send_email', { to: 'a@x.example', body: 'hi' }), CONTEXT);
    expect(result.decision).toBe('approved');
    expect(result.source).toBe('person');
    expect(asked).toHaveLength(1);
    expect(asked[0]!.description).toBe('Send an email to a@x.example');
    expect(asked[0]!.presentation).toEqual({ type: 'text', content: 'an email' });
    expect(asked[0]!.call.args).toEqual({ to: 'a@x.example', body: 'hi' });
    expect(presentation).toHaveBeenCalledTimes(1);
  });

  it('the payload is the fingerprint: a session approval covers calls with other unfingerprinted arguments', async () => {
    const { tool } = emailTool();
    const { approver, asked } = scripted(APPROVE_SESSION);
    const gate = gateWith({ tools: [tool], approver });
    expect((await gate.authorize(call('send_email', { to: 'a@x.example', body: 'one' }), CONTEXT)).source).toBe('person');
    const second = await gate.authorize(call('send_email', { to: 'a@x.example', body: 'two' }), CONTEXT);
    expect(second.decision).toBe('approved');
    expect(second.source).toBe('memory');
    expect(second.args).toEqual({ to: 'a@x.example', body: 'two' });
    const other = await gate.authorize(call('send_email', { to: 'b@x.example', body: 'one' }), CONTEXT);
    expect(other.source).toBe('person');
    expect(asked).toHaveLength(2);
  });

  it('builds the presentation only when a person is asked: not when memory or the mode answers', async () => {
    const { tool, presentation } = emailTool();
    const gate = gateWith({ tools: [tool], approver: scripted(APPROVE_SESSION).approver });
    await gate.authorize(call('send_email', { to: 'a@x.example', body: '' }), CONTEXT);
    expect(presentation).toHaveBeenCalledTimes(1);
    const remembered = await gate.authorize(call('send_email', { to: 'a@x.example', body: '' }), CONTEXT);
    expect(remembered.source).toBe('memory');
    expect(presentation).toHaveBeenCalledTimes(1);

    for (const mode of ['approve_all', 'strict', 'auto_deny'] as const) {
      const lazy = emailTool();
      const modeGate = gateWith({ tools: [lazy.tool], mode, approver: scripted(APPROVE_ONCE).approver });
      const result = await modeGate.authorize(call('send_email', { to: 'a@x.example', body: '' }), CONTEXT);
      expect(result.source).toBe('mode');
      expect(lazy.presentation).not.toHaveBeenCalled();
    }

    const pending = emailTool();
    const noApprover = gateWith({ tools: [pending.tool] });
    expect((await noApprover.authorize(call('send_email', { to: 'a@x.example', body: '' }), CONTEXT)).decision).toBe('ask');
    expect(pending.presentation).not.toHaveBeenCalled();
  });

  it('a block from the check blocks, with its reason', async () => {
    const { tool } = emailTool();
    const gate = gateWith({ tools: [tool], mode: 'approve_all' });
    const result = await gate.authorize(call('send_email', { to: 'x@blocked.example', body: '' }), CONTEXT);
    expect(result.decision).toBe('block');
    expect(result.reason).toBe('that domain is off limits');
    expect(result.rule).toBe('tool:checkApproval');
  });

  it('null means nothing to ask: the call is allowed', async () => {
    const { tool } = emailTool();
    const gate = gateWith({ tools: [tool] });
    expect((await gate.authorize(call('send_email', { to: 'me@self.example', body: '' }), CONTEXT)).decision).toBe('allow');
  });

  it('receives the call and a context with an abort signal', async () => {
    const check = vi.fn((_call: ToolCall, _context: { signal: AbortSignal; sessionId: string }) => null);
    const gate = gateWith({ tools: [{ name: 't', checkApproval: check }] });
    const toolCall = call('t', { a: 1 });
    await gate.evaluate(toolCall, { sessionId: 'sx', caller: 'worker' });
    expect(check).toHaveBeenCalledTimes(1);
    expect(check.mock.calls[0]![0]).toEqual(toolCall);
    expect(check.mock.calls[0]![1].sessionId).toBe('sx');
    expect(check.mock.calls[0]![1].signal).toBeInstanceOf(AbortSignal);
  });
});

describe('requiresApproval', () => {
  it('marks a plain execute function: description and payload come from its functions', async () => {
    const execute = requiresApproval(async (args: { to: string; body: string; token: string }) => args.to, {
      description: (args) => `Send an email to ${args.to}`,
      payload: (args) => ({ to: args.to }),
    });
    const { approver, asked } = scripted(APPROVE_SESSION);
    const gate = gateWith({ tools: [{ name: 'send_email', execute }], approver });
    const verdict = await gate.evaluate(call('send_email', { to: 'a@x', body: 'b', token: 't' }), CONTEXT);
    expect(verdict.kind).toBe('ask');
    expect(verdict.rule).toBe('tool:requiresApproval');
    expect(verdict.kind === 'ask' && verdict.request).toMatchObject({ description: 'Send an email to a@x', payload: { to: 'a@x' } });
    await gate.authorize(call('send_email', { to: 'a@x', body: 'b', token: 't1' }), CONTEXT);
    expect(asked[0]!.description).toBe('Send an email to a@x');
    expect((await gate.authorize(call('send_email', { to: 'a@x', body: 'c', token: 't2' }), CONTEXT)).source).toBe('memory');
  });

  it('without options, asks with all arguments as payload', async () => {
    const gate = gateWith({ tools: [{ name: 'rm', execute: requiresApproval((_args: { path: string }) => undefined) }] });
    const verdict = await gate.evaluate(call('rm', { path: '/x' }), CONTEXT);
    expect(verdict.kind === 'ask' && verdict.request.payload).toEqual({ path: '/x' });
  });
});

// ---------------------------------------------------------------------------
// The policy's rules
// ---------------------------------------------------------------------------

describe('argument rules', () => {
  const emailPolicy = yaml(
    [
      'tools:',
      '  send_email:',
      '    decision: ask',
      '    rules:',
      '      - { args: { to: ".*@corp\\\\.example" }, decision: allow }',
      '      - { args: { to: ".*@evil\\\\.example" }, decision: block, reason: "no evil" }',
      '      - { args: { to: ".*", options.urgent: "true" }, decision: ask, description: "Urgent email" }',
      '',
    ].join('\n'),
  );
  const gate = () => gateWith({ policy: emailPolicy, tools: [{ name: 'send_email' }] });

  it('the first matching rule decides', async () => {
    expect((await gate().evaluate(call('send_email', { to: 'a@corp.example' }), CONTEXT)).kind).toBe('allow');
    const evil = await gate().evaluate(call('send_email', { to: 'a@evil.example' }), CONTEXT);
    expect(evil.kind).toBe('block');
    expect(evil.reason).toBe('no evil');
    expect(evil.rule).toBe('tools.send_email.rules[1]');
  });

  it('full-match on argument values: a suffix does not make a match', async () => {
    // Neither the corp allow nor the evil block applies: the tool-level ask does.
    expect((await gate().evaluate(call('send_email', { to: 'a@corp.example.attacker.example' }), CONTEXT)).kind).toBe('ask');
    expect((await gate().evaluate(call('send_email', { to: 'a@corp.example\n@evil.example' }), CONTEXT)).kind).toBe('block');
    expect((await gate().evaluate(call('send_email', { to: 'a@corp.examplex' }), CONTEXT)).kind).toBe('ask');
  });

  it('non-string values match as JSON, nested paths work, and the rule description is used', async () => {
    const verdict = await gate().evaluate(call('send_email', { to: 'a@x.example', options: { urgent: true } }), CONTEXT);
    expect(verdict.kind).toBe('ask');
    expect(verdict.rule).toBe('tools.send_email.rules[2]');
    expect(verdict.kind === 'ask' && verdict.request.description).toBe('Urgent email');
  });

  it('when no rule matches (or an argument is missing), the tool-level decision applies', async () => {
    const verdict = await gate().evaluate(call('send_email', { cc: 'a@corp.example' }), CONTEXT);
    expect(verdict.kind).toBe('ask');
    expect(verdict.rule).toBe('tools.send_email');
  });
});

describe('ask_when and ask_always', () => {
  it('ask_when asks for matching names, even when the tool rule or the tool allows', async () => {
    const gate = gateWith({
      policy: policy({ tools: { write_file: 'allow' }, ask_when: ['.*write.*'], unknown_tools: { decision: 'allow' } }),
      tools: [{ name: 'write_file' }, { name: 'overwrite', needsApproval: false }, { name: 'read_file' }],
    });
    expect((await gate.evaluate(call('write_file'), CONTEXT)).kind).toBe('ask');
    expect((await gate.evaluate(call('write_file'), CONTEXT)).rule).toBe('ask_when[0]');
    expect((await gate.evaluate(call('overwrite'), CONTEXT)).kind).toBe('ask');
    expect((await gate.evaluate(call('read_file'), CONTEXT)).kind).toBe('allow');
  });

  it('ask_always asks for every call but never lifts a block', async () => {
    const gate = gateWith({
      policy: policy({ ask_always: true, tools: { read_file: 'allow', rm: 'block' } }),
      tools: [{ name: 'read_file' }, { name: 'rm' }],
    });
    const verdict = await gate.evaluate(call('read_file'), CONTEXT);
    expect(verdict.kind).toBe('ask');
    expect(verdict.trace.map((entry) => entry.rule)).toContain('ask_always');
    expect((await gate.evaluate(call('rm'), CONTEXT)).kind).toBe('block');
  });
});

describe('precedence between the policy and the tool', () => {
  it("a policy allow cannot lower a tool's own ask", async () => {
    const gate = gateWith({
      policy: policy({ tools: { pay: 'allow', mail: 'allow', marked: 'allow' } }),
      tools: [
        { name: 'pay', needsApproval: true },
        { name: 'mail', checkApproval: (toolCall) => ({ tool: toolCall.tool, description: 'mail', payload: 1 }) },
        { name: 'marked', execute: requiresApproval(() => 1) },
      ],
    });
    for (const name of ['pay', 'mail', 'marked']) expect((await gate.evaluate(call(name), CONTEXT)).kind).toBe('ask');
  });

  it("a tool's own allow cannot lower a policy block or ask", async () => {
    const gate = gateWith({
      policy: policy({ tools: { rm: 'block', mail: 'ask' } }),
      tools: [
        { name: 'rm', needsApproval: false },
        { name: 'mail', checkApproval: () => null },
      ],
      mode: 'approve_all',
    });
    expect((await gate.authorize(call('rm'), CONTEXT)).decision).toBe('block');
    expect((await gate.evaluate(call('mail'), CONTEXT)).kind).toBe('ask');
  });

  it("a tool's block beats a policy allow", async () => {
    const gate = gateWith({ policy: policy({ tools: { rm: 'allow' } }), tools: [{ name: 'rm', checkApproval: () => blockCall('never') }], mode: 'approve_all' });
    const result = await gate.authorize(call('rm'), CONTEXT);
    expect(result.decision).toBe('block');
    expect(result.reason).toBe('never');
  });

  it("a tool's own declarations combine most-restrictively (any ask asks)", async () => {
    // needsApproval: true is an ask; a checkApproval that finds nothing to
    // add must not silently cancel it, nor may needsApproval: false cancel
    // a requiresApproval marker.
    const gate = gateWith({
      tools: [
        { name: 'both', needsApproval: true, checkApproval: () => null },
        { name: 'marked', needsApproval: false, execute: requiresApproval(() => 1) },
      ],
    });
    expect((await gate.evaluate(call('both'), CONTEXT)).kind).toBe('ask');
    expect((await gate.evaluate(call('marked'), CONTEXT)).kind).toBe('ask');
  });

  it('the soft flag: an ask is soft only when every asking source is soft', async () => {
    const gate = gateWith({
      policy: policy({ tools: { t: { decision: 'ask', required: false }, u: { decision: 'ask', required: false } }, ask_when: ['u'] }),
      tools: [{ name: 't' }, { name: 'u' }],
    });
    const soft = await gate.evaluate(call('t'), CONTEXT);
    expect(soft.kind === 'ask' && soft.request.required).toBe(false);
    const hard = await gate.evaluate(call('u'), CONTEXT);
    expect(hard.kind === 'ask' && hard.request.required).toBe(true);
  });
});

// ---------------------------------------------------------------------------
// Modes
// ---------------------------------------------------------------------------

describe('modes', () => {
  const softAndHard = () =>
    policy({
      tools: { hard: 'ask', soft: { decision: 'ask', required: false }, never: 'block', fine: 'allow' },
    });
  const tools = [{ name: 'hard' }, { name: 'soft' }, { name: 'never' }, { name: 'fine' }, { name: 'soft_tool', checkApproval: (toolCall: ToolCall) => ({ tool: toolCall.tool, description: 'soft', payload: 1, required: false }) }];

  const table: [RunMode, 'hard' | 'soft' | 'soft_tool', Authorization['decision'], Authorization['source']][] = [
    ['interactive', 'hard', 'approved', 'person'],
    ['interactive', 'soft', 'approved', 'person'],
    ['approve_all', 'hard', 'approved', 'mode'],
    ['approve_all', 'soft', 'approved', 'mode'],
    ['strict', 'hard', 'denied', 'mode'],
    ['strict', 'soft', 'approved', 'mode'],
    ['strict', 'soft_tool', 'approved', 'mode'],
    ['auto_deny', 'hard', 'denied', 'mode'],
    ['auto_deny', 'soft', 'denied', 'mode'],
    ['auto_deny', 'soft_tool', 'denied', 'mode'],
  ];

  it.each(table)('%s mode, %s ask → %s by %s (mode in the policy)', async (mode, tool, decision, source) => {
    const { approver, asked } = scripted(APPROVE_ONCE);
    const gate = gateWith({ policy: policy({ mode, tools: { hard: 'ask', soft: { decision: 'ask', required: false } } }), tools, approver });
    const result = await gate.authorize(call(tool), CONTEXT);
    expect(result.decision).toBe(decision);
    expect(result.source).toBe(source);
    expect(asked).toHaveLength(source === 'person' ? 1 : 0);
  });

  it.each(table)('%s mode, %s ask → %s by %s (mode given to the gate)', async (mode, tool, decision, source) => {
    const gate = gateWith({ policy: softAndHard(), tools, mode, approver: scripted(APPROVE_ONCE).approver });
    const result = await gate.authorize(call(tool), CONTEXT);
    expect(result.decision).toBe(decision);
    expect(result.source).toBe(source);
  });

  it.each(['interactive', 'approve_all', 'strict', 'auto_deny'] as const)('%s mode never turns a block into an allow, and allows stay allows', async (mode) => {
    const gate = gateWith({ policy: softAndHard(), tools, mode, approver: scripted(APPROVE_ONCE).approver });
    const blocked = await gate.authorize(call('never'), CONTEXT);
    expect(blocked.decision).toBe('block');
    expect(blocked.source).toBe('policy');
    expect((await gate.authorize(call('fine'), CONTEXT)).decision).toBe('allow');
  });

  it('the gate option overrides the policy mode', async () => {
    const gate = gateWith({ policy: policy({ mode: 'approve_all', tools: { hard: 'ask' } }), tools: [{ name: 'hard' }], mode: 'auto_deny' });
    expect((await gate.authorize(call('hard'), CONTEXT)).decision).toBe('denied');
  });

  it('mode denials carry a reason and are not a person', async () => {
    const gate = gateWith({ policy: softAndHard(), tools, mode: 'strict' });
    const result = await gate.authorize(call('hard'), CONTEXT);
    expect(result.reason).toMatch(/strict/);
    expect(result.request?.tool).toBe('hard');
  });

  it('daemon auto-approval only where the policy enables it, and never for a block', async () => {
    const enabled = gateWith({ policy: policy({ auto_approve_in_daemon: true, tools: { hard: 'ask', never: 'block' } }), tools });
    const daemon = { ...CONTEXT, daemon: true };
    expect(await enabled.authorize(call('hard'), daemon)).toMatchObject({ decision: 'approved', source: 'mode' });
    expect((await enabled.authorize(call('never'), daemon)).decision).toBe('block');
    expect((await enabled.authorize(call('hard'), CONTEXT)).decision).toBe('ask');
    const disabled = gateWith({ policy: policy({ tools: { hard: 'ask' } }), tools });
    expect((await disabled.authorize(call('hard'), daemon)).decision).toBe('ask');
  });
});

// ---------------------------------------------------------------------------
// Approvers, memory, decisions
// ---------------------------------------------------------------------------

describe('approvers and decisions', () => {
  const pay = (): ToolDeclaration => ({ name: 'pay', needsApproval: true });

  it('no approver: the decision is ask, with the request', async () => {
    const gate = gateWith({ tools: [pay()] });
    const result = await gate.authorize(call('pay', { amount: 1 }), CONTEXT);
    expect(result.decision).toBe('ask');
    expect(result.request?.tool).toBe('pay');
    expect(isAllowed(result)).toBe(false);
  });

  it('the non-interactive approver denies, names the rule that asked, and says who could approve', async () => {
    const gate = gateWith({ tools: [pay()], approver: createNonInteractiveApprover() });
    const result = await gate.authorize(call('pay'), CONTEXT);
    expect(result.decision).toBe('denied');
    expect(result.rule).not.toBeNull();
    expect(result.reason.startsWith(`pay needs approval (asked by ${result.rule}), but nobody who can approve it is reachable here`)).toBe(true);
    expect(result.reason).toMatch(/terminal/);
    expect(result.reason).not.toMatch(/approve-all|approve_all|mode:|allow/);
  });

  it('a per-call approver overrides the gate approver', async () => {
    const gateApprover = scripted({ approved: false, scope: 'once' });
    const callApprover = scripted(APPROVE_ONCE);
    const gate = gateWith({ tools: [pay()], approver: gateApprover.approver });
    expect((await gate.authorize(call('pay'), CONTEXT, { approver: callApprover.approver })).decision).toBe('approved');
    expect(gateApprover.asked).toHaveLength(0);
  });

  it('approve once asks again next time', async () => {
    const { approver, asked } = scripted(APPROVE_ONCE);
    const gate = gateWith({ tools: [pay()], approver });
    const first = await gate.authorize(call('pay', { amount: 1 }), CONTEXT);
    const second = await gate.authorize(call('pay', { amount: 1 }), CONTEXT);
    expect([first.source, second.source]).toEqual(['person', 'person']);
    expect(asked).toHaveLength(2);
  });

  it('approve for session is reused in the same session and chat only', async () => {
    const { approver, asked } = scripted(APPROVE_SESSION);
    const gate = gateWith({ tools: [pay()], approver });
    const args = { amount: 10, to: 'bob' };
    expect((await gate.authorize(call('pay', args), CONTEXT)).source).toBe('person');
    const again = await gate.authorize(call('pay', { to: 'bob', amount: 10 }), CONTEXT);
    expect(again).toMatchObject({ decision: 'approved', source: 'memory' });
    expect(asked).toHaveLength(1);

    expect((await gate.authorize(call('pay', args), { sessionId: 'session-2', chatId: 'chat-1' })).source).toBe('person');
    expect((await gate.authorize(call('pay', args), { sessionId: 'session-1', chatId: 'chat-2' })).source).toBe('person');
    expect((await gate.authorize(call('pay', args), { sessionId: 'session-1' })).source).toBe('person');
    expect((await gate.authorize(call('pay', { amount: '10', to: 'bob' }), CONTEXT)).source).toBe('person');
    expect(asked).toHaveLength(5);
  });

  it('deny for session is remembered in that session only', async () => {
    const { approver, asked } = scripted({ approved: false, scope: 'session', reason: 'not today' });
    const gate = gateWith({ tools: [pay()], approver });
    expect((await gate.authorize(call('pay', { a: 1 }), CONTEXT)).source).toBe('person');
    const again = await gate.authorize(call('pay', { a: 1 }), CONTEXT);
    expect(again).toMatchObject({ decision: 'denied', source: 'memory' });
    expect(again.reason).toContain('not today');
    expect((await gate.authorize(call('pay', { a: 1 }), { sessionId: 'other' })).source).toBe('person');
    expect(asked).toHaveLength(2);
  });

  it('a denial by a person is source person, with the reason', async () => {
    const gate = gateWith({ tools: [pay()], approver: scripted({ approved: false, scope: 'once', reason: 'too much' }).approver });
    const result = await gate.authorize(call('pay'), CONTEXT);
    expect(result).toMatchObject({ decision: 'denied', source: 'person', stop: false });
    expect(result.reason).toContain('too much');
  });

  it('approve always goes to the always store and applies in other sessions', async () => {
    const { store, added } = alwaysStore();
    const { approver, asked } = scripted({ approved: true, scope: 'always' });
    const gate = gateWith({ tools: [{ name: 'pay', needsApproval: true, identity: 'v1' }], approver, always: store });
    expect((await gate.authorize(call('pay', { a: 1 }), CONTEXT)).source).toBe('person');
    expect(added).toEqual([{ tool: 'pay', identity: 'v1', payload: { a: 1 }, description: 'pay(a=1)' }]);
    const elsewhere = await gate.authorize(call('pay', { a: 1 }), { sessionId: 'another', chatId: 'x' });
    expect(elsewhere).toMatchObject({ decision: 'approved', source: 'memory' });
    expect((await gate.authorize(call('pay', { a: 2 }), { sessionId: 'another' })).source).toBe('person');
    expect(asked).toHaveLength(2);
  });

  it('"approve always" never lifts a block', async () => {
    const { store } = alwaysStore();
    await store.add({ tool: 'rm', payload: {}, description: 'x' });
    const gate = gateWith({ policy: policy({ tools: { rm: 'block' } }), tools: [{ name: 'rm' }], always: store });
    expect((await gate.authorize(call('rm', {}), CONTEXT)).decision).toBe('block');
  });

  it('a tool identity change (e.g. a new MCP definition hash) invalidates remembered approvals', async () => {
    const { approver, asked } = scripted(APPROVE_SESSION);
    const gate = gateWith({ tools: [{ name: 'files__move', needsApproval: true, identity: 'mcp:files#aaaa' }], approver });
    await gate.authorize(call('files__move', { from: 'a', to: 'b' }), CONTEXT);
    expect((await gate.authorize(call('files__move', { from: 'a', to: 'b' }), CONTEXT)).source).toBe('memory');
    gate.register({ name: 'files__move', needsApproval: true, identity: 'mcp:files#bbbb' });
    expect((await gate.authorize(call('files__move', { from: 'a', to: 'b' }), CONTEXT)).source).toBe('person');
    expect(asked).toHaveLength(2);
  });

  it('sub-agents sharing the gate and session share memory', async () => {
    const { approver, asked } = scripted(APPROVE_SESSION);
    const gate = gateWith({ tools: [pay()], approver });
    await gate.authorize(call('pay', { a: 1 }), { ...CONTEXT, caller: 'parent' });
    const worker = await gate.authorize(call('pay', { a: 1 }), { ...CONTEXT, caller: 'worker' });
    expect(worker).toMatchObject({ decision: 'approved', source: 'memory' });
    expect(asked).toHaveLength(1);
  });

  it('gate.evaluate neither asks nor consults memory', async () => {
    const { approver, asked } = scripted(APPROVE_SESSION);
    const gate = gateWith({ tools: [pay()], approver });
    await gate.authorize(call('pay', { a: 1 }), CONTEXT);
    expect((await gate.evaluate(call('pay', { a: 1 }), CONTEXT)).kind).toBe('ask');
    expect(asked).toHaveLength(1);
  });

  it('the presented request carries the call, the context and the built presentation', async () => {
    const { approver, asked } = scripted(APPROVE_ONCE);
    const gate = gateWith({ tools: [pay()], approver });
    const toolCall = call('pay', { amount: 3 });
    await gate.authorize(toolCall, { ...CONTEXT, runId: 'r1' });
    expect(asked[0]!.call).toEqual(toolCall);
    expect(asked[0]!.context).toMatchObject({ sessionId: 'session-1', runId: 'r1' });
    expect(asked[0]!.presentation?.type).toBe('structured');
    expect(asked[0]!.presentation?.content).toContain('amount');
    expect(typeof asked[0]!.presentation).toBe('object');
  });
});

describe('edited arguments', () => {
  const mailPolicy = () =>
    yaml('tools:\n  send_email:\n    decision: ask\n    rules:\n      - { args: { to: ".*@evil\\\\.example" }, decision: block, reason: "no evil" }\n');

  it('what runs is what was approved: the edited arguments', async () => {
    const edited = { to: 'fixed@x.example', body: 'edited' };
    const gate = gateWith({ policy: mailPolicy(), tools: [{ name: 'send_email' }], approver: scripted({ approved: true, scope: 'once', args: edited }).approver });
    const result = await gate.authorize(call('send_email', { to: 'typo@x.example', body: 'original' }), CONTEXT);
    expect(result.decision).toBe('approved');
    expect(result.args).toEqual(edited);
  });

  it('edited arguments that the policy blocks are blocked', async () => {
    const gate = gateWith({
      policy: mailPolicy(),
      tools: [{ name: 'send_email' }],
      approver: scripted({ approved: true, scope: 'once', args: { to: 'x@evil.example', body: '' } }).approver,
    });
    const result = await gate.authorize(call('send_email', { to: 'ok@x.example', body: '' }), CONTEXT);
    expect(isAllowed(result)).toBe(false);
    expect(result.decision).toBe('block');
    expect(result.reason).toContain('no evil');
  });

  it("edited arguments that the tool's own check blocks are blocked", async () => {
    const tool: ToolDeclaration = {
      name: 'write',
      checkApproval: (toolCall) =>
        (toolCall.args as { path: string }).path.startsWith('/etc') ? blockCall('system files') : { tool: 'write', description: 'write', payload: toolCall.args },
    };
    const gate = gateWith({ tools: [tool], approver: scripted({ approved: true, scope: 'once', args: { path: '/etc/passwd' } }).approver });
    const result = await gate.authorize(call('write', { path: '/tmp/x' }), CONTEXT);
    expect(isAllowed(result)).toBe(false);
    expect(result.reason).toContain('system files');
  });

  it('an edit is once-only: it is never remembered for the session', async () => {
    const { approver, asked } = scripted({ approved: true, scope: 'session', args: { to: 'b@x.example', body: '' } });
    const gate = gateWith({ policy: mailPolicy(), tools: [{ name: 'send_email' }], approver });
    await gate.authorize(call('send_email', { to: 'a@x.example', body: '' }), CONTEXT);
    expect((await gate.authorize(call('send_email', { to: 'a@x.example', body: '' }), CONTEXT)).source).toBe('person');
    expect((await gate.authorize(call('send_email', { to: 'b@x.example', body: '' }), CONTEXT)).source).toBe('person');
    expect(asked).toHaveLength(3);
  });
});

describe('timeouts and stopping', () => {
  it('an approval timeout is its own outcome: denied, source timeout, reason "timed out"', async () => {
    const { approver, state } = silent();
    const gate = gateWith({ policy: policy({ approval_timeout: '50ms' }), tools: [{ name: 'pay', needsApproval: true }], approver });
    const started = Date.now();
    const result = await gate.authorize(call('pay'), CONTEXT);
    expect(result.decision).toBe('denied');
    expect(result.source).toBe('timeout');
    expect(result.reason).toBe('timed out');
    // The approver never answers: the bound tells the timeout from a hang, with room for a loaded machine.
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(state.asked).toBe(1);
    expect(state.aborted).toBe(true);
  });

  it("a person's denial is not a timeout", async () => {
    const gate = gateWith({ policy: policy({ approval_timeout: '5s' }), tools: [{ name: 'pay', needsApproval: true }], approver: scripted({ approved: false, scope: 'once' }).approver });
    const result = await gate.authorize(call('pay'), CONTEXT);
    expect(result.source).toBe('person');
    expect(result.reason).not.toBe('timed out');
  });

  it('a long approval timeout (30 days) waits for the person instead of firing at once', async () => {
    const slowApprover: Approver = { ask: () => new Promise((resolve) => setTimeout(() => resolve(APPROVE_ONCE), 30)) };
    const gate = gateWith({ policy: policy({ approval_timeout: 30 * 24 * 3600 }), tools: [{ name: 'pay', needsApproval: true }], approver: slowApprover });
    const result = await gate.authorize(call('pay'), CONTEXT);
    expect(result.source).toBe('person');
    expect(result.decision).toBe('approved');
  });

  it('on_deny: stop sets stop on denials; continue does not unless the person asks to stop', async () => {
    const stopGate = gateWith({ policy: policy({ on_deny: 'stop' }), tools: [{ name: 'pay', needsApproval: true }], approver: scripted({ approved: false, scope: 'once' }).approver });
    expect((await stopGate.authorize(call('pay'), CONTEXT)).stop).toBe(true);
    const modeStop = gateWith({ policy: policy({ on_deny: 'stop', mode: 'auto_deny' }), tools: [{ name: 'pay', needsApproval: true }] });
    expect(await modeStop.authorize(call('pay'), CONTEXT)).toMatchObject({ decision: 'denied', stop: true });
    const timeoutStop = gateWith({ policy: policy({ on_deny: 'stop', approval_timeout: '20ms' }), tools: [{ name: 'pay', needsApproval: true }], approver: silent().approver });
    expect(await timeoutStop.authorize(call('pay'), CONTEXT)).toMatchObject({ source: 'timeout', stop: true });

    const continueGate = gateWith({ tools: [{ name: 'pay', needsApproval: true }], approver: scripted({ approved: false, scope: 'once' }).approver });
    expect((await continueGate.authorize(call('pay'), CONTEXT)).stop).toBe(false);
    const personStop = gateWith({ tools: [{ name: 'pay', needsApproval: true }], approver: scripted({ approved: false, scope: 'once', stop: true }).approver });
    expect((await personStop.authorize(call('pay'), CONTEXT)).stop).toBe(true);
  });

  it('approvals never set stop', async () => {
    const gate = gateWith({ policy: policy({ on_deny: 'stop' }), tools: [{ name: 'pay', needsApproval: true }], approver: scripted(APPROVE_ONCE).approver });
    expect((await gate.authorize(call('pay'), CONTEXT)).stop).toBe(false);
  });
});

describe('batch approval (authorizeAll)', () => {
  function groupedTool(name: string): ToolDeclaration {
    return {
      name,
      checkApproval: (toolCall) => ({ tool: toolCall.tool, description: `${toolCall.tool} ${JSON.stringify(toolCall.args)}`, payload: toolCall.args, groupId: 'batch-1' }),
    };
  }

  it('asks once for requests sharing a groupId and applies the decision to all', async () => {
    const groups: PresentedRequest[][] = [];
    const single: PresentedRequest[] = [];
    const approver: Approver = {
      ask: async (request) => {
        single.push(request);
        return APPROVE_ONCE;
      },
      askGroup: async (requests) => {
        groups.push([...requests]);
        return APPROVE_ONCE;
      },
    };
    const gate = gateWith({ policy: policy({ tools: { read: 'allow' } }), tools: [groupedTool('write_a'), groupedTool('write_b'), { name: 'read' }], approver });
    const calls = [call('write_a', { n: 1 }), call('read'), call('write_b', { n: 2 }), call('write_a', { n: 3 })];
    const results = await gate.authorizeAll(calls, CONTEXT);
    expect(results.map((result) => result.decision)).toEqual(['approved', 'allow', 'approved', 'approved']);
    expect(groups).toHaveLength(1);
    expect(groups[0]!.map((request) => request.call.callId)).toEqual([calls[0]!.callId, calls[2]!.callId, calls[3]!.callId]);
    expect(single).toHaveLength(0);
    expect(results[3]!.args).toEqual({ n: 3 });
  });

  it('a group denial denies every call of the group', async () => {
    const approver: Approver = { ask: async () => APPROVE_ONCE, askGroup: async () => ({ approved: false, scope: 'once', reason: 'no batch' }) };
    const gate = gateWith({ tools: [groupedTool('a'), groupedTool('b')], approver });
    const results = await gate.authorizeAll([call('a'), call('b')], CONTEXT);
    expect(results.map((result) => result.decision)).toEqual(['denied', 'denied']);
    expect(results.every((result) => result.reason.includes('no batch'))).toBe(true);
  });

  it('a group decision never carries edited arguments to every call', async () => {
    const approver: Approver = { ask: async () => APPROVE_ONCE, askGroup: async () => ({ approved: true, scope: 'once', args: { hacked: true } }) };
    const gate = gateWith({ tools: [groupedTool('a'), groupedTool('b')], approver });
    const results = await gate.authorizeAll([call('a', { n: 1 }), call('b', { n: 2 })], CONTEXT);
    expect(results.map((result) => result.args)).toEqual([{ n: 1 }, { n: 2 }]);
  });

  it('without askGroup, each call is asked on its own; blocks in a batch stay blocks', async () => {
    const { approver, asked } = scripted(APPROVE_ONCE);
    const gate = gateWith({ policy: policy({ tools: { rm: 'block' } }), tools: [groupedTool('a'), groupedTool('b'), { name: 'rm' }], approver });
    const results = await gate.authorizeAll([call('a'), call('rm'), call('b')], CONTEXT);
    expect(results.map((result) => result.decision)).toEqual(['approved', 'block', 'approved']);
    expect(asked).toHaveLength(2);
  });
});

// ---------------------------------------------------------------------------
// Audit and redaction
// ---------------------------------------------------------------------------

describe('audit', () => {
  const auditPolicy = () => policy({ tools: { read: 'allow', rm: 'block', pay: 'ask' }, redact: { keys: ['password', 'api_key'] } });
  const tools = [{ name: 'read' }, { name: 'rm' }, { name: 'pay' }];

  it('records one verdict per call, and a decision per ask, with redacted arguments', async () => {
    const { sink, entries } = auditLog();
    const gate = gateWith({ policy: auditPolicy(), tools, audit: sink, approver: scripted(APPROVE_ONCE).approver });
    const args = { user: 'alice', password: 'hunter2', nested: { 'X-Api-Key': 'k', list: [{ PASSWORD: 'p' }] } };
    await gate.authorize(call('read', args), { ...CONTEXT, runId: 'run-1', caller: 'worker' });
    await gate.authorize(call('rm', args), CONTEXT);
    await gate.authorize(call('pay', args), CONTEXT);
    expect(entries.map((entry) => [entry.tool, entry.kind, entry.verdict, entry.decision])).toEqual([
      ['read', 'verdict', 'allow', 'allow'],
      ['rm', 'verdict', 'block', 'block'],
      ['pay', 'verdict', 'ask', 'ask'],
      ['pay', 'decision', 'ask', 'approved'],
    ]);
    for (const entry of entries) {
      expect(entry.args).toEqual({ user: 'alice', password: '[REDACTED]', nested: { 'X-Api-Key': '[REDACTED]', list: [{ PASSWORD: '[REDACTED]' }] } });
      expect(JSON.stringify(entry)).not.toContain('hunter2');
      expect(entry.v).toBe(1);
      expect(entry.session).toBe('session-1');
      expect(entry.chat).toBe('chat-1');
      expect(typeof entry.latency_ms).toBe('number');
    }
    expect(entries[0]).toMatchObject({ run: 'run-1', caller: 'worker', source: 'policy', rule: 'tools.read' });
    expect(entries[3]).toMatchObject({ source: 'person' });
    expect(args.password).toBe('hunter2'); // the call's own arguments are untouched
  });

  it('records decisions that memory and modes make', async () => {
    const { sink, entries } = auditLog();
    const gate = gateWith({ policy: auditPolicy(), tools, audit: sink, approver: scripted(APPROVE_SESSION).approver });
    await gate.authorize(call('pay', { a: 1 }), CONTEXT);
    await gate.authorize(call('pay', { a: 1 }), CONTEXT);
    expect(entries.filter((entry) => entry.kind === 'decision').map((entry) => entry.source)).toEqual(['person', 'memory']);
    const modeLog = auditLog();
    const modeGate = gateWith({ policy: auditPolicy(), tools, audit: modeLog.sink, mode: 'auto_deny' });
    await modeGate.authorize(call('pay'), CONTEXT);
    expect(modeLog.entries.map((entry) => [entry.kind, entry.decision, entry.source])).toEqual([
      ['verdict', 'ask', 'policy'],
      ['decision', 'denied', 'mode'],
    ]);
  });

  it('the decision record of an edited approval records the arguments that will run (redacted)', async () => {
    const { sink, entries } = auditLog();
    const edited = { to: 'reviewed@x.example', password: 'new-secret' };
    const gate = gateWith({ policy: auditPolicy(), tools, audit: sink, approver: scripted({ approved: true, scope: 'once', args: edited }).approver });
    const result = await gate.authorize(call('pay', { to: 'model@x.example', password: 'old-secret' }), CONTEXT);
    expect(result.args).toEqual(edited);
    const decision = entries.find((entry) => entry.kind === 'decision')!;
    expect(decision.decision).toBe('approved');
    expect(decision.args).toEqual({ to: 'reviewed@x.example', password: '[REDACTED]' });
  });

  it('records a timeout as a timeout', async () => {
    const { sink, entries } = auditLog();
    const gate = gateWith({ policy: policy({ approval_timeout: '20ms', tools: { pay: 'ask' } }), tools, audit: sink, approver: silent().approver });
    await gate.authorize(call('pay'), CONTEXT);
    expect(entries.at(-1)).toMatchObject({ kind: 'decision', decision: 'denied', source: 'timeout', reason: 'timed out' });
  });

  it('the observer sees every authorization and cannot change it', async () => {
    const seen: string[] = [];
    const gate = gateWith({
      policy: auditPolicy(),
      tools,
      observer: {
        authorized: (event) => {
          seen.push(`${event.call.tool}:${event.verdict}:${event.authorization.decision}`);
        },
      },
      mode: 'approve_all',
    });
    await gate.authorize(call('read'), CONTEXT);
    await gate.authorize(call('pay'), CONTEXT);
    expect(seen).toEqual(['read:allow:allow', 'pay:ask:approved']);
  });

  it('redacts sensitive keys in the prompt a person is shown, too', async () => {
    const { approver, asked } = scripted(APPROVE_ONCE);
    const gate = gateWith({ policy: auditPolicy(), tools, approver });
    await gate.authorize(call('pay', { to: 'bob', password: 'hunter2' }), CONTEXT);
    expect(asked).toHaveLength(1);
    expect(asked[0]!.presentation?.content).toContain('bob');
    expect(asked[0]!.presentation?.content).not.toContain('hunter2');
  });
});


describe('authorizeSoon: the hot path without a promise', () => {
  const tools: ToolDeclaration[] = [{ name: 'read' }, { name: 'pay' }, { name: 'rm' }];
  const allowing = () => createGate({ policy: policy({ tools: { read: 'allow', pay: 'ask', rm: 'block' } }), tools });

  it('answers a decision reached without I/O as the value itself, the same as authorize', async () => {
    const gate = allowing();
    for (const [tool, decision] of [['read', 'allow'], ['rm', 'block']] as const) {
      const soon = authorizeSoon(gate, call(tool), CONTEXT);
      expect(soon).not.toBeInstanceOf(Promise);
      expect((soon as Authorization).decision).toBe(decision);
      expect(soon).toEqual({ ...(await gate.authorize(call(tool), CONTEXT)), args: (soon as Authorization).args });
    }
  });

  it('still waits where the gate must: an ask with a person to ask, an audit log', async () => {
    const asked = scripted(APPROVE_ONCE);
    const asking = createGate({ policy: policy({ tools: { pay: 'ask' } }), tools, approver: asked.approver });
    const pending = authorizeSoon(asking, call('pay'), CONTEXT);
    expect(pending).toBeInstanceOf(Promise);
    expect((await pending).decision).toBe('approved');
    const records: AuditEntry[] = [];
    const audited = createGate({ policy: policy({ tools: { read: 'allow' } }), tools, audit: { record: async (entry) => void records.push(entry) } });
    const recorded = authorizeSoon(audited, call('read'), CONTEXT);
    expect(recorded).toBeInstanceOf(Promise);
    expect((await recorded).decision).toBe('allow');
    expect(records).toHaveLength(1);
  });

  it("asks any other gate through its own authorize: a wrapper, a spread copy, a replaced authorize", async () => {
    const gate = allowing();
    const refuse: Gate['authorize'] = async (refused) => ({ decision: 'denied', source: 'policy', rule: null, reason: 'the wrapper says no', args: refused.args, stop: false, trace: [] });
    expect((await authorizeSoon({ ...gate, authorize: refuse }, call('read'), CONTEXT)).decision).toBe('denied');
    const copy = { ...gate };
    expect(authorizeSoon(copy, call('read'), CONTEXT)).toBeInstanceOf(Promise);
    gate.authorize = refuse;
    expect((await authorizeSoon(gate, call('read'), CONTEXT)).decision).toBe('denied');
  });

  it('fails closed without a promise: an error inside the approval path is a denial', () => {
    const gate = allowing();
    const hostile = {
      get tool(): string {
        throw new Error('a getter that throws');
      },
      args: {},
      callId: 'c-hostile',
    };
    const failed = authorizeSoon(gate, hostile, CONTEXT);
    expect(failed).not.toBeInstanceOf(Promise);
    expect(failed).toMatchObject({ decision: 'denied', reason: expect.stringContaining('a getter that throws); denied to fail closed') });
  });
});
