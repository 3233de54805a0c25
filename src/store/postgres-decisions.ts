/**
 * Deciding a run's approvals on PostgreSQL: deciders of one run take turns
 * (the run is locked first), each call is decided once, and the decider
 * that leaves nothing undecided claims the run for resuming, in the same
 * transaction.
 */
import type { PostgresConnection } from './postgres-connection.ts';
import { stagedEvents } from './postgres-event-commit.ts';
import type { PostgresGroupCommit } from './postgres-group-commit.ts';
import { moveRun } from './postgres-runs.ts';
import { runFromRow } from './sqlite-rows.ts';
import { decidedCalls, eventTexts, jsonObjectText, storedEvents } from './store-records.ts';
import type { DecideResult, ToolgateStore } from './store.ts';

/**
 * The store's `decideApprovals`, on one connection and group commit.
 *
 * @example
 * const decideApprovals = postgresDecideApprovals(db, commits);
 * const { decided, waiting, resumed } = await decideApprovals(runId, calls, decision, resume);
 */
export function postgresDecideApprovals(db: PostgresConnection, commits: PostgresGroupCommit): ToolgateStore['decideApprovals'] {
  const { now, instance } = db;
  return async (runId, calls, decision, resume) => {
    const text = jsonObjectText(decision, `decision on ${calls.map((call) => call.toolCallId).join(', ')}`);
    const callTexts = calls.map((call) => ({ toolCallId: call.toolCallId, events: eventTexts(call.events ?? []) }));
    const resumeTexts = resume === undefined ? undefined : eventTexts(resume.events);
    const at = now();
    return commits.write(runId, async (client) => {
      // Deciders of one run take turns: the last one sees every other decision and can claim the run.
      const locked = (await client.query('SELECT 1 FROM runs WHERE run_id = $1 FOR NO KEY UPDATE', [runId])).rowCount === 1;
      // The calls decided now, and those still waiting: what was undecided before this statement, less what it decided
      // (a statement does not see its own changes). Taken after the lock, it sees every earlier decider's.
      const outcome = (
        await client.query<{ decided: string[]; waiting: string[] }>(
          `WITH decided AS (
             UPDATE approvals SET decision = $1 WHERE run_id = $2 AND tool_call_id = ANY($3::text[]) AND decision IS NULL RETURNING tool_call_id
           )
           SELECT (SELECT coalesce(array_agg(tool_call_id), '{}') FROM decided) AS decided,
                  (SELECT coalesce(array_agg(tool_call_id ORDER BY seq), '{}') FROM approvals
                    WHERE run_id = $2 AND decision IS NULL AND tool_call_id NOT IN (SELECT tool_call_id FROM decided)) AS waiting`,
          [text, runId, callTexts.map((call) => call.toolCallId)],
        )
      ).rows[0]!;
      // In the order named, each once (a call named twice is decided once: the decision then does not stand on every call named).
      const firsts = decidedCalls(callTexts, outcome.decided);
      const decided = firsts.map((call) => call.toolCallId);
      const { waiting } = outcome;
      // The claim: only when this decision stands on every call named and nothing is left to decide.
      const claimed = resume !== undefined && decided.length === calls.length && waiting.length === 0 ? await moveRun(client, { runId, revision: resume.revision, change: { status: 'running' }, at, instance }) : undefined;
      const decidedEvents = firsts.flatMap((call) => call.events);
      const claimEvents = claimed === undefined ? [] : resumeTexts!;
      return {
        events: stagedEvents([...decidedEvents, ...claimEvents], at),
        // Locked first thing (when it exists; when it does not, its events are checked and refused).
        ...(locked ? { runs: [runId] } : {}),
        result: (ids) => {
          const result: DecideResult = { decided, waiting, events: storedEvents(decidedEvents, ids.slice(0, decidedEvents.length), at) };
          if (claimed !== undefined) result.resumed = { run: runFromRow(claimed), events: storedEvents(claimEvents, ids.slice(decidedEvents.length), at) };
          return result;
        },
      };
    });
   };
}
