/**
 * The policy's `approval_timeout` on the server: a call nobody decides in
 * time is denied as "timed out" (recorded as a timeout, never as a person's
 * denial), and the run goes on once nothing else waits.
 */
import type { StoredApproval } from '../../store/store.ts';
import { ApiError } from '../run-service.ts';
import { approveRun } from './approve-run.ts';
import { errorText } from './drive-run.ts';
import type { ServerRuntime } from './server-runtime.ts';

/**
 * Checks pending approvals every `intervalMs` (default: a tenth of the
 * timeout, between 200 ms and 10 s); returns the function that stops it.
 *
 * @example
 * const stop = watchApprovalTimeouts(runtime);
 */
export function watchApprovalTimeouts(runtime: ServerRuntime, options: { intervalMs?: number } = {}): () => void {
  const timeoutMs = runtime.policy.approvalTimeoutMs;
  if (timeoutMs === undefined) return () => {};
  const interval = options.intervalMs ?? Math.min(10_000, Math.max(200, Math.floor(timeoutMs / 10)));
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    void expire(runtime, timeoutMs).finally(() => {
      running = false;
    });
  }, interval);
  timer.unref();
  return () => clearInterval(timer);
}

async function expire(runtime: ServerRuntime, timeoutMs: number): Promise<void> {
  const deadline = Date.now() - timeoutMs;
  // Pending approvals come oldest first: read pages only until the first one still in time.
  const expired: StoredApproval[] = [];
  let after: string | undefined;
  pages: do {
    const page = await runtime.store.listPendingApprovals({ limit: 200, ...(after === undefined ? {} : { after }) });
    for (const approval of page.approvals) {
      if (Date.parse(approval.createdAt) > deadline) break pages;
      expired.push(approval);
    }
    after = page.next ?? undefined;
  } while (after !== undefined);
  for (const approval of expired) {
    const run = await runtime.store.getRun(approval.runId);
    if (run === undefined) continue;
    try {
      await approveRun({
        runtime,
        run,
        principal: { name: 'timeout', role: 'admin' },
        input: { approved: false, tool_call_id: approval.toolCallId, reason: `timed out: nobody decided within ${Math.round(timeoutMs / 1000)} s` },
        timedOut: true,
      });
    } catch (error) {
      // Decided meanwhile, or the run moved on: nothing to time out.
      if (!(error instanceof ApiError)) runtime.logger.error('could not time out an approval', { run_id: approval.runId, tool_call_id: approval.toolCallId, error: errorText(error) });
    }
  }
}
