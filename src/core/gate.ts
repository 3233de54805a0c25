import { resolveMode } from './approval-controller.ts';
import { ALWAYS_SCOPE_KEY, coveringScope, EXACT_SCOPE_ID, exactScope, offeredAlwaysScopes, posesAsScope, scopedPayload } from './always-scopes.ts';
import { createInMemoryApprovalMemory, memoryKey, type ApprovalMemory, type RememberedShown } from './approval-memory.ts';
import { presentRequest, type Approver, type PresentedRequest } from './approver.ts';
import { AUDIT_SCHEMA_VERSION, type AuditEntry, type AuditSink } from './audit-entry.ts';
import { createCallEvaluator, type EvaluatedVerdict, type PolicySection } from './evaluate-call.ts';
import type { PathForms } from './policy/judge-argument-rules.ts';
import { fingerprint } from './fingerprint.ts';
import { isoTime } from './iso-time.ts';
import type { Policy } from './policy/policy.ts';
import { redact } from './redact.ts';
import { errorMessage } from './run-tool-check.ts';
import { askWithTimeout, type Answer } from './ask-with-timeout.ts';
import { setLongTimeout } from './long-timeout.ts';
import type { ToolDeclaration } from './tool-declaration.ts';
import type {
  AlwaysScope,
  ApprovalDecision,
  ApprovalRequest,
  Authorization,
  DecisionSource,
  GateContext,
  Presentation,
  RunMode,
  ToolCall,
  Verdict,
} from './types.ts';

/** "Approve always": decisions kept across sessions (the approvals file). */
export interface AlwaysApprovals {
  /** Where they are kept, for the reason an approval gives (default: "approvals file"). */
  readonly where?: string;
  has(entry: { tool: string; identity?: string; payload: unknown }): boolean;
  /** `scoped`: the payload is a chosen scope (`scopedPayload`), kept whole so it can be read back; any other payload is kept redacted. */
  add(entry: { tool: string; identity?: string; payload: unknown; description: string; scoped?: boolean }): Promise<void>;
  /**
   * The scopes kept for a tool under this identity (`scopedPayload`): what
   * the tool's `withinAlwaysScope` matches later calls against. Only scopes
   * whose kept record is intact (its fingerprint is theirs) are returned.
   */
  scoped?(entry: { tool: string; identity?: string }): AlwaysScope[];
  /**
   * Told the identity a tool has now (when the gate learns the tool): its
   * approvals under another identity never match again, and may be marked so.
   */
  retire?(entry: { tool: string; identity: string }): void;
}

