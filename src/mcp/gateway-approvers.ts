/**
 * Who the MCP gateway asks about a call, per client session: by MCP
 * elicitation when the client can show a form, else a terminal or another
 * approver (as `--approver` chooses), each showing the server a tool
 * belongs to first; when nobody can be asked, a denial that says who could
 * approve and how to reach them, never a rule or a mode that would let
 * the call through.
 */
import type { RequestId } from '@modelcontextprotocol/sdk/types.js';
import { createNonInteractiveApprover, type Approver } from '../core/approver.ts';
import type { Policy } from '../core/policy/policy.ts';
import { approvalMessage } from './approval-message.ts';
import type { GatewaySession } from './downstream-server.ts';
import { createElicitationApprover } from './elicitation-approver.ts';
import type { McpGatewayOptions } from './mcp-gateway-options.ts';
import type { McpToolEntry } from './mcp-tool-declaration.ts';
import { serverNamedApprover } from './server-named-approver.ts';

/**
 * The approver for a session's calls.
 *
 * @example
 * const approverFor = gatewayApprovers({ options, policy, entry: listing.entry, changeNote: listing.changeNote });
 * const approver = approverFor(session, relatedRequestId);
 */
export function gatewayApprovers(options: {
  options: Pick<McpGatewayOptions, 'approverChoice' | 'terminalApprover' | 'approver'>;
  policy: Policy;
  entry: (clientName: string) => McpToolEntry | undefined;
  changeNote: (entry: McpToolEntry) => string | undefined;
}): (session: GatewaySession, relatedRequestId: RequestId | undefined) => Approver {
  const { policy } = options;
  // Denials say who could approve and how to reach them, never a rule or a mode that would let the call through.
  const nonInteractive = createNonInteractiveApprover({
    hint:
      'nobody who can approve it is reachable here: this MCP client cannot show an approval dialog (it does not support elicitation) and no terminal is attached, so it did not run. ' +
      'A person can approve it from an MCP client that supports elicitation, or at a terminal when `toolgate mcp` is started from one',
  });

  const nobodyAsked = createNonInteractiveApprover({
    hint:
      'toolgate mcp was started with --approver none, so nobody is asked and it did not run. ' +
      'To have a person asked, start it with --approver elicitation (an MCP client that supports elicitation) or --approver terminal',
  });

  // A terminal prompt or an inbox card shows the tool's name: the server it belongs to goes first in its description.
  const originOf = (tool: string) => {
    const entry = options.entry(tool);
    return entry === undefined ? undefined : { server: entry.server.name, upstreamName: entry.tool.name };
  };
  const terminalApprover = options.options.terminalApprover === undefined ? undefined : serverNamedApprover({ approver: options.options.terminalApprover, originOf });
  const otherApprover = options.options.approver === undefined ? undefined : serverNamedApprover({ approver: options.options.approver, originOf });

  return (session, relatedRequestId) => {
    const choice = options.options.approverChoice ?? 'auto';
    if (choice === 'none') return nobodyAsked;
    if (choice === 'terminal') return terminalApprover ?? nonInteractive;
    if (choice === 'server') return otherApprover ?? nonInteractive;
    if (session.server.getClientCapabilities()?.elicitation?.form !== undefined) {
      const approvalTimeoutMs = policy.approvalTimeoutMs;
      return createElicitationApprover({
        // The gate's own timer fires first and aborts; the SDK's is only a backstop.
        elicit: (params, { signal }) =>
          session.server.elicitInput(params, { signal, relatedRequestId, timeout: approvalTimeoutMs === undefined ? 2_147_483_647 : Math.min(approvalTimeoutMs + 5000, 2_147_483_647) }),
        message: (request, shown) => {
          const entry = options.entry(request.tool);
          const context = entry === undefined ? undefined : { server: entry.server.name, upstreamName: entry.tool.name, changeNote: options.changeNote(entry), redactKeys: entry.server.redactKeys };
          return approvalMessage({ request, context, revealSecrets: shown?.revealSecrets });
        },
        allowAlways: true,
      });
    }
    if (choice === 'elicitation') return nonInteractive;
    return terminalApprover ?? otherApprover ?? nonInteractive;
  };
}
