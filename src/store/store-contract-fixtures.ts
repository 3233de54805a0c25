/**
 * The records the store contract writes (`store-contract.ts`), and what a
 * store's test hands the contract.
 */
import type { NewApproval, NewEvent, NewRun, StoredDecision, StoredEvent, ToolgateStore } from './store.ts';

/** What a store's test gives the contract for each test: a fresh, empty store. */
export interface StoreContractHandle {
  store: ToolgateStore;
  /** Opens the same data again; the contract closes `store` (and earlier reopened ones) first. */
  reopen(): Promise<ToolgateStore>;
  /** Closes whatever is still open and removes the data. */
  cleanup(): Promise<void>;
}

export type OpenStoreForContract = () => Promise<StoreContractHandle>;

/**
 * A run as `createRun` takes it; `overrides` change any field.
 *
 * @example
 * await store.createRun(newRun('run-1', { owner: 'carol' }), []);
 */
export function newRun(runId: string, overrides: Partial<NewRun> = {}): NewRun {
  return {
    runId,
    owner: 'alice',
    status: 'running',
    mode: 'interactive',
    sessionId: 'session-1',
    chatId: 'chat-1',
    model: 'script:demo',
    input: `task of ${runId}`,
    state: `{"sealed":"${runId}"}`,
    ...overrides,
  };
}

/**
 * An event of `runId` whose data names the run, as `GET /events` needs.
 *
 * @example
 * await store.appendEvents([newEvent('run-1', 'run_paused')]);
 */
export function newEvent(runId: string, type: string, data: Record<string, unknown> = {}, owner = 'alice'): NewEvent {
  return { runId, owner, type, data: { run_id: runId, ...data } };
}

/**
 * A pending write_file call of `runId`.
 *
 * @example
 * await store.updateRun('run-1', 1, { status: 'paused_checkpoint' }, { approvals: [newApproval('run-1', 'call-1')] });
 */
export function newApproval(runId: string, toolCallId: string, overrides: Partial<NewApproval> = {}): NewApproval {
  return {
    runId,
    toolCallId,
    owner: 'alice',
    tool: 'write_file',
    groupId: null,
    request: { tool_call_id: toolCallId, tool_name: 'write_file', tool_arguments: { path: 'a.txt', content: 'x' } },
    ...overrides,
  };
}

/**
 * A person's decision (approved once by bob unless `overrides` say otherwise).
 *
 * @example
 * await decideOne(store, 'run-1', 'call-1', decision({ approved: false, reason: 'no' }));
 */
export function decision(overrides: Partial<StoredDecision> = {}): StoredDecision {
  return { approved: true, reason: null, scope: 'once', decidedBy: 'bob', decidedAt: '2026-11-24T10:00:00.000Z', ...overrides };
}


/**
 * Decides one call (no resume): whether it was decided by this decision, and its stored events.
 *
 * @example
 * expect(await decideOne(store, 'run-1', 'call-1', decision())).toMatchObject({ decided: true });
 */
export async function decideOne(store: ToolgateStore, runId: string, toolCallId: string, made: StoredDecision, events: readonly NewEvent[] = []): Promise<{ decided: boolean; events: StoredEvent[] }> {
  const result = await store.decideApprovals(runId, [{ toolCallId, events }], made);
  return { decided: result.decided.length === 1, events: result.events };
}
