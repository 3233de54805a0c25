/**
 * Drives one run of the server from where it stands to its next stop: a
 * pause on approvals (stored with its signed state), completion, a denial
 * that cancels it, or failure. Calls go through the gate in deferred mode,
 * every execution through the store's ledger (at most once), and every step
 * becomes events.
 */
import { generateText, stepCountIs, type ModelMessage, type StepResult, type ToolSet } from 'ai';
import type { CallLedger } from '../../adapters/ai-sdk/call-ledger.ts';
import { AiSdkCallInterruptedError } from '../../adapters/ai-sdk/errors/ai-sdk-call-interrupted-error.ts';
import { gateTools } from '../../adapters/ai-sdk/gate-tools.ts';
import { resumeRun } from '../../adapters/ai-sdk/resume-run.ts';
import type { RunDecision } from '../../adapters/ai-sdk/run-decision.ts';
import { runOutcome } from '../../adapters/ai-sdk/run-outcome.ts';
import { createRunState, type RunState } from '../../adapters/ai-sdk/run-state.ts';
import { redactSecretsInText } from '../../core/redact.ts';
import type { NewEvent, StoredApprovalDecision, StoredRun } from '../../store/store.ts';
import { withSpan } from '../tracing.ts';
import { pauseRecords, runEvent, shownArguments, shownOutput, type RunEventContext } from './run-events.ts';
import { ofThisPause, REFUSED_DECISION_REASON, verifiedDecisions } from './pause-decisions.ts';
import { appendEvents, gateContextOf, isAskEnvelope, openEnvelope, sealEnvelope, type RunEnvelope, type ServerRuntime } from './server-runtime.ts';
import { createStepRecorder } from './step-recorder.ts';
import { leftForTakeover } from './left-for-takeover.ts';

/**
 * Where a drive starts: messages to continue from, a paused state and its
 * decisions, or (`decided`) a paused run just claimed: its sealed state and
 * its approvals, opened by the drive itself so that whoever decided is
 * answered first.
 */
export type DriveStart =
  | { kind: 'messages'; messages: ModelMessage[]; journal?: RunJournal }
  | { kind: 'resume'; state: RunState; decisions: RunDecision[]; refused?: StoredApprovalDecision[]; seq: number; journal?: RunJournal }
  | { kind: 'decided'; sealed: string; approvals: StoredApprovalDecision[] };

/**
 * What a recovered drive replays: the steps recorded since the run's last
 * sealed state, the calls the ledger holds (never judged or run again), and
 * what the run's history already tells (`toldKey`), which a replayed step
 * does not tell twice.
 */
export interface RunJournal {
  steps: ReadonlyArray<{ seq: number; body: string }>;
  calls: ReadonlySet<string>;
  /** Calls the history reports denied or blocked, with the reason the model was given. */
  refused: ReadonlyMap<string, string>;
  told: ReadonlySet<string>;
}

/**
 * What an event of a drive tells, as a key: its type and the call or step
 * it is about (`text` events carry their step's `seq`). A replayed step's
 * events whose key the history holds are not appended again.
 *
 * @example
 * toldKey({ type: 'tool_call', data: { tool_call_id: 'tg_1_1' } }); // 'tool_call tg_1_1'
 */
export function toldKey(event: { type: string; data: Record<string, unknown> }): string {
  const about = event.data.tool_call_id ?? (event.data.step === undefined ? '' : `step ${String(event.data.step)}`);
  return `${event.type} ${String(about)}`;
}

/** The seq of a run's first model call. */
export const FIRST_STEP = 1;

/**
 * Drives the run (which this process has claimed at `run.revision`) to its
 * next stop and records it. Never throws: a failure fails the run.
 *
 * @example
 * void driveRun(runtime, run, { kind: 'messages', messages: [{ role: 'user', content: run.input }] });
 */
