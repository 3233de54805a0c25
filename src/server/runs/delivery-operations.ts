/**
 * The run service's messages to people outside the inbox: the outbox of
 * notifications, one-tap decision links (signed, expiring, bound to the
 * arguments shown) and Slack buttons, each deciding as the approver it was
 * sent to, while they may.
 */
import { argumentsDigest, readDecisionLink, type DecisionLink } from '../notify/decision-links.ts';
import { ADMIN_PRINCIPAL_NAME } from '../tokens.ts';
import { SlackRequestError, type SlackAction, type SlackChannel } from '../notify/slack-channel.ts';
import type { StoredApproval, StoredRun } from '../../store/store.ts';
import { ApiError, type RunService } from '../run-service.ts';
import { withSpan } from '../tracing.ts';
import { approveRun } from './approve-run.ts';
import type { ServerRuntime } from './server-runtime.ts';

/** The run service's methods for notifications and the decisions made from them. */
export type DeliveryOperations = Pick<RunService, 'listNotifications' | 'linkView' | 'slackInteraction' | 'decideByLink'>;

/**
 * Notifications, and decisions by link or Slack.
 *
 * @example
 * const { linkView, decideByLink } = deliveryOperations(runtime);
 */
export function deliveryOperations(runtime: ServerRuntime): DeliveryOperations {
  const { store } = runtime;
  return {
    async listNotifications(_principal, query) {
      const [counts, deliveries] = await Promise.all([store.outbox.countDeliveries(), store.outbox.listDeliveries(query)]);
      return {
        counts,
        deliveries: deliveries.map((delivery) => ({
          id: delivery.id,
          channel: delivery.channel,
          run_id: delivery.runId,
          tool_call_id: delivery.toolCallId,
          status: delivery.status,
          attempts: delivery.attempts,
          last_error: delivery.lastError,
          created_at: delivery.createdAt,
          delivered_at: delivery.deliveredAt,
        })),
      };
    },

    async linkView(token) {
      const { link, approval } = await openLink(runtime, token);
      return {
        state: 'waiting',
        approver: link.approver,
        run_id: link.runId,
        tool_call_id: link.toolCallId,
        tool_name: approval.tool,
        expires_at: new Date(link.expiresAt * 1000).toISOString(),
        presentation: approval.request.presentation ?? null,
      };
    },

    async slackInteraction(channelName, request) {
      const channel = runtime.channels?.get(channelName);
      if (channel === undefined || channel.kind !== 'slack') throw new ApiError(404, `no Slack channel is named ${JSON.stringify(channelName.slice(0, 64))} in this server's policy`);
      const slack = channel as SlackChannel;
      let action: SlackAction;
      try {
        action = slack.readInteraction({ ...request, now: Date.now() });
      } catch (error) {
        if (error instanceof SlackRequestError) throw new ApiError(error.status, error.message);
        throw error;
      }
      const reply = (text: string) => slack.replyInThread(action, text).catch((error: unknown) => runtime.logger.warn('slack: could not reply in a thread', { error: String(error) }));
      // Slack wants an answer within 3 s: the press is taken now, decided after, and any refusal told in the thread.
      void (async () => {
        if (action.approver === undefined) {
          await reply(`is not one of toolgate's approvers in this channel (server.channels.${channelName}.users): nothing was decided.`);
          return;
        }
        try {
          const { run } = await openCall(runtime, { approver: action.approver, runId: action.runId, toolCallId: action.toolCallId, argsDigest: action.argsDigest });
          await approveRun({ runtime, run, principal: { name: action.approver, role: 'approver' }, input: { approved: action.approved, tool_call_id: action.toolCallId, ...(action.reason === undefined ? {} : { reason: action.reason }), via: 'slack' } });
        } catch (error) {
          if (error instanceof ApiError) await reply(`nothing was decided: ${error.message}`);
          else runtime.logger.error('slack: a press could not be decided', { run_id: action.runId, tool_call_id: action.toolCallId, error: String(error) });
        }
      })();
      return { accepted: true };
    },

    async decideByLink(token, input) {
      const { link, run } = await openLink(runtime, token);
      // Decided as the approver the link was sent to, and said so: "by carol, by a link".
      return withSpan('toolgate.decision', { 'toolgate.run_id': link.runId, 'toolgate.approved': input.approved }, () =>
        approveRun({ runtime, run, principal: { name: link.approver, role: 'approver' }, input: { approved: input.approved, tool_call_id: link.toolCallId, ...(input.reason === undefined ? {} : { reason: input.reason }), via: 'link' } }),
      );
    },
  };
}

