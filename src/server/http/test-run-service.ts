/**
 * A minimal RunService for the HTTP layer's tests: it keeps runs and events
 * in a real store and applies the visibility rules (a submitter sees its own
 * runs, approvers and admins all), so the tests can check routing,
 * validation, authentication and SSE without the agent loop. Test code only.
 */
import { maySeeRun, summaryView } from '../runs/run-views.ts';
import { ApiError, type ApproveResult, type Principal, type RunService, type RunSummaryView, type RunView } from '../run-service.ts';
import type { NewEvent, StoredEvent, StoredRun, ToolgateStore } from '../../store/store.ts';

export interface TestRunService extends RunService {
  /** Appends events to a run as the agent loop would, and tells the listeners. */
  addEvents(runId: string, events: ReadonlyArray<{ type: string; data?: Record<string, unknown> }>): Promise<StoredEvent[]>;
  /** Moves a run to `paused_checkpoint` with a pending approval. */
  pause(runId: string): Promise<void>;
  /** How many `onEvents` listeners are subscribed right now. */
  listenerCount(): number;
  /** Every call the routes made, for checking the mapping. */
  calls: Array<{ method: string; principal: Principal; args: unknown[] }>;
  /** Makes the next call of `method` throw `error`. */
  failNext(method: string, error: Error): void;
}

const NOT_FOUND = 'run not found or not active';