export async function driveRun(runtime: ServerRuntime, run: StoredRun, start: DriveStart): Promise<void> {
  const controller = new AbortController();
  runtime.active.set(run.runId, controller);
  const context: RunEventContext = { run, policy: runtime.policy };
  await runtime.slots.acquire();
  try {
    // Waiting for the slot, the run may have been cancelled (or the server be stopping): then it is not driven.
    if (controller.signal.aborted) return;
    const current = await runtime.store.getRun(run.runId);
    if (current === undefined || current.revision !== run.revision || current.status !== 'running') return;
    await withSpan('toolgate.run', { 'toolgate.run_id': run.runId, 'toolgate.mode': run.mode, 'toolgate.start': start.kind }, () => drive(runtime, run, start, controller));
  } catch (error) {
    const lost = controller.signal.aborted ? controller.signal.reason : error;
    if (leftForTakeover(runtime, lost)) {
      // Not a failure of the run: this server may no longer write it; its journal lets whoever drives it next go on.
      runtime.logger.warn('stopped driving a run this server can no longer write; it is left to the lease\'s takeover', { run_id: run.runId, error: errorText(lost) });
      return;
    }
    const message = controller.signal.aborted ? 'cancelled' : errorText(error);
    runtime.logger.error('run failed', { run_id: run.runId, error: message });
    if (!controller.signal.aborted) {
      await finishRun(runtime, run, { status: 'failed', error: message }, [runEvent(context, 'run_failed', { status: 'failed', error: message })]).catch((failure: unknown) => {
        runtime.logger.error('could not record a failed run', { run_id: run.runId, error: errorText(failure) });
      });
    }
  } finally {
    runtime.slots.release();
    // Only its own mark: a drive that began after this one paused (an approval that came fast) has marked the run since.
    if (runtime.active.get(run.runId) === controller) runtime.active.delete(run.runId);
  }
}

