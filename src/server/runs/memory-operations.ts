/**
 * The run service's remembered decisions: session approvals (listed with
 * who decided and when, forgotten one by one or a chat at a time) and
 * "approve always" records (listed and revoked).
 */
import { ApiError, type RunService, type SessionApprovalView } from '../run-service.ts';
import { scopedSession, type ServerRuntime } from './server-runtime.ts';
import { unscopeSession } from '../../core/scoped-session.ts';

/** The run service's methods for remembered decisions. */
export type MemoryOperations = Pick<RunService, 'listSessionApprovals' | 'forgetSessionApproval' | 'listAlways' | 'revokeAlways' | 'clearChat'>;

/**
 * Session approvals and "approve always" records.
 *
 * @example
 * const { listSessionApprovals, revokeAlways } = memoryOperations(runtime);
 */
export function memoryOperations(runtime: ServerRuntime): MemoryOperations {
  return {
    async listSessionApprovals() {
      const approvals = runtime.memory.list().map((entry): SessionApprovalView => {
        const scoped = unscopeSession(entry.sessionId);
        return {
          id: entry.id,
          owner: scoped?.owner ?? null,
          session_id: scoped?.sessionId ?? entry.sessionId,
          chat_id: entry.chatId,
          approved: entry.approved,
          reason: entry.reason ?? null,
          tool: entry.shown?.tool ?? null,
          description: entry.shown?.description ?? null,
          decided_at: entry.shown?.at ?? null,
          decided_by: entry.shown?.by ?? null,
        };
      });
      // Newest first; those from before decisions were shown (no time) last.
      approvals.sort((a, b) => (b.decided_at ?? '').localeCompare(a.decided_at ?? ''));
      return { approvals };
    },

    async forgetSessionApproval(_principal, id) {
      if (!/^[0-9a-f]{16}$/.test(id)) throw new ApiError(400, `session approval id ${JSON.stringify(id.slice(0, 80))}: expected the 16 hex digits of an id from GET /approvals/session`, { field: 'id', expected: 'a session approval id' });
      if (!(await runtime.memory.forget(id))) throw new ApiError(404, `no session approval has the id ${id}`);
      return { forgotten: id };
    },

    async listAlways() {
      return { where: runtime.keptAlways.where, approvals: await runtime.keptAlways.list() };
    },

    async revokeAlways(_principal, id) {
      // The same rule as `toolgate approvals revoke`: an id, or a prefix long enough not to name another by chance.
      if (!/^[0-9a-f]{6,64}$/.test(id)) throw new ApiError(400, `approval id ${JSON.stringify(id.slice(0, 80))}: expected at least 6 hex digits of an id from GET /approvals/always`, { field: 'id', expected: 'an approval id' });
      const revoked = await runtime.keptAlways.revoke([id]);
      if (revoked.length === 0) throw new ApiError(404, `no "approve always" has the id ${id}`);
      return { revoked };
    },

    async clearChat(principal, sessionId, chatId) {
      // Sessions are scoped by owner: a submitter clears its own; an admin clears the chat for every owner.
      const owners = principal.role === 'admin' ? await ownersOf(runtime) : [principal.name];
      let cleared = 0;
      for (const owner of owners) cleared += await runtime.memory.forgetChat(scopedSession(owner, sessionId), chatId);
      return { cleared };
    },
  };
}

/** Everyone who may own runs: every token's name and the admin. */
async function ownersOf(runtime: ServerRuntime): Promise<string[]> {
  return ['admin', ...(await runtime.store.listTokens()).map((token) => token.name)];
}

