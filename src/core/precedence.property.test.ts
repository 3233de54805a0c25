import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toolKey } from './approval-memory.ts';
import type { Approver } from './approver.ts';
import { createGate, type AlwaysApprovals } from './gate.ts';
import { normalizePolicy } from './policy/normalize-policy.ts';
import { blockCall, type ToolDeclaration } from './tool-declaration.ts';
import type { ApprovalDecision, Authorization, GateContext, RunMode } from './types.ts';

/**
 * Precedence, as DESIGN.md states it: the filter hides, any block blocks, any
 * ask asks, otherwise allow — and no mode, memory or person turns a block
 * into an allow. Random policies × tool declarations × modes × answers.
 */

type Tristate = 'none' | 'match' | 'no-match';
type ToolDecision = 'allow' | 'ask' | 'ask-soft' | 'block' | undefined;
type Declaration = 'none' | 'check-null' | 'check-ask' | 'check-ask-soft' | 'check-block' | 'needs-true' | 'needs-false' | 'needs-async-true' | 'needs-async-false';
type Answer = 'nobody' | 'approve-once' | 'approve-session' | 'approve-always' | 'deny-once' | 'deny-session';

interface Scenario {
  name: string;
  toolDecision: ToolDecision;
  spelling: number;
  askWhen: Tristate;
  askAlways: boolean;
  filterDeny: Tristate;
  filterAllow: Tristate;
  declaration: Declaration;
  unknown: 'allow' | 'ask' | 'block';
  dangerousKeywords: boolean;
  mode: RunMode | undefined;
  modeFromGate: boolean;
  answer: Answer;
}

const scenarios: fc.Arbitrary<Scenario> = fc.record({
  name: fc.constantFrom('get_weather', 'delete_rows', 'run_shell'),
  toolDecision: fc.constantFrom<ToolDecision>(undefined, 'allow', 'ask', 'ask-soft', 'block'),
  spelling: fc.nat(2),
  askWhen: fc.constantFrom<Tristate>('none', 'match', 'no-match'),
  askAlways: fc.boolean(),
  filterDeny: fc.constantFrom<Tristate>('none', 'match', 'no-match'),
  filterAllow: fc.constantFrom<Tristate>('none', 'match', 'no-match'),
  declaration: fc.constantFrom<Declaration>('none', 'check-null', 'check-ask', 'check-ask-soft', 'check-block', 'needs-true', 'needs-false', 'needs-async-true', 'needs-async-false'),
  unknown: fc.constantFrom('allow' as const, 'ask' as const, 'block' as const),
  dangerousKeywords: fc.boolean(),
  mode: fc.constantFrom<RunMode | undefined>(undefined, 'interactive', 'approve_all', 'strict', 'auto_deny'),
  modeFromGate: fc.boolean(),
  answer: fc.constantFrom<Answer>('nobody', 'approve-once', 'approve-session', 'approve-always', 'deny-once', 'deny-session'),
});

/** The tool entry, in one of the spellings the policy accepts (aliases included). */
function toolEntry(decision: Exclude<ToolDecision, undefined>, spelling: number): unknown {
  const spellings: Record<Exclude<ToolDecision, undefined>, unknown[]> = {
    allow: ['allow', 'preApproved', { preApproved: true }],
    ask: ['ask', { decision: 'ask' }, { preApproved: false }],
    'ask-soft': [{ decision: 'ask', required: false }, { required: false }, { preApproved: false, required: false }],
    block: ['block', 'blocked', { blocked: true, blockReason: 'policy says no' }],
  };
  return spellings[decision][spelling % 3];
}

function patternFor(state: Tristate, name: string): string[] | undefined {
  if (state === 'none') return undefined;
  // A literal and a regex that match, or ones that do not (near misses).
  return state === 'match' ? [name.replace(/_.*/, '_.*')] : [`x${name}`, `${name}.+`];
}

function declarationFor(scenario: Scenario): ToolDeclaration {
  const name = scenario.name;
  const request = (required: boolean) => ({ tool: name, description: `${name}?`, payload: { fixed: true }, required });
  switch (scenario.declaration) {
    case 'none':
      return { name };
    case 'check-null':
      return { name, checkApproval: () => null };
    case 'check-ask':
      return { name, checkApproval: async () => request(true) };
    case 'check-ask-soft':
      return { name, checkApproval: () => request(false) };
    case 'check-block':
      return { name, checkApproval: () => blockCall('the tool refuses') };
    case 'needs-true':
      return { name, needsApproval: true };
    case 'needs-false':
      return { name, needsApproval: false };
    case 'needs-async-true':
      return { name, needsApproval: async () => true };
    case 'needs-async-false':
      return { name, needsApproval: async () => false };
  }
}