async function drive(runtime: ServerRuntime, run: StoredRun, from: DriveStart, controller: AbortController): Promise<void> {
  const { signal } = controller;
  const opened = from.kind === 'decided' ? openDecided(runtime, run, from) : from;
  if (opened.kind === 'hook') return finishHookRun(runtime, run, opened.approvals, opened.asker);
  const start = opened;
  const context: RunEventContext = { run, policy: runtime.policy };
  const gateContext = gateContextOf(run);
  // What the history already tells (a recovered drive replays steps whose events may have been appended before the crash), and what this drive told early.
  const told = new Set<string>(start.journal?.told ?? []);
  const tell = (events: NewEvent[]) => appendEvents(runtime, events.filter((event) => !told.has(toldKey(event))));
  // Calls whose tool_call event was sent: at their start, or (paused calls) before the pause, or before a crash.
  const shown = new Set<string>(start.kind === 'resume' ? start.state.pending.map((pending) => pending.toolCallId) : []);
  for (const key of told) if (key.startsWith('tool_call ')) shown.add(key.slice('tool_call '.length));
  const gate = runtime.gateFor(run.mode);
  const model = runtime.models.get(run.model);
  if (model === undefined) throw new Error(`the model ${JSON.stringify(run.model)} is no longer one this server offers`);
  // Every answer recorded before its calls run; a recovered drive gets the recorded ones back instead of asking the model.
  const recorder = createStepRecorder({
    model,
    store: runtime.store,
    sealer: runtime.sealer,
    runId: run.runId,
    fromSeq: start.kind === 'resume' ? start.seq : FIRST_STEP,
    recorded: start.journal?.steps ?? [],
  });
  const gated = gateTools({
    tools: runtime.tools,
    gate,
    context: gateContext,
    resolve: 'deferred',
    secret: runtime.secret,
    ledger: reportingLedger({ runtime, context, shown, told, journal: start.journal, modelIdOf: recorder.modelIdOf, controller }),
    stopWhen: stepCountIs(runtime.maxSteps),
  });
  let messages: ModelMessage[];
  if (start.kind === 'resume') {
    if (start.refused !== undefined && start.refused.length > 0) {
      // Refused, logged and in the run's history: a decision nobody with the server's secret made.
      runtime.logger.error('refused decisions that do not verify', { run_id: run.runId, tool_call_ids: start.refused.map((approval) => approval.toolCallId) });
      await tell(
        start.refused.map((approval) => runEvent(context, 'decision_refused', { tool_call_id: approval.toolCallId, tool_name: approval.tool, reason: REFUSED_DECISION_REASON, claimed_decided_by: approval.decision?.decidedBy ?? null })),
      );
    }
    const resumed = await resumeRun({ gated, state: start.state, decisions: start.decisions, signal });
    // A denial, a timeout or a blocked edit: the call does not run, and the run's events say so.
    await tell(
      resumed.decided
        .filter((call) => call.authorization.decision !== 'approved' && call.authorization.decision !== 'allow')
        .map((call) =>
          runEvent(context, 'tool_result', {
            tool_call_id: call.toolCallId,
            tool_name: call.tool,
            outcome: call.authorization.decision === 'block' ? 'blocked' : 'denied',
            reason: redactSecretsInText({ text: call.authorization.reason, value: call.authorization.args, keys: runtime.policy.redact.keys }),
          }),
        ),
    );
    if (resumed.stoppedBy !== undefined) {
      const reason = `tool_execution_denied: ${resumed.stoppedBy.tool} was denied (${resumed.stoppedBy.reason})`;
      await finishRun(runtime, run, { status: 'cancelled', error: reason }, [
        runEvent(context, 'run_cancelled', { reason: 'tool_execution_denied', status: 'cancelled', tool_name: resumed.stoppedBy.tool, detail: resumed.stoppedBy.reason }),
      ]);
      return;
    }
    messages = resumed.messages;
  } else {
    messages = start.messages;
  }
  const result = await generateText({
    model: recorder.model,
    system: runtime.system,
    messages,
    ...gated,
    abortSignal: signal,
    onStepFinish: async (step) => {
      // The step just answered is the last one the recorder numbered.
      await tell(stepEvents(context, step, recorder.next() - 1, shown, recorder.modelIdOf));
    },
  });
  const outcome = runOutcome({ gated, content: result.content });
  if (outcome.status === 'awaiting-approval') {
    const state = await createRunState({ gated, messages, result });
    const { approvals, events } = pauseRecords({ context, pending: state.pending, messages: state.messages, gateContext, pauseId: `${run.runId}:step-${result.steps.length}:${run.revision}` });
    const moved = await runtime.store.updateRun(run.runId, run.revision, { status: 'paused_checkpoint', state: sealEnvelope(runtime, { v: 1, kind: 'paused', state, seq: recorder.next() }) }, { events, approvals });
    if (moved === undefined) return reportLostRace(runtime, run);
    runtime.notify();
    return;
  }
  if (outcome.status === 'stopped') {
    const stopped = outcome.stoppedBy!;
    await finishRun(runtime, run, { status: 'cancelled', error: `tool_execution_denied: ${stopped.tool} was denied (${stopped.reason})` }, [
      runEvent(context, 'run_cancelled', { reason: 'tool_execution_denied', status: 'cancelled', tool_name: stopped.tool, detail: stopped.reason }),
    ]);
    return;
  }
  const text = redactSecretsInText({ text: result.text, value: undefined, keys: runtime.policy.redact.keys });
  await finishRun(runtime, run, { status: 'completed', text }, [runEvent(context, 'run_completed', { status: 'completed', text, steps: result.steps.length })]);
}

/**
 * An agent host's call a person decided: nothing runs here (the host runs
 * it, when its hook's retry collects the decision); the run ends, keeping
 * its signed decision for that retry, which verifies it.
 */
async function finishHookRun(runtime: ServerRuntime, run: StoredRun, approvals: StoredApprovalDecision[], asker: 'host' | 'ask'): Promise<void> {
  const { decisions } = verifiedDecisions({ key: runtime.recordKey, runId: run.runId, approvals });
  const approved = decisions.length > 0 && decisions.every((decision) => decision.approved);
  const reason = decisions.find((decision) => decision.reason !== undefined)?.reason;
  const text = approved ? (asker === 'host' ? 'approved: the host runs it at its retry' : 'approved: handed to the gate that asked, which runs it') : `denied${reason === undefined ? '' : `: ${reason}`}`;
  const context: RunEventContext = { run, policy: runtime.policy };
  const moved = await runtime.store.updateRun(run.runId, run.revision, { status: 'completed', text }, { events: [runEvent(context, 'run_completed', { status: 'completed', text })] });
  if (moved === undefined) return reportLostRace(runtime, run);
  runtime.notify();
}

