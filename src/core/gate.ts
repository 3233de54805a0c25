/**
 * The gate: the one function every tool call goes through. `createGate`
 * reads as its phases, each in a module of its own: learning the tools
 * (here), evaluating (evaluate-call.ts), remembering (gate-remembered.ts),
 * the mode (approval-controller.ts), asking (gate-present.ts), settling a
 * person's answer (gate-settle.ts) and recording (gate-record.ts); the
 * outcomes they build are in gate-outcomes.ts.
 */
import { resolveMode } from './approval-controller.ts';
import { createInMemoryApprovalMemory, memoryKey, type ApprovalMemory } from './approval-memory.ts';
import type { Approver } from './approver.ts';
import type { Answer } from './ask-with-timeout.ts';
import type { AuditSink } from './audit-entry.ts';
import { createCallEvaluator, type EvaluatedVerdict, type PolicySection } from './evaluate-call.ts';
import { fingerprint } from './fingerprint.ts';
import { approved, denied, failedClosed, pendingOutcome, publicVerdict, verdictOutcome, type PendingAsk } from './gate-outcomes.ts';
import { authorizeGroups } from './gate-groups.ts';
import { alwaysChoices, askPerson, presentStep } from './gate-present.ts';
import { createGateRecorder, type GateObserver } from './gate-record.ts';
import { rememberedOutcome, type AlwaysApprovals } from './gate-remembered.ts';
import { settleAnswer } from './gate-settle.ts';
import type { PathForms } from './policy/judge-argument-rules.ts';
import type { Policy } from './policy/policy.ts';
import { errorMessage } from './run-tool-check.ts';
import type { ToolDeclaration } from './tool-declaration.ts';
import type { AlwaysScope, ApprovalRequest, Authorization, GateContext, RunMode, ToolCall, Verdict } from './types.ts';

export type { AlwaysApprovals } from './gate-remembered.ts';
export type { GateObserver } from './gate-record.ts';

export interface GateOptions {
  policy: Policy;
  /** The tools the gate knows; calls to any other tool are blocked unless `openWorld`. */
  tools?: Iterable<ToolDeclaration>;
  /** Treat unregistered tools as tools that declare nothing (the simulator, gateways). */
  openWorld?: boolean;
  /** Parts of the policy beyond `tools` that speak about some tools (the MCP gateway's `mcp.servers`). */
  sections?: readonly PolicySection[];
  /**
   * What an absolute path also stands for where tools run (symbolic links
   * resolved, other Unicode spellings), for `{inside: DIR}` conditions. Node
   * entry points pass `filesystemPathForms`; without it paths are compared
   * as written.
   */
  pathForms?: PathForms;
  /** Overrides the policy's mode (CLI flags). */
  mode?: RunMode;
  memory?: ApprovalMemory;
  always?: AlwaysApprovals;
  approver?: Approver;
  audit?: AuditSink;
  observer?: GateObserver;
  clock?: { now(): number };
}

export interface AuthorizeOptions {
  /**
   * Overrides the gate's approver for this call; `null` asks nobody, so an
   * ask that memory and the mode leave open comes back as `ask` (deferred runs).
   */
  approver?: Approver | null;
  signal?: AbortSignal;
  /**
   * The call was already put to a person (a deferred run resuming), whose
   * answer comes through `approver`: session memory, "approve always" and the
   * mode do not answer for them. Blocks still block.
   */
  personDecides?: boolean;
}