export function createTestRunService(options: { store: ToolgateStore }): TestRunService {
  const { store } = options;
  const listeners = new Set<() => void>();
  const failures = new Map<string, Error>();
  const calls: TestRunService['calls'] = [];
  let counter = 0;

  const notify = () => {
    for (const listener of [...listeners]) listener();
  };
  const record = (method: string, principal: Principal, args: unknown[]) => {
    calls.push({ method, principal, args });
    const failure = failures.get(method);
    if (failure !== undefined) {
      failures.delete(method);
      throw failure;
    }
  };
  const visibleRun = async (principal: Principal, runId: string): Promise<StoredRun> => {
    const run = await store.getRun(runId);
    if (run === undefined || !maySeeRun(principal, run)) throw new ApiError(404, NOT_FOUND);
    return run;
  };
  const summary = (run: StoredRun): RunSummaryView => summaryView(run, 0);
  const change = async (run: StoredRun, status: StoredRun['status'], events: NewEvent[]) => {
    const updated = await store.updateRun(run.runId, run.revision, { status }, { events, dropApprovals: status !== 'paused_checkpoint' });
    if (updated === undefined) throw new Error('the run moved under the test service');
    notify();
    return updated.run;
  };

  const service: TestRunService = {
    calls,
    async startRun(principal, input) {
      record('startRun', principal, [input]);
      counter += 1;
      const runId = `run-${counter}-${Math.random().toString(36).slice(2, 8)}`;
      const { run } = await store.createRun(
        { runId, owner: principal.name, status: 'running', mode: input.mode ?? 'interactive', sessionId: input.session_id ?? 'default', chatId: input.chat_id ?? null, model: input.model ?? 'script:test', input: input.input, state: '{}' },
        [{ runId, owner: principal.name, type: 'run_started', data: { input: input.input } }],
      );
      notify();
      return { run_id: run.runId, status: run.status };
    },
    async listRuns(principal, query) {
      record('listRuns', principal, [query]);
      const result = await store.listRuns({ ...query, ...(principal.role === 'submitter' ? { owner: principal.name } : {}) });
      return { runs: result.runs.map(summary), next: result.next };
    },
    async getRun(principal, runId) {
      record('getRun', principal, [runId]);
      const run = await visibleRun(principal, runId);
      const view: RunView = { ...summary(run), pending_approvals: [], decisions: [] };
      return view;
    },
    async approve(principal, runId, input): Promise<ApproveResult> {
      record('approve', principal, [runId, input]);
      const run = await visibleRun(principal, runId);
      if (run.status !== 'paused_checkpoint') throw new ApiError(400, `run is not paused for approval, current status: ${run.status}`, { current_status: run.status });
      const status = input.approved ? 'running' : 'cancelled';
      await change(run, status, [{ runId, owner: run.owner, type: input.approved ? 'run_resumed' : 'run_cancelled', data: { reason: input.approved ? 'tool_approved' : 'tool_execution_denied' } }]);
      return input.approved
        ? { status: 'approved', message: 'Tool execution approved and resumed', decided: ['call-1'], waiting: [], run_status: status }
        : { status: 'denied', message: 'Tool execution denied and run cancelled', decided: ['call-1'], waiting: [], run_status: status };
    },
    async cancel(principal, runId) {
      record('cancel', principal, [runId]);
      const run = await visibleRun(principal, runId);
      if (run.status === 'completed' || run.status === 'cancelled' || run.status === 'failed') throw new ApiError(400, `run is not active, current status: ${run.status}`);
      await change(run, 'cancelled', [{ runId, owner: run.owner, type: 'run_cancelled', data: { reason: 'cancelled' } }]);
      return { status: 'cancelled', message: 'run cancelled' };
    },
    async pendingApprovals(principal) {
      record('pendingApprovals', principal, []);
      const approvals = await store.listApprovals({});
      return approvals.map((approval) => ({ ...approval.request, run_id: approval.runId, tool_call_id: approval.toolCallId, tool_name: approval.tool, group_id: approval.groupId }));
    },
    async *pendingApprovalPages(principal, pageSize) {
      record('pendingApprovalPages', principal, [pageSize]);
      const approvals = await service.pendingApprovals(principal);
      calls.pop();
      for (let start = 0; start < approvals.length; start += pageSize) yield approvals.slice(start, start + pageSize).map((view) => JSON.stringify(view));
    },
    async clearChat(principal, sessionId, chatId) {
      record('clearChat', principal, [sessionId, chatId]);
      return { cleared: await store.forgetChat(sessionId, chatId) };
    },
    async readEvents(principal, query) {
      record('readEvents', principal, [query]);
      if (query.runId !== undefined) await visibleRun(principal, query.runId);
      return store.readEvents({ ...query, ...(principal.role === 'submitter' ? { owner: principal.name } : {}) });
    },
    onEvents(listener) {
      const wrapped = () => listener();
      listeners.add(wrapped);
      return () => listeners.delete(wrapped);
    },
    maySee: (principal, event) => maySeeRun(principal, event),
    async metrics() {
      return '# HELP tool_consent_required_total Calls that waited for a person.\n# TYPE tool_consent_required_total counter\ntool_consent_required_total 0\n';
    },
    async close() {},
    async addEvents(runId, events) {
      const run = await store.getRun(runId);
      if (run === undefined) throw new Error(`no run ${runId}`);
      const stored = await store.appendEvents(events.map((event) => ({ runId, owner: run.owner, type: event.type, data: event.data ?? {} })));
      notify();
      return stored;
    },
    async pause(runId) {
      const run = await store.getRun(runId);
      if (run === undefined) throw new Error(`no run ${runId}`);
      const request = { tool_call_id: 'call-1', tool_name: 'write_file', reason: 'writes a file', prompt: "Do you approve executing 'write_file'?", tool_arguments: '{}', approval_required: true };
      const updated = await store.updateRun(runId, run.revision, { status: 'paused_checkpoint' }, {
        events: [
          { runId, owner: run.owner, type: 'checkpoint_required', data: request },
          { runId, owner: run.owner, type: 'run_paused', data: { reason: 'tool_approval_required', tool_name: 'write_file' } },
        ],
        approvals: [{ runId, toolCallId: 'call-1', owner: run.owner, tool: 'write_file', groupId: null, request }],
      });
      if (updated === undefined) throw new Error('the run moved under the test service');
      notify();
    },
    listenerCount: () => listeners.size,
    failNext(method, error) {
      failures.set(method, error);
    },
  };
  return service;
}