/**
 * A claimed pause as the adapter resumes it, or an agent host's decided call
 * (`kind: 'hook'`, nothing to resume); throws, failing the run, when its
 * state does not open (sealed under another server secret).
 */
function openDecided(
  runtime: ServerRuntime,
  run: StoredRun,
  start: Extract<DriveStart, { kind: 'decided' }>,
): Extract<DriveStart, { kind: 'resume' }> | { kind: 'hook'; approvals: StoredApprovalDecision[]; asker: 'host' | 'ask' } {
  let envelope: RunEnvelope;
  try {
    envelope = openEnvelope(runtime, start.sealed);
  } catch (error) {
    throw new Error(`its stored state could not be opened: ${errorText(error)}`);
  }
  if (envelope.kind === 'hook') return { kind: 'hook', approvals: start.approvals, asker: isAskEnvelope(envelope) ? 'ask' : 'host' };
  if (envelope.kind !== 'paused') throw new Error('its stored state could not be opened: a paused run has no paused state');
  return resumeStart(runtime, run, envelope, start.approvals);
}

/**
 * A pause and its stored decisions as a drive resumes them: each decision
 * checked against its signature, those that do not verify denied.
 *
 * @example
 * void driveRun(runtime, run, resumeStart(runtime, run, envelope, await store.listRunDecisions(run.runId)));
 */
export function resumeStart(
  runtime: ServerRuntime,
  run: StoredRun,
  paused: Extract<RunEnvelope, { kind: 'paused' }>,
  stored: StoredApprovalDecision[],
  journal?: RunJournal,
): Extract<DriveStart, { kind: 'resume' }> {
  const { state } = paused;
  const { decisions, refused } = verifiedDecisions({ key: runtime.recordKey, runId: run.runId, approvals: ofThisPause(stored, state.pending) });
  // A pause from before steps were recorded: its own steps are not toolgate's; counting starts here.
  return { kind: 'resume', state, decisions, refused, seq: paused.seq ?? FIRST_STEP, ...(journal === undefined ? {} : { journal }) };
}

/** Records the run's end, from the revision this process claimed. */
export async function finishRun(
  runtime: ServerRuntime,
  run: StoredRun,
  end: { status: 'completed' | 'cancelled' | 'failed'; text?: string; error?: string },
  events: NewEvent[],
): Promise<void> {
  const moved = await runtime.store.updateRun(run.runId, run.revision, { status: end.status, state: null, text: end.text ?? null, error: end.error ?? null }, { events, dropApprovals: true });
  if (moved === undefined) return reportLostRace(runtime, run);
  runtime.notify();
}

/** Another writer (a cancel) moved the run first: its word stands. */
async function reportLostRace(runtime: ServerRuntime, run: StoredRun): Promise<void> {
  const now = await runtime.store.getRun(run.runId);
  runtime.logger.info('run moved by another writer; its state stands', { run_id: run.runId, status: now?.status ?? 'gone' });
}

/**
 * The ledger, reporting every call's outcome as a `tool_result` event. A
 * write the store refuses because this server lost the run
 * (`leftForTakeover`) stops the whole drive: thrown inside a tool, the AI
 * SDK would hand it to the model as the call's error, and the model would
 * answer a failure that never happened.
 */