function decisionFor(answer: Answer): ApprovalDecision | undefined {
  switch (answer) {
    case 'nobody':
      return undefined;
    case 'approve-once':
      return { approved: true, scope: 'once' };
    case 'approve-session':
      return { approved: true, scope: 'session' };
    case 'approve-always':
      return { approved: true, scope: 'always' };
    case 'deny-once':
      return { approved: false, scope: 'once', reason: 'no' };
    case 'deny-session':
      return { approved: false, scope: 'session', reason: 'no' };
  }
}

/** The reference model: what DESIGN.md says should happen to the first call. */
function expected(scenario: Scenario): { kind: 'block' } | { kind: 'allow' } | { kind: 'ask'; required: boolean } {
  const hidden = scenario.filterDeny === 'match' || scenario.filterAllow === 'no-match';
  if (hidden) return { kind: 'block' };
  const declared = scenario.declaration !== 'none';
  const hasRule = scenario.toolDecision !== undefined;
  const dangerous = scenario.dangerousKeywords && /delete|shell/.test(scenario.name);
  const fallback: 'allow' | 'ask' | 'block' | undefined =
    hasRule || declared ? undefined : scenario.unknown === 'allow' && dangerous ? 'ask' : scenario.unknown;

  const blocks = scenario.toolDecision === 'block' || scenario.declaration === 'check-block' || fallback === 'block';
  if (blocks) return { kind: 'block' };

  const asks: boolean[] = []; // one entry per asking source: is it required?
  if (scenario.toolDecision === 'ask') asks.push(true);
  if (scenario.toolDecision === 'ask-soft') asks.push(false);
  if (scenario.askWhen === 'match') asks.push(true);
  if (scenario.askAlways) asks.push(true);
  if (scenario.declaration === 'check-ask' || scenario.declaration === 'needs-true' || scenario.declaration === 'needs-async-true') asks.push(true);
  if (scenario.declaration === 'check-ask-soft') asks.push(false);
  if (fallback === 'ask') asks.push(true);
  if (asks.length > 0) return { kind: 'ask', required: asks.some(Boolean) };
  return { kind: 'allow' };
}

/** What the approval path should make of an ask, given the mode and the person's answer. */
function expectedForAsk(scenario: Scenario, required: boolean, memory: 'approved' | 'denied' | undefined): Pick<Authorization, 'decision' | 'source'> {
  if (memory !== undefined) return { decision: memory, source: 'memory' };
  switch (scenario.mode) {
    case 'approve_all':
      return { decision: 'approved', source: 'mode' };
    case 'strict':
      return required ? { decision: 'denied', source: 'mode' } : { decision: 'approved', source: 'mode' };
    case 'auto_deny':
      return { decision: 'denied', source: 'mode' };
    default: {
      const decision = decisionFor(scenario.answer);
      if (decision === undefined) return { decision: 'ask', source: 'policy' };
      return { decision: decision.approved ? 'approved' : 'denied', source: 'person' };
    }
  }
}

function buildGate(scenario: Scenario) {
  const name = scenario.name;
  const document: Record<string, unknown> = {
    unknown_tools: { decision: scenario.unknown, dangerous_keywords: scenario.dangerousKeywords },
    ask_always: scenario.askAlways,
  };
  if (!scenario.modeFromGate && scenario.mode !== undefined) document.mode = scenario.mode;
  if (scenario.toolDecision !== undefined) document.tools = { [name]: toolEntry(scenario.toolDecision, scenario.spelling) };
  const askWhen = patternFor(scenario.askWhen, name);
  if (askWhen !== undefined) document.ask_when = askWhen;
  const filter: Record<string, unknown> = {};
  const deny = patternFor(scenario.filterDeny, name);
  const allow = patternFor(scenario.filterAllow, name);
  if (deny !== undefined) filter.deny = deny;
  if (allow !== undefined) filter.allow = allow;
  document.filter = filter;

  const keys = new Set<string>();
  const always: AlwaysApprovals = { has: (entry) => keys.has(toolKey(entry)), add: async (entry) => void keys.add(toolKey(entry)) };
  const answer = decisionFor(scenario.answer);
  let asked = 0;
  const approver: Approver | undefined =
    answer === undefined
      ? undefined
      : {
          ask: async () => {
            asked += 1;
            return answer;
          },
        };
  const gate = createGate({
    policy: normalizePolicy(document),
    tools: [declarationFor(scenario)],
    ...(scenario.modeFromGate && scenario.mode !== undefined ? { mode: scenario.mode } : {}),
    ...(approver === undefined ? {} : { approver }),
    always,
  });
  return { gate, asked: () => asked };
}