/** Sees every authorization; the metrics registry implements it. */
export interface GateObserver {
  authorized(event: { call: ToolCall; known: boolean; verdict: Verdict['kind']; authorization: Authorization; dangerous: boolean; durationMs: number }): void;
}

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
/** What `record` answers without an audit log: nothing was written, so nothing failed. */
const NOTHING_TO_RECORD: Promise<undefined> = Promise.resolve(undefined);

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
  const registry = new Map<string, ToolDeclaration>();
  /** Learns a tool; approvals kept for it under another identity are marked void (a failure to mark changes no decision). */
  const learn = (tool: ToolDeclaration): void => {
    registry.set(tool.name, tool);
    if (tool.identity === undefined || options.always?.retire === undefined) return;
    try {
      options.always.retire({ tool: tool.name, identity: tool.identity });
    } catch {
      // The mark is for people reading the approvals list; has() already never matches another identity.
    }
  };
  for (const tool of options.tools ?? []) learn(tool);
  const evaluator = createCallEvaluator({ policy, openWorld: options.openWorld ?? false, sections: options.sections, pathForms: options.pathForms });
  const memory = options.memory ?? createInMemoryApprovalMemory();
  const clock = options.clock ?? { now: () => performance.now() };
  const mode = options.mode ?? policy.mode;

  /** A call waiting for a person, with everything needed to finish it. */
  interface PendingAsk {
    call: ToolCall;
    context: GateContext;
    verdict: Extract<Verdict, { kind: 'ask' }>;
    key: string;
    started: number;
    dangerous: boolean;
    /** The declaration the verdict was reached with: approvals bind to its identity, not to a later one. */
    tool: ToolDeclaration | undefined;
    /** Set once a person has been shown the request. */
    presentation?: Presentation;
    /** Who answered, when the approver says (an authenticated approver). */
    approver?: string;
  }

  /**
   * The hot path: a verdict reached without I/O (no tool check) that is not
   * an ask is returned without a single promise, or, with an audit log, with
   * the one promise of its record (no async frames: the MCP gateway forwards
   * an audited call only once this settles, so every turn here is latency).
   */
  function authorizeNow(call: ToolCall, context: GateContext, authorizeOptions: AuthorizeOptions): Authorization | Promise<Authorization> {
    // Without an audit log the start time only feeds the observer: nobody else reads it.
    const started = options.audit === undefined && options.observer === undefined ? 0 : clock.now();
    const tool = typeof call?.tool === 'string' ? registry.get(call.tool) : undefined;
    const verdict = evaluator.evaluate(call, context, tool);
    if (verdict instanceof Promise || verdict.kind === 'ask') return authorize(call, context, authorizeOptions, { started, verdict });
    const outcome = verdictOutcome(verdict, call);
    if (options.audit !== undefined) return recordedOutcome(call, context, verdict, outcome, started, tool);
    observe(call, tool !== undefined, verdict.kind, outcome, verdict.dangerous, started);
    return outcome;
  }

  /** An allow or a block, once its record is written; a record that cannot be written turns it into a denial. */
  function recordedOutcome(call: ToolCall, context: GateContext, verdict: EvaluatedVerdict, outcome: Authorization, started: number, tool: ToolDeclaration | undefined): Promise<Authorization> {
    return record(call, context, verdict, outcome, 'verdict', started, tool).then((failure) => {
      const answer = failure ?? outcome;
      observe(call, tool !== undefined, verdict.kind, answer, verdict.dangerous, started);
      return answer;
    });
  }

  async function authorize(
    call: ToolCall,
    context: GateContext,
    authorizeOptions: AuthorizeOptions = {},
    evaluated?: { started: number; verdict: EvaluatedVerdict | Promise<EvaluatedVerdict> },
  ): Promise<Authorization> {
    const started = evaluated?.started ?? clock.now();
    const step = await startAuthorization(call, context, started, evaluated?.verdict, authorizeOptions.personDecides === true);
    if ('decision' in step) return step;
    const approver = authorizeOptions.approver === undefined ? options.approver : (authorizeOptions.approver ?? undefined);
    if (approver === undefined) return finish(step, pendingOutcome(step));
    const presented = await present(step);
    if ('decision' in presented) return finish(step, presented);
    const decision = await askPerson(step.verdict.request, (signal) => approver.ask(presented, { signal }), authorizeOptions.signal);
    return settle(step, decision);
  }

  async function authorizeAll(calls: readonly ToolCall[], context: GateContext, authorizeOptions: AuthorizeOptions = {}): Promise<Authorization[]> {
    const approver = authorizeOptions.approver === undefined ? options.approver : (authorizeOptions.approver ?? undefined);
    const results: Authorization[] = new Array(calls.length);
    const groups = new Map<string, { indices: number[]; steps: PendingAsk[] }>();
    for (const [index, call] of calls.entries()) {
      const started = clock.now();
      const step = await startAuthorization(call, context, started);
      if ('decision' in step) {
        results[index] = step;
        continue;
      }
      const groupId = step.verdict.request.groupId;
      if (groupId === undefined || approver?.askGroup === undefined) {
        results[index] = await authorizeStep(step, approver, authorizeOptions.signal);
        continue;
      }
      const group = groups.get(groupId) ?? { indices: [], steps: [] };
      group.indices.push(index);
      group.steps.push(step);
      groups.set(groupId, group);
    }
    for (const group of groups.values()) {
      if (group.steps.length === 1) {
        results[group.indices[0]!] = await authorizeStep(group.steps[0]!, approver, authorizeOptions.signal);
        continue;
      }
      const presented: PresentedRequest[] = [];
      let failed: Authorization | undefined;
      for (const step of group.steps) {
        const item = await present(step);
        if ('decision' in item) failed = item;
        else presented.push(item);
      }
      const request = group.steps[0]!.verdict.request;
      const decision: Answer =
        failed !== undefined
          ? { kind: 'failed', reason: `${failed.reason} (one request of the group could not be shown, so the group is denied)` }
          : await askPerson(request, (signal) => approver!.askGroup!(presented, { signal }), authorizeOptions.signal);
      for (const [position, step] of group.steps.entries()) {
        // An edit applies to one call; a group decision never carries edited arguments.
        const groupDecision: Answer =
          decision.kind === 'decided' && decision.decision.approved ? { kind: 'decided', decision: { ...decision.decision, args: undefined } } : decision;
        results[group.indices[position]!] = await settle(step, groupDecision);
      }
    }
    return results;
  }

  async function authorizeStep(step: PendingAsk, approver: Approver | undefined, signal: AbortSignal | undefined): Promise<Authorization> {
    if (approver === undefined) return finish(step, pendingOutcome(step));
    const presented = await present(step);
    if ('decision' in presented) return finish(step, presented);
    return settle(step, await askPerson(step.verdict.request, (askSignal) => approver.ask(presented, { signal: askSignal }), signal));
  }

  /** Verdict, audit, and everything short of asking a person. */
  async function startAuthorization(
    call: ToolCall,
    context: GateContext,
    started: number,
    evaluated?: EvaluatedVerdict | Promise<EvaluatedVerdict>,
    personDecides = false,
  ): Promise<Authorization | PendingAsk> {
    const tool = typeof call?.tool === 'string' ? registry.get(call.tool) : undefined;
    const verdict = await (evaluated ?? evaluator.evaluate(call, context, tool));
    const { dangerous } = verdict;
    const auditFailure = await record(call, context, verdict, verdictOutcome(verdict, call), 'verdict', started, tool);
    if (verdict.kind !== 'ask' || auditFailure !== undefined) {
      const outcome = auditFailure ?? verdictOutcome(verdict, call);
      observe(call, tool !== undefined, verdict.kind, outcome, dangerous, started);
      return outcome;
    }
    const step: PendingAsk = { call, context, verdict, key: '', started, dangerous, tool };
    let payloadFingerprint: string;
    try {
      payloadFingerprint = fingerprint(verdict.request.payload);
    } catch (error) {
      return finish(step, denied(step, 'policy', `the approval payload of ${call.tool} cannot be fingerprinted (${errorMessage(error)}); denied to fail closed`));
    }
    step.key = memoryKey({ context, tool: call.tool, identity: tool?.identity, payloadFingerprint });
    if (personDecides) return step;
    const remembered = memory.lookup(step.key);
    if (remembered !== undefined) {
      return finish(
        step,
        remembered.approved
          ? approved(step, 'memory', 'approved earlier for this session', call.args)
          : denied(step, 'memory', `denied earlier for this session${remembered.reason ? `: ${remembered.reason}` : ''}`),
      );
    }
    const always = options.always;
    if (always !== undefined) {
      const where = always.where ?? 'approvals file';
      const identity = tool?.identity;
      if (!posesAsScope(verdict.request.payload) && always.has({ tool: call.tool, identity, payload: verdict.request.payload }) === true) {
        return finish(step, approved(step, 'memory', `approved always (${where})`, call.args));
      }
      const kept = always.scoped?.({ tool: call.tool, identity }) ?? [];
      if (kept.length > 0) {
        const exact = kept.some((scope) => scope.id === EXACT_SCOPE_ID) ? await exactScope(call, verdict.request.payload).catch(() => undefined) : undefined;
        if (exact !== undefined && always.has({ tool: call.tool, identity, payload: scopedPayload(exact) }) === true) {
          return finish(step, approved(step, 'memory', `approved always (${where}): ${exact.rule}`, call.args));
        }
        const covering = await coveringScope({ tool, call, kept });
        if (covering !== undefined) return finish(step, approved(step, 'memory', `approved always (${where}): ${covering.rule}`, call.args));
      }
    }
    const resolution = resolveMode({ request: verdict.request, mode, context, autoApproveInDaemon: policy.autoApproveInDaemon });
    if (resolution.action === 'approve') return finish(step, approved(step, 'mode', resolution.reason, call.args));
    if (resolution.action === 'deny') return finish(step, denied(step, 'mode', resolution.reason));
    return step;
  }

  /** Builds the presentation lazily, after the memory lookup. A failure denies. */
  async function present(step: PendingAsk): Promise<PresentedRequest | Authorization> {
    // A presentation is tool code too: it gets the same deadline as a check.
    const deadline = new AbortController();
    const cancel = setLongTimeout(() => deadline.abort(), policy.checkTimeoutMs);
    try {
      const presented = await Promise.race([
        presentRequest({ request: step.verdict.request, call: step.call, context: step.context }),
        new Promise<never>((_resolve, reject) => {
          deadline.signal.addEventListener('abort', () => reject(new Error(`it took longer than ${policy.checkTimeoutMs} ms`)), { once: true });
        }),
      ]);
      // A call the policy judged dangerous (unknown_tools.dangerous_keywords) is shown as such, unless its tool said its risk itself.
      if (step.dangerous && presented.presentation !== undefined && presented.presentation.metadata?.risk === undefined) {
        presented.presentation = { ...presented.presentation, metadata: { ...presented.presentation.metadata, risk: 'dangerous' } };
      }
      step.presentation = presented.presentation;
      const scopes = await alwaysChoices(step.tool, step.call, step.verdict.request);
      if (scopes.length > 0) presented.alwaysScopes = scopes;
      // The person sees which rule asked, and where it is written.
      const rule = step.verdict.rule;
      if (rule !== null) {
        const at = policy.ruleAt?.(rule);
        presented.askedBy = at === undefined ? { rule } : { rule, at };
      }
      return presented;
    } catch (error) {
      return denied(step, 'policy', `the approval prompt for ${step.call.tool} could not be built (${errorMessage(error)}); denied to fail closed`);
    } finally {
      cancel();
    }
  }

  /** What "always" may cover for a call, as a person is shown it (without what the tool matches). */
  async function alwaysChoices(tool: ToolDeclaration | undefined, call: ToolCall, request: Pick<ApprovalRequest, 'payload'>): Promise<Array<Omit<AlwaysScope, 'match'>>> {
    if (options.always === undefined) return [];
    try {
      const scopes = await offeredAlwaysScopes({ tool, call, payload: request.payload, payloadIsArguments: fingerprintsEqual(request.payload, call.args) });
      return scopes.map(({ match: _match, ...shown }) => shown);
    } catch {
      return [];
    }
  }

  /** Applies a person's answer: edits re-checked, audit written, then memory updated. */
  async function settle(step: PendingAsk, answer: Answer): Promise<Authorization> {
    if (answer.kind === 'timeout') return finish(step, denied(step, 'timeout', 'timed out'));
    if (answer.kind === 'failed') return finish(step, denied(step, 'policy', answer.reason));
    const decision = answer.decision;
    if (typeof decision.by === 'string' && decision.by !== '') step.approver = decision.by;
    if (!decision.approved) {
      if (decision.timedOut === true) return finish(step, denied(step, 'timeout', decision.reason ?? 'timed out'));
      if (decision.automatic === true) return finish(step, denied(step, 'mode', decision.reason ?? 'denied: nobody can approve it here'));
      const reason = decision.reason ? `denied by a person: ${decision.reason}` : 'denied by a person';
      const remember = decision.scope === 'session' ? () => memory.store(step.key, { approved: false, reason: decision.reason, shown: shownOf(step) }) : undefined;
      return finish(step, { ...denied(step, 'person', reason), stop: decision.stop ?? policy.onDeny === 'stop' }, remember);
    }
    const editedPrint = decision.args === undefined ? undefined : safeFingerprint(decision.args);
    if (decision.args !== undefined && editedPrint === undefined) {
      return finish(step, denied(step, 'policy', 'the edited arguments are not plain data (they cannot be fingerprinted); denied to fail closed'));
    }
    if (decision.args !== undefined && editedPrint !== safeFingerprint(step.call.args)) {
      // What runs is what was approved: the edited call goes through the policy again.
      const edited = { ...step.call, args: decision.args };
      const verdict = await evaluator.evaluate(edited, step.context, step.tool);
      if (verdict.kind === 'block') {
        return finish(step, { ...denied(step, 'person', `the edited arguments are blocked: ${verdict.reason}`), decision: 'block', rule: verdict.rule, args: decision.args });
      }
      // The person approved the arguments they typed, not the prompt built
      // for the model's: that prompt must not vouch for the edited call.
      const { presentation: _shown, ...outcome } = approved(step, 'person', 'approved by a person with edited arguments (once)', decision.args);
      return finish(step, outcome);
    }
    const scope =
      decision.scope === 'once' ? '' : decision.scope === 'session' ? ' for this session' : options.always === undefined ? ' (once: no approvals file to keep "always" in)' : ' always';
    const outcome = approved(step, 'person', `approved by a person${scope}${decision.note ? `: ${decision.note}` : ''}`, step.call.args);
    if (decision.scope === 'session') return finish(step, outcome, () => memory.store(step.key, { approved: true, shown: shownOf(step) }));
    if (decision.scope === 'always' && options.always !== undefined && decision.alwaysScope !== undefined) {
      const always = options.always;
      // The scope is found again from the call, never taken from the answer: an answer names a choice, it cannot write one.
      const offered = await offeredAlwaysScopes({ tool: step.tool, call: step.call, payload: step.verdict.request.payload, payloadIsArguments: fingerprintsEqual(step.verdict.request.payload, step.call.args) });
      const chosen = offered.find((scope) => scope.id === decision.alwaysScope);
      if (chosen === undefined) {
        const once = approved(step, 'person', `approved by a person (once: "always" for ${JSON.stringify(decision.alwaysScope)} is not a choice this call offers)${decision.note ? `: ${decision.note}` : ''}`, step.call.args);
        return finish(step, once);
      }
      const scoped = approved(step, 'person', `approved by a person always: ${chosen.rule}${decision.note ? `: ${decision.note}` : ''}`, step.call.args);
      const entry = { tool: step.call.tool, identity: step.tool?.identity, payload: scopedPayload(chosen), description: chosen.text, scoped: true };
      return finish(step, scoped, () => always.add(entry));
    }
    if (decision.scope === 'always' && options.always !== undefined && posesAsScope(step.verdict.request.payload)) {
      return finish(step, approved(step, 'person', `approved by a person (once: the call's approval payload carries ${ALWAYS_SCOPE_KEY}, which "always" cannot keep)${decision.note ? `: ${decision.note}` : ''}`, step.call.args));
    }
    if (decision.scope === 'always' && options.always !== undefined) {
      const always = options.always;
      const entry = { tool: step.call.tool, identity: step.tool?.identity, payload: step.verdict.request.payload, description: step.verdict.request.description };
      // A failure to save only means asking again next time: the safe direction.
      return finish(step, outcome, () => always.add(entry));
    }
    return finish(step, outcome);
  }

  /** What a list of session approvals shows of this one. */
  function shownOf(step: PendingAsk): RememberedShown {
    const description = step.verdict.request.description;
    return {
      tool: step.call.tool,
      description: description.length > 500 ? `${description.slice(0, 499)}…` : description,
      at: new Date().toISOString(),
      ...(step.approver === undefined ? {} : { by: step.approver }),
    };
  }

  /**
   * Records the decision, then remembers it: a decision the audit log could
   * not record is denied and never remembered.
   */
  async function finish(step: PendingAsk, decided: Authorization, remember?: () => void | Promise<void>): Promise<Authorization> {
    const outcome = step.approver !== undefined && decided.source === 'person' ? { ...decided, approver: step.approver } : decided;
    const failure = await record(step.call, step.context, step.verdict, outcome, 'decision', step.started, step.tool);
    const final = failure ?? outcome;
    if (failure === undefined && remember !== undefined) {
      try {
        await remember();
      } catch {
        // Not remembered: the next equal call asks again.
      }
    }
    observe(step.call, registry.has(step.call.tool), 'ask', final, step.dangerous, step.started);
    return final;
  }

  function pendingOutcome(step: PendingAsk): Authorization {
    return { decision: 'ask', source: 'policy', rule: step.verdict.rule, reason: `waiting for approval: ${step.verdict.reason}`, args: step.call.args, request: step.verdict.request, stop: false, trace: step.verdict.trace };
  }

  function approved(step: PendingAsk, source: DecisionSource, reason: string, args: unknown): Authorization {
    const authorization: Authorization = { decision: 'approved', source, rule: step.verdict.rule, reason, args, request: step.verdict.request, stop: false, trace: step.verdict.trace };
    if (source === 'person' && step.presentation !== undefined) authorization.presentation = step.presentation;
    return authorization;
  }

  function denied(step: PendingAsk, source: DecisionSource, reason: string): Authorization {
    return { decision: 'denied', source, rule: step.verdict.rule, reason, args: step.call.args, request: step.verdict.request, stop: policy.onDeny === 'stop', trace: step.verdict.trace };
  }

  /**
   * Writes an audit entry; a failure to write (or to build the entry) turns
   * the outcome into a denial. One promise and no async frame: the audited
   * hot path (`recordedOutcome`) answers through it.
   */
  function record(
    call: ToolCall,
    context: GateContext,
    verdict: Verdict,
    outcome: Authorization,
    kind: AuditEntry['kind'],
    started: number,
    tool: ToolDeclaration | undefined,
  ): Promise<Authorization | undefined> {
    const audit = options.audit;
    if (audit === undefined) return NOTHING_TO_RECORD;
    let written: Promise<void>;
    try {
      written = Promise.resolve(audit.record(auditEntry(call, context, verdict, outcome, kind, started, tool)));
    } catch (error) {
      written = Promise.reject(error);
    }
    return written.then(
      () => undefined,
      (error: unknown) => auditFailure(call, verdict, outcome, error),
    );
  }

  function auditEntry(
    call: ToolCall,
    context: GateContext,
    verdict: Verdict,
    outcome: Authorization,
    kind: AuditEntry['kind'],
    started: number,
    tool: ToolDeclaration | undefined,
  ): AuditEntry {
    const entry: AuditEntry = {
      v: AUDIT_SCHEMA_VERSION,
      kind,
      time: isoTime(),
      session: context?.sessionId ?? '',
      chat: context?.chatId ?? null,
      run: context?.runId ?? null,
      caller: context?.caller ?? null,
      call_id: String(call?.callId ?? ''),
      tool: String(call?.tool ?? ''),
      // A decision record shows what will run: the person's edit, if any.
      args: auditableArgs(kind === 'decision' ? outcome.args : call?.args, policy.redact.keys),
      verdict: verdict.kind,
      // The decision record follows an ask; its verdict record says only "ask".
      decision: kind === 'verdict' && verdict.kind === 'ask' ? 'ask' : outcome.decision,
      source: outcome.source,
      rule: outcome.rule,
      reason: outcome.reason,
      latency_ms: Math.round((clock.now() - started) * 1000) / 1000,
    };
    // Set, not spread in: one object per record (the key order is the same).
    if (typeof tool?.server === 'string') entry.server = tool.server;
    if (typeof tool?.identity === 'string') entry.identity = tool.identity;
    if (kind === 'decision' && outcome.approver !== undefined) entry.approver = outcome.approver;
    const ruleAt = outcome.rule === null ? undefined : policy.ruleAt?.(outcome.rule);
    if (ruleAt !== undefined) entry.rule_at = ruleAt;
    return entry;
  }

  function auditFailure(call: ToolCall, verdict: Verdict, outcome: Authorization, error: unknown): Authorization {
    const reason = `the audit log could not record this call (${errorMessage(error)}); denied to fail closed`;
    return { decision: verdict.kind === 'block' ? 'block' : 'denied', source: 'policy', rule: outcome.rule, reason, args: call?.args, stop: false, trace: verdict.trace };
  }

  function observe(call: ToolCall, known: boolean, verdict: Verdict['kind'], authorization: Authorization, dangerous: boolean, started: number): void {
    if (options.observer === undefined) return;
    try {
      options.observer.authorized({ call, known, verdict, authorization, dangerous, durationMs: clock.now() - started });
    } catch {
      // Metrics must never change a decision.
    }
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
        const tool = typeof call?.tool === 'string' ? registry.get(call.tool) : undefined;
        const verdict = evaluator.evaluate(call, context, tool);
        return verdict instanceof Promise ? verdict.then(publicVerdict) : Promise.resolve(publicVerdict(verdict));
      } catch (error) {
        return Promise.reject(error);
      }
    },
    authorize: authorizeOnce,
    authorizeAll: async (calls, context, authorizeOptions) => {
      try {
        return await authorizeAll(calls, context, authorizeOptions);
      } catch (error) {
        const reason = `the approval path failed (${errorMessage(error)}); denied to fail closed`;
        return calls.map((call) => ({ decision: 'denied', source: 'policy', rule: null, reason, args: call?.args, stop: false, trace: [] }));
      }
    },
    isVisible: (name, aliases) => !evaluator.isHidden(name, aliases ?? registry.get(name)?.aliases ?? []),
    register: (tool) => learn(tool),
    unregister: (name) => void registry.delete(name),
    tool: (name) => registry.get(name),
    alwaysChoices: (call, request) => alwaysChoices(registry.get(call.tool), call, request),
  };
  soonPaths.set(gate, { authorize: authorizeOnce, decideSoon });
  return gate;

  /** What any error inside the approval path comes to: a denial that says so. */
  function failedClosed(call: ToolCall, error: unknown): Authorization {
    const reason = `the approval path failed (${errorMessage(error)}); denied to fail closed`;
    return { decision: 'denied', source: 'policy', rule: null, reason, args: call?.args, stop: false, trace: [{ rule: 'gate', decision: 'block', reason }] };
  }

  function verdictOutcome(verdict: Verdict, call: ToolCall): Authorization {
    const outcome: Authorization = {
      decision: verdict.kind === 'allow' ? 'allow' : verdict.kind === 'block' ? 'block' : 'ask',
      source: 'policy',
      rule: verdict.rule,
      reason: verdict.reason,
      args: call?.args,
      stop: false,
      trace: verdict.trace,
    };
    // Set, not spread in: the allow path (every automatic call) builds one object.
    if (verdict.kind === 'ask') outcome.request = verdict.request;
    return outcome;
  }

  async function askPerson(
    request: ApprovalRequest,
    ask: (signal: AbortSignal) => Promise<ApprovalDecision>,
    outer: AbortSignal | undefined,
  ): Promise<Answer> {
    return askWithTimeout({ ask, timeoutMs: policy.approvalTimeoutMs, signal: outer, tool: request.tool });
  }
}