function reportingLedger(options: {
  runtime: ServerRuntime;
  context: RunEventContext;
  shown: Set<string>;
  told: Set<string>;
  journal: RunJournal | undefined;
  modelIdOf: (toolCallId: string) => string | undefined;
  controller: AbortController;
}): CallLedger {
  const { runtime, context, shown, told, journal, modelIdOf, controller } = options;
  const stopWhenLost = async <Result>(write: () => Promise<Result>): Promise<Result> => {
    try {
      return await write();
    } catch (error) {
      if (leftForTakeover(runtime, error)) controller.abort(error);
      throw error;
    }
  };
  const ledger: CallLedger = {
    // The refusal's tool_result, at once: its step's events come only when the whole step ends, maybe never.
    async refuse(call) {
      const event = runEvent(context, 'tool_result', { tool_call_id: call.toolCallId, tool_name: call.tool, outcome: call.outcome, reason: redactSecretsInText({ text: call.reason, value: undefined, keys: runtime.policy.redact.keys }) });
      if (told.has(toldKey(event))) return;
      await appendEvents(runtime, [event]);
      told.add(toldKey(event));
    },
    ...(journal === undefined ? {} : { recorded: (toolCallId: string) => journal.calls.has(toolCallId), refused: (toolCallId: string) => journal.refused.get(toolCallId) }),
    async begin(call) {
      if (!shown.has(call.toolCallId)) {
        shown.add(call.toolCallId);
        await appendEvents(runtime, [runEvent(context, 'tool_call', toolCallData(runtime.policy, call.toolCallId, call.tool, call.args, modelIdOf))]);
      }
      const begun = await runtime.ledger.begin(call);
      if (!begun.started && begun.earlier.status === 'executing') {
        // Begun by a process that stopped before it ended: recorded as interrupted, with its tool_result, once
        // (a call that ended, even as failed, has its own already; a second recovery adds nothing).
        const error = new AiSdkCallInterruptedError({ tool: call.tool, toolCallId: call.toolCallId }).message;
        const stored = await runtime.store.finishCall(call.runId, call.toolCallId, 'interrupted', null, [
          runEvent(context, 'tool_result', { tool_call_id: call.toolCallId, tool_name: call.tool, outcome: 'interrupted', error }),
        ]);
        if (stored.length > 0) runtime.notify();
      }
      return begun;
    },
    async finish(call, outcome) {
      const shown = outcome.status === 'completed' ? { outcome: 'ran', output: shownOutput(runtime.policy, outcome.output) } : { outcome: 'failed', error: shownError(runtime, call.args, outcome.output) };
      // One commit: a call that ended has its tool_result, whoever picks the run up after a crash.
      const stored = await runtime.ledger.finishRecording(call, outcome, [runEvent(context, 'tool_result', { tool_call_id: call.toolCallId, tool_name: call.tool, ...shown })]);
      if (stored.length > 0) runtime.notify();
    },
  };
  return {
    ...ledger,
    refuse: async (call) => stopWhenLost(() => ledger.refuse!(call)),
    begin: async (call) => stopWhenLost(() => ledger.begin(call)),
    finish: async (call, outcome) => stopWhenLost(() => ledger.finish(call, outcome)),
  };
}

/** A step as events: the model's text, the calls it made, and the calls the gate refused. */
function stepEvents(context: RunEventContext, step: StepResult<ToolSet>, seq: number, shown: Set<string>, modelIdOf: (toolCallId: string) => string | undefined): NewEvent[] {
  const events: NewEvent[] = [];
  const text = step.text.trim();
  if (text !== '') events.push(runEvent(context, 'text', { text: redactSecretsInText({ text: step.text, value: undefined, keys: context.policy.redact.keys }), step: seq }));
  for (const part of step.content) {
    if (part.type === 'tool-call') {
      if (shown.has(part.toolCallId)) continue;
      shown.add(part.toolCallId);
      events.push(runEvent(context, 'tool_call', toolCallData(context.policy, part.toolCallId, part.toolName, part.input, modelIdOf)));
    } else if (part.type === 'tool-approval-response' && !part.approved) {
      // Refused without a person (a block, a mode, memory): the model is told why.
      events.push(runEvent(context, 'tool_result', { tool_call_id: part.toolCall.toolCallId, tool_name: part.toolCall.toolName, outcome: 'denied', reason: part.reason ?? null }));
    }
  }
  return events;
}

/** A `tool_call` event's data: toolgate's id, and the model's own id where the model gave one. */
function toolCallData(policy: ServerRuntime['policy'], toolCallId: string, tool: string, args: unknown, modelIdOf: (toolCallId: string) => string | undefined): Record<string, unknown> {
  const modelId = modelIdOf(toolCallId);
  return { tool_call_id: toolCallId, tool_name: tool, arguments: shownArguments(policy, args), ...(modelId === undefined ? {} : { model_call_id: modelId }) };
}

function shownError(runtime: ServerRuntime, args: unknown, output: unknown): string {
  return redactSecretsInText({ text: typeof output === 'string' ? output : errorText(output), value: args, keys: runtime.policy.redact.keys });
}

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
