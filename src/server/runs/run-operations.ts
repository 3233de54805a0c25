/**
 * The run service's runs: starting one (in a mode that approves nothing the
 * policy's mode would not), listing and reading them as the caller may see
 * them, deciding their calls, cancelling them, the calls waiting, and their
 * event stream.
 */
import { randomBytes } from 'node:crypto';
import type { StoredRun } from '../../store/store.ts';
import { isFinished } from '../../store/store.ts';
import { redact } from '../../core/redact.ts';
import { ApiError, type ApproveInput, type Principal, type RunService, type StartRunInput } from '../run-service.ts';
import { withSpan } from '../tracing.ts';
import { approveRun, NOT_FOUND } from './approve-run.ts';
import { driveRun } from './drive-run.ts';
import { runEvent } from './run-events.ts';
import { maySeeRun, pendingView, pendingViewText, runView, summaryView } from './run-views.ts';
import { gateModeOf, sealEnvelope, type ServerRuntime } from './server-runtime.ts';
import type { RunMode } from '../../core/types.ts';

/** The run service's methods for runs. */
export type RunOperations = Pick<RunService, 'startRun' | 'listRuns' | 'getRun' | 'approve' | 'cancel' | 'pendingApprovals' | 'pendingApprovalPages' | 'readEvents' | 'onEvents'>;

/**
 * Runs as the caller may see and move them.
 *
 * @example
 * const { startRun, approve } = runOperations(runtime, listeners);
 */