export interface Gate {
  readonly policy: Policy;
  /**
   * Who is asked when no approver is given per call (`createGate({ approver })`);
   * undefined when nobody is. Adapters read it so that the approver a gate
   * was made with is the one asked, never silently another.
   */
  readonly approver?: Approver | undefined;
  /** The verdict alone: allow, ask (with the request) or block. Never throws. */
  evaluate(call: ToolCall, context: GateContext): Promise<Verdict>;
  /** The whole approval path: verdict, memory, mode, person, memory, audit. Never throws. */
  authorize(call: ToolCall, context: GateContext, options?: AuthorizeOptions): Promise<Authorization>;
  /** Several calls at once; asks sharing a `groupId` are decided together when the approver can. */
  authorizeAll(calls: readonly ToolCall[], context: GateContext, options?: AuthorizeOptions): Promise<Authorization[]>;
  /**
   * False for tools the policy's filter hides: they must never reach the
   * model's tool list. `aliases` (default: the registered tool's) are judged too.
   */
  isVisible(name: string, aliases?: readonly string[]): boolean;
  register(tool: ToolDeclaration): void;
  unregister(name: string): void;
  tool(name: string): ToolDeclaration | undefined;
  /**
   * The choices "approve always" offers for an asked call beyond its payload
   * (`PresentedRequest.alwaysScopes`), for a person asked outside the gate
   * (a deferred run's card). Empty without an approvals store. Never throws.
   */
  alwaysChoices(call: ToolCall, request: Pick<ApprovalRequest, 'payload'>): Promise<Array<Omit<AlwaysScope, 'match'>>>;
}

/** The gates `createGate` made: their own `authorize`, and the same decision without a promise when it needs none. */
const soonPaths = new WeakMap<Gate, { authorize: Gate['authorize']; decideSoon: (call: ToolCall, context: GateContext, options?: AuthorizeOptions) => Authorization | Promise<Authorization> }>();

/**
 * `gate.authorize(call, context, options)`, except that a decision the gate
 * reaches without I/O (no tool check, no audit log, no person) comes back as
 * the value itself: a caller on a hot path (the AI SDK adapter, once per
 * tool call) saves a promise and a turn of the microtask queue. Only a gate
 * `createGate` made, whose `authorize` is still its own, takes that path;
 * any other object (a wrapper, a spread copy, a replaced `authorize`) is
 * asked through its `authorize`, so a wrapper's own rules are never skipped.
 *
 * @example
 * const authorization = authorizeSoon(gate, call, context);
 * if (!(authorization instanceof Promise)) return statusOf(authorization);
 */
export function authorizeSoon(gate: Gate, call: ToolCall, context: GateContext, options?: AuthorizeOptions): Authorization | Promise<Authorization> {
  const own = soonPaths.get(gate);
  return own !== undefined && gate.authorize === own.authorize ? own.decideSoon(call, context, options) : gate.authorize(call, context, options);
}

/**
 * Creates the gate: the one function every tool call goes through.
 *
 * @example
 * const gate = createGate({ policy, tools: [readFile, writeFile], approver });
 * const result = await gate.authorize({ tool: 'write_file', args, callId: 'c1' }, { sessionId: 's1' });
 * if (result.decision === 'allow' || result.decision === 'approved') await writeFile.execute(result.args);
 */
