/**
 * The run service's answers to agent hosts and approvers' pages: hooked
 * hosts' calls and recorded decisions, remote asks, which cards others
 * have open, and how much attention people have given.
 */
import { auditInsights, type AuditInsights } from '../../insights/audit-insights.ts';
import { ToolgateError } from '../../core/errors/toolgate-error.ts';
import { answerHostCall, recordHostDecisions } from './host-approvals.ts';
import { answerAsk } from './remote-asks.ts';
import { createApprovalPresence } from './approval-presence.ts';
import { ApiError, type RunService } from '../run-service.ts';
import type { ServerRuntime } from './server-runtime.ts';

/** How long a page's report of the cards it has open holds: it reports every few seconds while it is shown. */
const PRESENCE_TTL_MS = 20_000;

/** The run service's methods for agent hosts and approvers' attention. */
export type HostOperations = Pick<RunService, 'recordHostDecisions' | 'answerAsk' | 'answerHostCall' | 'reportPresence' | 'attention' | 'insights'>;

/**
 * Hooked hosts' calls, presence and attention.
 *
 * @example
 * const { answerHostCall, insights } = hostOperations(runtime);
 */
export function hostOperations(runtime: ServerRuntime): HostOperations {
  const presence = createApprovalPresence({ ttlMs: PRESENCE_TTL_MS });

  return {
    recordHostDecisions(principal, entries) {
      return recordHostDecisions({ runtime, principal, entries });
    },

    answerAsk(principal, body, budgetMs) {
      return answerAsk({ runtime, principal, body, budgetMs });
    },

    answerHostCall(principal, dialect, body, budgetMs) {
      return answerHostCall({ runtime, principal, dialect, body, budgetMs });
    },

    async reportPresence(principal, open) {
      presence.report(principal.name, open);
      return { others: presence.othersThan(principal.name) };
    },

    attention(principal) {
      return { asks_per_hour: runtime.policy.document.attention?.asks_per_hour ?? null, decided_last_hour: runtime.attention.lastHour(principal.name) };
    },

    async insights(principal, query) {
      if (principal.role === 'submitter') throw new ApiError(403, 'the attention page shows everyone\'s decisions: it needs the approver or admin role; this token is a submitter');
      const source = runtime.readAudit;
      if (source === undefined) throw new ApiError(404, 'this server keeps no audit trail (audit.enabled: false in its policy)');
      // Up to now: a record dated in the future (a server with a wrong clock sharing the store) would stretch the page's chart to it.
      const window = { since: query.since, until: Date.now(), budgetPerHour: runtime.policy.document.attention?.asks_per_hour };
      let figures: AuditInsights;
      try {
        figures = await auditInsights({ items: source.items(), ...window });
      } catch (error) {
        // A server that has recorded nothing yet has no log yet: nothing to show, not an error.
        if (!(error instanceof ToolgateError && error.code === 'AUDIT_LOG_INVALID' && (error.cause as NodeJS.ErrnoException | undefined)?.code === 'ENOENT')) throw error;
        figures = await auditInsights({ items: [], ...window });
      }
      return { ...figures, where: source.where };
    },
  };
}