const CONTEXT: GateContext = { sessionId: 'session', chatId: 'chat' };
const ALLOWED = new Set<Authorization['decision']>(['allow', 'approved']);

describe('precedence (property)', () => {
  it('filter → any block → any ask → allow, for every mode and answer; a block is never allowed', async () => {
    await fc.assert(
      fc.asyncProperty(scenarios, async (scenario) => {
        const { gate, asked } = buildGate(scenario);
        const model = expected(scenario);
        const args = { n: 1 };
        const verdict = await gate.evaluate({ tool: scenario.name, args, callId: 'v' }, CONTEXT);
        const first = await gate.authorize({ tool: scenario.name, args, callId: 'a' }, CONTEXT);
        const second = await gate.authorize({ tool: scenario.name, args, callId: 'b' }, { ...CONTEXT, caller: 'worker' });
        const otherChat = await gate.authorize({ tool: scenario.name, args, callId: 'c' }, { ...CONTEXT, chatId: 'other' });

        expect(verdict.kind).toBe(model.kind);
        if (model.kind === 'block') {
          // Hidden or blocked: never allowed, by any mode, memory or person, and nobody is asked.
          for (const result of [first, second, otherChat]) {
            expect(result.decision).toBe('block');
            expect(ALLOWED.has(result.decision)).toBe(false);
          }
          expect(asked()).toBe(0);
          return;
        }
        if (model.kind === 'allow') {
          for (const result of [first, second, otherChat]) {
            expect(result.decision).toBe('allow');
            expect(result.source).toBe('policy');
          }
          expect(asked()).toBe(0);
          return;
        }

        // An ask: never a plain allow; only approved/denied/ask, from mode, person or memory.
        expect(verdict.kind === 'ask' && verdict.request.required).toBe(model.required);
        for (const result of [first, second, otherChat]) {
          expect(result.decision).not.toBe('allow');
          expect(result.decision).not.toBe('block');
          expect(['approved', 'denied', 'ask']).toContain(result.decision);
          if (result.decision !== 'ask') expect(['mode', 'person', 'memory']).toContain(result.source);
        }
        expect(first).toMatchObject(expectedForAsk(scenario, model.required, undefined));

        // The person's answer is remembered only for "session" (this session and chat) and "always" (everywhere).
        const personAnswered = first.source === 'person';
        const remembered =
          personAnswered && scenario.answer === 'approve-session'
            ? 'approved'
            : personAnswered && scenario.answer === 'deny-session'
              ? 'denied'
              : personAnswered && scenario.answer === 'approve-always'
                ? 'approved'
                : undefined;
        expect(second).toMatchObject(expectedForAsk(scenario, model.required, remembered));
        const rememberedElsewhere = personAnswered && scenario.answer === 'approve-always' ? 'approved' : undefined;
        expect(otherChat).toMatchObject(expectedForAsk(scenario, model.required, rememberedElsewhere));
      }),
      { numRuns: 1500 },
    );
  });

  it('no approver answer, mode or memory ever turns a hidden or blocked tool into an allow (exhaustive over block sources)', async () => {
    const blockSources: Partial<Scenario>[] = [
      { filterDeny: 'match' },
      { filterAllow: 'no-match' },
      { toolDecision: 'block' },
      { declaration: 'check-block' },
      { toolDecision: undefined, declaration: 'none', unknown: 'block' },
    ];
    const answers: Answer[] = ['nobody', 'approve-once', 'approve-session', 'approve-always'];
    const modes: (RunMode | undefined)[] = [undefined, 'interactive', 'approve_all', 'strict', 'auto_deny'];
    for (const source of blockSources) {
      for (const mode of modes) {
        for (const answer of answers) {
          for (const extra of [{}, { askAlways: true }, { askWhen: 'match' as const }, { toolDecision: 'allow' as const }, { declaration: 'needs-false' as const }]) {
            const scenario: Scenario = {
              name: 'run_shell',
              toolDecision: undefined,
              spelling: 0,
              askWhen: 'none',
              askAlways: false,
              filterDeny: 'none',
              filterAllow: 'none',
              declaration: 'none',
              unknown: 'allow',
              dangerousKeywords: false,
              mode,
              modeFromGate: false,
              answer,
              ...extra,
              ...source,
            };
            const { gate } = buildGate(scenario);
            for (let attempt = 0; attempt < 2; attempt++) {
              const result = await gate.authorize({ tool: 'run_shell', args: {}, callId: `x${attempt}` }, CONTEXT);
              expect(result.decision, JSON.stringify(scenario)).toBe('block');
            }
          }
        }
      }
    }
  });
});
