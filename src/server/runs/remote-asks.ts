/**
 * `POST /asks`: a call that another gate judged (the MCP gateway with
 * `--approver server`) put to a person in the server's inbox. The asker's
 * policy decided to ask and its gate runs the call; the server shows the
 * request, records who decided what, and answers the decision. The call
 * waits as a run of its own (model `ask:<caller>`, one pending call), as an
 * agent host's call does (`host-approvals.ts`).
 *
 * A request waits for the decision up to `budgetMs`, then answers
 * `pending`: the asker asks again with the same id (the same run) until it
 * stops waiting, and then cancels the run.
 */
import { createHash } from 'node:crypto';
import type { PendingApproval } from '../../adapters/ai-sdk/pending-approvals.ts';
import type { ApprovalDecision } from '../../core/types.ts';
import type { AskBody } from '../http/request-schemas.ts';
import { ApiError, type Principal } from '../run-service.ts';
import { createWaitingRun, settledRun, personDecision } from './host-approvals.ts';
import { ASK_HOST_PREFIX, isAskEnvelope, openEnvelope, type ServerRuntime } from './server-runtime.ts';

/** What `POST /asks` answers. */
export type AskAnswer =
  | { status: 'pending'; run_id: string }
  | { status: 'decided'; run_id: string; decision: ApprovalDecision }
  | { status: 'ended'; run_id: string; run_status: string; reason: string };

/**
 * @example
 * const answer = await answerAsk({ runtime, principal, body, budgetMs: 60_000 });
 * // { status: 'decided', run_id: 'run_ask_…', decision: { approved: true, scope: 'once', by: 'alice' } }
 */
export async function answerAsk(options: { runtime: ServerRuntime; principal: Principal; body: AskBody; budgetMs: number }): Promise<AskAnswer> {
  const { runtime, principal, body } = options;
  // The asker's id under its token: another token's id can never name this run.
  const runId = `run_ask_${createHash('sha256').update(JSON.stringify([principal.name, body.id])).digest('hex').slice(0, 32)}`;
  const deadline = Date.now() + options.budgetMs;
  const fingerprint = createHash('sha256').update(JSON.stringify([body.tool, body.args ?? null])).digest('hex');
  const existing = await runtime.store.getRun(runId);
  // The same id is the same call: one that names other arguments is refused, never answered with that call's decision.
  if (existing !== undefined && askedCall(runtime, existing.state) !== fingerprint) {
    throw new ApiError(409, `ask ${body.id} was made for another call (another tool or other arguments): give each call its own id`, { field: 'id' });
  }
  if (existing === undefined) await refuseTooManyWaiting(runtime, principal);
  const run = existing ?? (await createAskRun({ runtime, principal, body, runId, fingerprint }));
  const settled = await settledRun(runtime, run, deadline);
  if (settled.status === 'paused_checkpoint' || settled.status === 'running') return { status: 'pending', run_id: runId };
  if (settled.status !== 'completed') return { status: 'ended', run_id: runId, run_status: settled.status, reason: settled.error ?? `the run was ${settled.status}` };
  // The asker runs the call: arguments a person edited are its to run (its gate judges them again).
  return { status: 'decided', run_id: runId, decision: await personDecision(runtime, runId, { edits: 'allowed' }) };
}

/** How many asks of one token may wait at once: an inbox flooded by one asker hides everyone else's calls. */
export const MAX_WAITING_ASKS = 100;

async function refuseTooManyWaiting(runtime: ServerRuntime, principal: Principal): Promise<void> {
  const waiting = await runtime.store.listRuns({ owner: principal.name, status: 'paused_checkpoint', limit: 1000 });
  const asks = waiting.runs.filter((run) => run.runId.startsWith('run_ask_')).length;
  if (asks >= MAX_WAITING_ASKS) {
    throw new ApiError(429, `${asks} asks of token ${JSON.stringify(principal.name)} are waiting for a person already (at most ${MAX_WAITING_ASKS}): wait for them to be decided, or cancel those nobody waits for`);
  }
}

/** The call an ask's run was made for (its tool and arguments, hashed), or undefined when the run is not an ask. */
function askedCall(runtime: ServerRuntime, sealed: string | null): string | undefined {
  if (sealed === null) return undefined;
  const envelope = openEnvelope(runtime, sealed);
  return isAskEnvelope(envelope) ? envelope.fingerprint : undefined;
}

async function createAskRun(options: { runtime: ServerRuntime; principal: Principal; body: AskBody; runId: string; fingerprint: string }) {
  const { body } = options;
  const where = `${body.caller}, session ${body.session_id}`;
  const asker = [`Asked by ${where} (through ${options.principal.name}'s token); it runs there once approved`];
  const pending: PendingApproval = {
    approvalId: 'ask',
    toolCallId: 'call',
    tool: body.tool,
    args: body.args,
    description: `${body.description} — asked by ${where}`,
    payload: body.payload ?? body.args,
    required: body.required ?? true,
    reason: body.reason,
    ...(body.presentation === undefined ? {} : { presentation: { ...body.presentation, metadata: { ...body.presentation.metadata, asker } } }),
    ...(body.asked_by === undefined ? {} : { askedBy: body.asked_by }),
    ...(body.always_scopes === undefined || body.always_scopes.length === 0 ? {} : { alwaysScopes: body.always_scopes }),
  };
  return createWaitingRun({
    runtime: options.runtime,
    run: { runId: options.runId, owner: options.principal.name, sessionId: `ask:${body.session_id}`, model: `ask:${body.caller}`, input: `${where}: ${body.tool}` },
    envelope: { v: 1, kind: 'hook', host: `${ASK_HOST_PREFIX}${body.caller}`, fingerprint: options.fingerprint, args: body.args ?? null },
    pending,
    gateContext: { sessionId: `ask:${body.session_id}`, caller: body.caller },
    ...(body.times_out_at === undefined ? {} : { timesOutAt: body.times_out_at }),
  });
}