export function createGate(options: GateOptions): Gate {
  const { policy } = options;
  const { registry, learn } = createToolRegistry(options.tools ?? [], options.always);
  const evaluator = createCallEvaluator({ policy, openWorld: options.openWorld ?? false, sections: options.sections, pathForms: options.pathForms });
  const memory = options.memory ?? createInMemoryApprovalMemory();
  const clock = options.clock ?? { now: () => performance.now() };
  const mode = options.mode ?? policy.mode;
  const recorder = createGateRecorder({ policy, audit: options.audit, observer: options.observer, clock });
  const toolOf = (call: ToolCall) => (typeof call?.tool === 'string' ? registry.get(call.tool) : undefined);
  const approverFor = (authorizeOptions: AuthorizeOptions) => (authorizeOptions.approver === undefined ? options.approver : (authorizeOptions.approver ?? undefined));

  /**
   * The hot path: a verdict reached without I/O (no tool check) that is not
   * an ask is returned without a single promise, or, with an audit log, with
   * the one promise of its record (no async frames: the MCP gateway forwards
   * an audited call only once this settles, so every turn here is latency).
   */
  function authorizeNow(call: ToolCall, context: GateContext, authorizeOptions: AuthorizeOptions): Authorization | Promise<Authorization> {
    // Without an audit log the start time only feeds the observer: nobody else reads it.
    const started = recorder.timed ? clock.now() : 0;
    const tool = toolOf(call);
    const verdict = evaluator.evaluate(call, context, tool);
    if (verdict instanceof Promise || verdict.kind === 'ask') return authorize(call, context, authorizeOptions, { started, verdict });
    const outcome = verdictOutcome(verdict, call);
    if (options.audit === undefined) {
      recorder.observe(call, tool !== undefined, verdict.kind, outcome, verdict.dangerous, started);
      return outcome;
    }
    // An allow or a block, once its record is written; a record that cannot be written turns it into a denial.
    return recorder.record({ call, context, verdict, outcome, kind: 'verdict', started, tool }).then((failure) => {
      const answer = failure ?? outcome;
      recorder.observe(call, tool !== undefined, verdict.kind, answer, verdict.dangerous, started);
      return answer;
    });
  }

  async function authorize(call: ToolCall, context: GateContext, authorizeOptions: AuthorizeOptions = {}, evaluated?: { started: number; verdict: EvaluatedVerdict | Promise<EvaluatedVerdict> }): Promise<Authorization> {
    const step = await startAuthorization(call, context, evaluated?.started ?? clock.now(), evaluated?.verdict, authorizeOptions.personDecides === true);
    if ('decision' in step) return step;
    return askOne(step, approverFor(authorizeOptions), authorizeOptions.signal);
  }

  /** Asks the approver about one call, or leaves it pending when nobody is to be asked. */
  async function askOne(step: PendingAsk, approver: Approver | undefined, signal: AbortSignal | undefined): Promise<Authorization> {
    if (approver === undefined) return finish(step, pendingOutcome(step));
    const presented = await present(step);
    if ('decision' in presented) return finish(step, presented);
    return settle(step, await askPerson({ request: step.verdict.request, ask: (askSignal) => approver.ask(presented, { signal: askSignal }), signal, policy }));
  }

  /** Verdict, audit, memory and mode: everything short of asking a person. */
  async function startAuthorization(call: ToolCall, context: GateContext, started: number, evaluated?: EvaluatedVerdict | Promise<EvaluatedVerdict>, personDecides = false): Promise<Authorization | PendingAsk> {
    const tool = toolOf(call);
    const verdict = await (evaluated ?? evaluator.evaluate(call, context, tool));
    const { dangerous } = verdict;
    const auditFailure = await recorder.record({ call, context, verdict, outcome: verdictOutcome(verdict, call), kind: 'verdict', started, tool });
    if (verdict.kind !== 'ask' || auditFailure !== undefined) {
      const outcome = auditFailure ?? verdictOutcome(verdict, call);
      recorder.observe(call, tool !== undefined, verdict.kind, outcome, dangerous, started);
      return outcome;
    }
    const step: PendingAsk = { call, context, verdict, key: '', started, dangerous, tool };
    let payloadFingerprint: string;
    try {
      payloadFingerprint = fingerprint(verdict.request.payload);
    } catch (error) {
      return finish(step, denied(step, 'policy', `the approval payload of ${call.tool} cannot be fingerprinted (${errorMessage(error)}); denied to fail closed`, policy));
    }
    step.key = memoryKey({ context, tool: call.tool, identity: tool?.identity, payloadFingerprint });
    if (personDecides) return step;
    const remembered = await rememberedOutcome(step, { memory, always: options.always, policy });
    if (remembered !== undefined) return finish(step, remembered);
    const resolution = resolveMode({ request: verdict.request, mode, context, autoApproveInDaemon: policy.autoApproveInDaemon });
    if (resolution.action === 'approve') return finish(step, approved(step, 'mode', resolution.reason, call.args));
    if (resolution.action === 'deny') return finish(step, denied(step, 'mode', resolution.reason, policy));
    return step;
  }

  const present = (step: PendingAsk) => presentStep(step, { policy, offersAlways: options.always !== undefined });

  /** Applies a person's answer: edits re-checked, audit written, then memory updated. */
  async function settle(step: PendingAsk, answer: Answer): Promise<Authorization> {
    const { outcome, remember } = await settleAnswer(step, answer, { policy, evaluator, memory, always: options.always });
    return finish(step, outcome, remember);
  }

  /**
   * Records the decision, then remembers it: a decision the audit log could
   * not record is denied and never remembered.
   */
  async function finish(step: PendingAsk, decided: Authorization, remember?: () => void | Promise<void>): Promise<Authorization> {
    const outcome = step.approver !== undefined && decided.source === 'person' ? { ...decided, approver: step.approver } : decided;
    const failure = await recorder.record({ call: step.call, context: step.context, verdict: step.verdict, outcome, kind: 'decision', started: step.started, tool: step.tool });
    const final = failure ?? outcome;
    if (failure === undefined && remember !== undefined) {
      try {
        await remember();
      } catch {
        // Not remembered: the next equal call asks again.
      }
    }
    recorder.observe(step.call, registry.has(step.call.tool), 'ask', final, step.dangerous, step.started);
    return final;
  }

  /** `authorize`, with a decision reached without I/O returned as itself rather than in a promise. */
  const decideSoon = (call: ToolCall, context: GateContext, authorizeOptions: AuthorizeOptions = {}): Authorization | Promise<Authorization> => {
    try {
      const result = authorizeNow(call, context, authorizeOptions);
      return result instanceof Promise ? result.catch((error: unknown) => failedClosed(call, error)) : result;
    } catch (error) {
      return failedClosed(call, error);
    }
  };

  const authorizeOnce: Gate['authorize'] = (call, context, authorizeOptions) => {
    const result = decideSoon(call, context, authorizeOptions);
    return result instanceof Promise ? result : Promise.resolve(result);
  };

  const gate: Gate = {
    policy,
    approver: options.approver,
    // Not an async function: most decisions are reached without I/O, and for
    // them a settled promise is all a caller needs (no async frame, no extra tick).
    evaluate: (call, context) => {
      try {
        const verdict = evaluator.evaluate(call, context, toolOf(call));
        return verdict instanceof Promise ? verdict.then(publicVerdict) : Promise.resolve(publicVerdict(verdict));
      } catch (error) {
        return Promise.reject(error);
      }
    },
    authorize: authorizeOnce,
    authorizeAll: async (calls, context, authorizeOptions = {}) => {
      try {
        const phases = { start: (call: ToolCall) => startAuthorization(call, context, clock.now()), askOne, present, settle, policy };
        return await authorizeGroups({ calls, approver: approverFor(authorizeOptions), signal: authorizeOptions.signal, phases });
      } catch (error) {
        const reason = `the approval path failed (${errorMessage(error)}); denied to fail closed`;
        return calls.map((call) => ({ decision: 'denied', source: 'policy', rule: null, reason, args: call?.args, stop: false, trace: [] }));
      }
    },
    isVisible: (name, aliases) => !evaluator.isHidden(name, aliases ?? registry.get(name)?.aliases ?? []),
    register: (tool) => learn(tool),
    unregister: (name) => void registry.delete(name),
    tool: (name) => registry.get(name),
    alwaysChoices: async (call, request) => (options.always === undefined ? [] : alwaysChoices(registry.get(call.tool), call, request)),
  };
  soonPaths.set(gate, { authorize: authorizeOnce, decideSoon });
  return gate;
}

/** The tools a gate knows; learning one marks approvals kept for it under another identity void (a failure to mark changes no decision). */
function createToolRegistry(tools: Iterable<ToolDeclaration>, always: AlwaysApprovals | undefined): { registry: Map<string, ToolDeclaration>; learn: (tool: ToolDeclaration) => void } {
  const registry = new Map<string, ToolDeclaration>();
  const learn = (tool: ToolDeclaration): void => {
    registry.set(tool.name, tool);
    if (tool.identity === undefined || always?.retire === undefined) return;
    try {
      always.retire({ tool: tool.name, identity: tool.identity });
    } catch {
      // The mark is for people reading the approvals list; has() already never matches another identity.
    }
  };
  for (const tool of tools) learn(tool);
  return { registry, learn };
}