/** Whether two values have one fingerprint (false when either has none). */
function fingerprintsEqual(left: unknown, right: unknown): boolean {
  const print = safeFingerprint(left);
  return print !== undefined && print === safeFingerprint(right);
}

function safeFingerprint(value: unknown): string | undefined {
  try {
    return fingerprint(value);
  } catch {
    return undefined;
  }
}

/**
 * The arguments as the audit log stores them: redacted, and always JSON. A
 * value JSON cannot hold (a cycle, a BigInt) is recorded as a description
 * rather than failing the record, which would deny the call.
 */
function auditableArgs(args: unknown, keys: ReadonlySet<string>): unknown {
  const redacted = redact(args, keys);
  try {
    const text = JSON.stringify(redacted);
    return text === undefined ? null : redacted;
  } catch (error) {
    return `[arguments not representable as JSON: ${errorMessage(error)}]`;
  }
}

/** A verdict as callers see it: the evaluator's internal `dangerous` flag left out (built field by field: cheaper than a rest spread). */
function publicVerdict(verdict: EvaluatedVerdict): Verdict {
  const { rule, reason, trace } = verdict;
  return verdict.kind === 'ask' ? { kind: 'ask', request: verdict.request, rule, reason, trace } : { kind: verdict.kind, rule, reason, trace };
}