export function runOperations(runtime: ServerRuntime, listeners: Set<() => void>): RunOperations {
  const { store } = runtime;
  // What a run's mode may not loosen: the policy's mode, and whether it has soft asks (strict approves those).
  const policyMode = runtime.policy.mode ?? 'interactive';
  const softAsks = hasSoftAsks(runtime.policy.document);

  async function visibleRun(principal: Principal, runId: string): Promise<StoredRun> {
    const run = await store.getRun(runId);
    if (run === undefined || !maySeeRun(principal, run)) throw new ApiError(404, NOT_FOUND);
    return run;
  }

  function mustDecide(principal: Principal): void {
    if (principal.role === 'submitter') throw new ApiError(403, 'deciding approvals needs the approver or admin role; this token is a submitter');
  }

  return {
    async startRun(principal, input: StartRunInput) {
      const model = input.model ?? runtime.defaultModel;
      if (model === undefined || runtime.models.size === 0) {
        throw new ApiError(409, `this server runs no agents: it was started without a model, to serve agent hosts' hooks and the inbox only; restart it with --model ID (or TOOLGATE_MODEL, OPENAI_API_KEY, ANTHROPIC_API_KEY) to run them`, { field: 'model' });
      }
      if (!runtime.models.has(model)) {
        throw new ApiError(400, `model ${JSON.stringify(model)} is not offered by this server; choose one of: ${[...runtime.models.keys()].join(', ')}`, { field: 'model' });
      }
      const mode = input.mode ?? 'interactive';
      const overriding = gateModeOf(mode);
      if (overriding !== undefined && loosens(overriding, policyMode, softAsks)) {
        const allowed = ['interactive', 'daemon', ...RUN_MODES.filter((each) => !loosens(each, policyMode, softAsks))];
        throw new ApiError(
          400,
          `mode ${JSON.stringify(mode)} would approve calls that the policy's mode (${policyMode}) sends to a person or denies` +
            `${overriding === 'strict' ? ' (strict approves the asks the policy marks required: false)' : ''}; a run may only choose a mode that approves nothing more: ${[...new Set(allowed)].join(', ')}`,
          { field: 'mode' },
        );
      }
      const runId = `run_${randomBytes(12).toString('base64url')}`;
      const input_ = String(redact(input.input, runtime.policy.redact.keys));
      const run = { runId, owner: principal.name, status: 'running' as const, mode, sessionId: input.session_id ?? `session_${runId}`, chatId: input.chat_id ?? null, model, input: input_ };
      const messages = [{ role: 'user' as const, content: input.input }];
      const created = await withSpan('toolgate.run.start', { 'toolgate.run_id': runId }, () =>
        store.createRun({ ...run, state: sealEnvelope(runtime, { v: 1, kind: 'messages', messages }) }, [
          runEvent({ run, policy: runtime.policy }, 'run_started', { status: 'running', input: input_, mode, model, session_id: run.sessionId, chat_id: run.chatId, owner: principal.name }),
        ]),
      );
      runtime.notify();
      void driveRun(runtime, created.run, { kind: 'messages', messages });
      return { run_id: runId, status: 'running' };
    },

    async listRuns(principal, query) {
      const page = await store.listRuns({ ...(principal.role === 'submitter' ? { owner: principal.name } : {}), ...query });
      // Only a paused run has calls waiting: count those of this page's paused runs, not every pending call in the store.
      const runs = [];
      for (const run of page.runs) runs.push(summaryView(run, run.status === 'paused_checkpoint' ? (await store.listApprovals({ runId: run.runId })).length : 0));
      return { runs, next: page.next };
    },

    async getRun(principal, runId) {
      const run = await visibleRun(principal, runId);
      return runView(run, await store.listApprovals({ runId, includeDecided: true }));
    },

    async approve(principal, runId, input: ApproveInput) {
      const run = await visibleRun(principal, runId);
      mustDecide(principal);
      return withSpan('toolgate.decision', { 'toolgate.run_id': runId, 'toolgate.approved': input.approved }, () => approveRun({ runtime, run, principal, input }));
    },

    async cancel(principal, runId) {
      for (let attempt = 0; attempt < 5; attempt++) {
        const run = await visibleRun(principal, runId);
        if (principal.role === 'submitter' && run.owner !== principal.name) throw new ApiError(404, NOT_FOUND);
        if (isFinished(run.status)) throw new ApiError(400, `run is not active, current status: ${run.status}`, { current_status: run.status });
        const event = runEvent({ run, policy: runtime.policy }, 'run_cancelled', { reason: 'cancelled_by_request', status: 'cancelled', by: principal.name });
        // What was waiting, read before the cancel drops it: the messages sent about it are told the run was cancelled.
        const waiting = runtime.onDecided === undefined || run.status !== 'paused_checkpoint' ? [] : await store.listApprovals({ runId });
        const moved = await store.updateRun(runId, run.revision, { status: 'cancelled', state: null, error: `cancelled by ${principal.name}` }, { events: [event], dropApprovals: true });
        if (moved === undefined) continue;
        runtime.active.get(runId)?.abort(new Error('cancelled'));
        runtime.notify();
        if (waiting.length > 0) void runtime.onDecided?.(waiting.map((approval) => ({ runId, toolCallId: approval.toolCallId, approved: false, decidedBy: principal.name, via: 'cancelled', reason: null })), waiting);
        return { status: 'cancelled' as const, message: 'Run cancelled' };
      }
      throw new ApiError(409, 'the run kept changing while it was being cancelled; try again');
    },

    async pendingApprovals(principal) {
      if (principal.role === 'submitter') return (await store.listApprovals({ owner: principal.name })).map(pendingView);
      return (await store.listApprovals({})).map(pendingView);
    },

    async *pendingApprovalPages(principal, pageSize) {
      let after: string | undefined;
      do {
        const page = await store.listPendingApprovalTexts({ limit: pageSize, ...(principal.role === 'submitter' ? { owner: principal.name } : {}), ...(after === undefined ? {} : { after }) });
        yield page.approvals.map(pendingViewText);
        after = page.next ?? undefined;
      } while (after !== undefined);
    },

    async readEvents(principal, query) {
      if (query.runId !== undefined) {
        await visibleRun(principal, query.runId);
        return store.readEvents({ afterId: query.afterId, runId: query.runId, limit: query.limit });
      }
      if (principal.role === 'submitter') return store.readEvents({ afterId: query.afterId, owner: principal.name, limit: query.limit });
      return store.readEvents({ afterId: query.afterId, limit: query.limit });
    },

    onEvents(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

const RUN_MODES: readonly RunMode[] = ['interactive', 'approve_all', 'strict', 'auto_deny'];

/** What a mode does with a required ask and with a soft one: 0 approves, 1 asks a person, 2 denies (approval-controller.ts). */
const STRICTNESS: Readonly<Record<RunMode, readonly [required: number, soft: number]>> = {
  interactive: [1, 1],
  approve_all: [0, 0],
  strict: [2, 0],
  auto_deny: [2, 2],
};

/** Whether a run's mode would approve an ask that the policy's mode sends to a person or denies. */
function loosens(mode: RunMode, policyMode: RunMode, softAsks: boolean): boolean {
  const [required, soft] = STRICTNESS[mode];
  const [policyRequired, policySoft] = STRICTNESS[policyMode];
  return required < policyRequired || (softAsks && soft < policySoft);
}

/** Whether the policy marks any ask soft (`required: false`): only then does strict approve anything. */
function hasSoftAsks(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(hasSoftAsks);
  if (typeof value !== 'object' || value === null) return false;
  return Object.entries(value).some(([key, entry]) => (key === 'required' && entry === false) || hasSoftAsks(entry));
}