/**
 * The call a one-tap link names, while the link may decide it: signed by
 * this server, not expired, its approver still holding a token that may
 * approve, and the call waiting with the arguments the link was made for.
 * Anything else is an `ApiError` whose `state` names it for the page.
 */
/** The longest a one-tap link may live (`link_ttl` allows at most 7 days). */
const MAX_LINK_LIFE_MS = 7 * 24 * 3_600_000 + 60_000;

async function openLink(runtime: ServerRuntime, token: string): Promise<{ link: DecisionLink; run: StoredRun; approval: StoredApproval }> {
  const read = readDecisionLink({ key: runtime.recordKey, token });
  if (!read.ok) throw new ApiError(404, read.problem, { state: 'invalid' });
  const { link } = read;
  // No link lives longer than the longest link_ttl, whatever it says: a key that signed a far-off time by mistake still cannot.
  if (link.expiresAt * 1000 > Date.now() + MAX_LINK_LIFE_MS) throw new ApiError(404, 'this link is not one toolgate made (it claims to live longer than any link may)', { state: 'invalid' });
  if (link.expiresAt * 1000 <= Date.now()) throw new ApiError(410, `this link expired at ${new Date(link.expiresAt * 1000).toISOString()}: open the inbox to decide the call`, { state: 'expired' });
  return { link, ...(await openCall(runtime, link)) };
}

/**
 * A call a person outside the inbox decides (a link, a Slack button), while
 * they may: the approver still holding a token that may approve, the call
 * waiting with the arguments they were shown. Anything else is an
 * `ApiError` whose `state` names it.
 */
export async function openCall(runtime: ServerRuntime, link: { approver: string; runId: string; toolCallId: string; argsDigest: string }): Promise<{ run: StoredRun; approval: StoredApproval }> {
  const approver =
    link.approver === ADMIN_PRINCIPAL_NAME || (await runtime.store.listTokens()).some((candidate) => candidate.name === link.approver && candidate.revokedAt === null && (candidate.role === 'approver' || candidate.role === 'admin'));
  if (!approver) throw new ApiError(403, `${link.approver} can no longer approve here (their token was revoked, or is not an approver's)`, { state: 'approver_gone' });
  const run = await runtime.store.getRun(link.runId);
  const approvals = run === undefined ? [] : await runtime.store.listApprovals({ runId: link.runId, includeDecided: true });
  const approval = approvals.find((candidate) => candidate.toolCallId === link.toolCallId);
  if (run === undefined || approval === undefined) throw new ApiError(404, 'the call is gone (its run was removed)', { state: 'gone' });
  if (approval.decision !== null) {
    const decision = approval.decision;
    const how = decision.decidedBy === 'timeout' ? 'nobody decided in time: it timed out' : `${decision.approved ? 'approved' : 'denied'} by ${decision.decidedBy}${decision.via === 'link' ? ' with a link' : decision.via === 'inbox' ? ' in the inbox' : decision.via === 'slack' ? ' in Slack' : ''}`;
    throw new ApiError(409, `this call was already decided at ${decision.decidedAt} (${how})`, { state: 'decided' });
  }
  if (run.status !== 'paused_checkpoint') throw new ApiError(409, `the run no longer waits for this call (it is ${run.status})`, { state: 'not_waiting' });
  const shown = typeof approval.request.tool_arguments === 'string' ? approval.request.tool_arguments : JSON.stringify(approval.request.tool_arguments ?? null);
  if (argumentsDigest(shown) !== link.argsDigest) throw new ApiError(409, 'the call waiting now is not the one that was shown (its arguments differ); open the inbox to see it', { state: 'changed' });
  return { run, approval };
}
