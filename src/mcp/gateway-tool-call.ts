import type { CallToolRequest, CallToolResult, RequestId, ServerNotification } from '@modelcontextprotocol/sdk/types.js';
import type { Approver } from '../core/approver.ts';
import { errorMessage } from '../core/run-tool-check.ts';
import type { Gate } from '../core/gate.ts';
import type { Policy } from '../core/policy/policy.ts';
import type { GateContext } from '../core/types.ts';
import type { CallNotRun } from './definition-change.ts';
import type { GatewayStats } from './gateway-stats.ts';
import type { McpToolEntry } from './mcp-tool-declaration.ts';
import { gatewayRefusalResult, refusedToolResult, unknownToolError, upstreamFailureResult } from './mcp-results.ts';
import type { UpstreamConnection } from './upstream-connection.ts';

/** What a tools/call needs from the gateway. */
export interface ToolCallCore {
  policy: Policy;
  gate: Gate;
  stats: GatewayStats;
  toolEntry(name: string): McpToolEntry | undefined;
  connection(server: string): UpstreamConnection | undefined;
  acknowledgeChange(entry: McpToolEntry): void;
  /** Audits a call that was approved but did not run (its tool changed meanwhile); absent without an audit log. */
  recordNotRun?: (notRun: CallNotRun) => Promise<void>;
  /**
   * Runs the gate's decision collecting its audit records (`createDeferredDurability`):
   * `durable` settles once they are fdatasync'ed. Absent when the gate's sink is awaited whole.
   */
  collectAudit?: <Value>(work: () => Promise<Value>) => Promise<{ value: Value; durable: Promise<void> }>;
}

export interface ToolCallRequestContext {
  context: GateContext;
  requestId: RequestId;
  signal: AbortSignal;
  approver: Approver;
  sendNotification: (notification: ServerNotification) => Promise<void>;
}

/**
 * One tools/call through the gateway: the gate decides (asking a person
 * when it must), then the call is forwarded to the server that owns the tool
 * under its own name, with the arguments that were approved, a deadline and
 * the client's cancellation; progress flows back. Refusals and upstream
 * failures come back as `isError` results; a tool the client cannot see (not
 * listed, or hidden by a filter) is refused as unknown, after the gate has
 * recorded the attempt.
 *
 * @example
 * server.setRequestHandler(CallToolRequestSchema, (request, extra) => handleToolCall({ core, request, call: { context, requestId: extra.requestId, signal: extra.signal, approver, sendNotification: extra.sendNotification } }));
 */
export async function handleToolCall(options: { core: ToolCallCore; request: CallToolRequest; call: ToolCallRequestContext }): Promise<CallToolResult> {
  const { core } = options;
  if (core.collectAudit === undefined) return callThroughGate({ ...options, authorize: (work) => work() });
  let durable: Promise<void> = Promise.resolve();
  const authorize = <Value>(work: () => Promise<Value>): Promise<Value> =>
    core.collectAudit!(work).then((collected) => {
      durable = collected.durable;
      return collected.value;
    });
  let outcome: { result: CallToolResult } | { error: unknown };
  try {
    outcome = { result: await callThroughGate({ ...options, authorize }) };
  } catch (error) {
    outcome = { error };
  }
  // Whatever the call came to (a result, a refusal, an error), nothing goes back before its records are durable.
  const held = performance.now();
  try {
    await durable;
    core.stats.sample('heldUntilDurable', performance.now() - held);
  } catch (error) {
    core.stats.count('failed');
    return gatewayRefusalResult(`the audit log could not make the record of this call durable (${errorMessage(error)}), so its result is withheld`);
  }
  if ('error' in outcome) throw outcome.error;
  return outcome.result;
}

async function callThroughGate(options: {
  core: ToolCallCore;
  request: CallToolRequest;
  call: ToolCallRequestContext;
  authorize: <Value>(work: () => Promise<Value>) => Promise<Value>;
}): Promise<CallToolResult> {
  const { core, request, call } = options;
  const received = performance.now();
  const name = request.params.name;
  const args = request.params.arguments ?? {};
  const entry = core.toolEntry(name);
  const toolCall = { tool: name, args, callId: `${call.context.sessionId}:${String(call.requestId)}` };
  if (entry === undefined) {
    // Not listed for this client: the gate blocks it and records the attempt; the client learns only "unknown".
    await options.authorize(() => core.gate.authorize(toolCall, call.context, { signal: call.signal }));
    core.stats.count('refused');
    throw unknownToolError(name);
  }
  const authorization = await options.authorize(() => core.gate.authorize(toolCall, call.context, { approver: call.approver, signal: call.signal }));
  if (authorization.source === 'person') core.acknowledgeChange(entry);
  if (authorization.decision !== 'allow' && authorization.decision !== 'approved') {
    core.stats.count('refused');
    return refusedToolResult({ tool: name, authorization, approvalTimeoutMs: core.policy.approvalTimeoutMs });
  }
  const current = core.toolEntry(name);
  if (current?.identity !== entry.identity) {
    // The server changed the tool while it was being approved: what was approved is not what would run.
    core.stats.count('refused');
    if (current !== undefined) {
      await core.recordNotRun?.({
        time: new Date().toISOString(),
        session: call.context.sessionId,
        callId: toolCall.callId,
        server: entry.server.name,
        tool: name,
        upstreamTool: entry.tool.name,
        approvedIdentity: entry.identity,
        identity: current.identity,
      });
    }
    return gatewayRefusalResult(`the definition of ${name} changed while the call was being approved, so it did not run; call it again to be asked about the new definition`);
  }
  const connection = core.connection(entry.server.name);
  if (connection === undefined) {
    core.stats.count('failed');
    return gatewayRefusalResult(`no MCP server ${JSON.stringify(entry.server.name)} is configured for ${name}`);
  }
  const progressToken = request.params._meta?.progressToken;
  const { progressToken: _token, ...meta } = request.params._meta ?? {};
  const forwarded = performance.now();
  if (authorization.source !== 'person' && authorization.source !== 'timeout') core.stats.sample('beforeForward', forwarded - received);
  try {
    const result = await connection.callTool({
      name: entry.tool.name,
      arguments: authorization.args as Record<string, unknown> | undefined,
      meta: Object.keys(meta).length > 0 ? meta : undefined,
      signal: call.signal,
      onprogress:
        progressToken === undefined
          ? undefined
          : (progress) =>
              void call
                .sendNotification({ method: 'notifications/progress', params: { ...progress, progressToken } })
                .catch(() => undefined),
    });
    core.stats.count('forwarded');
    return result;
  } catch (error) {
    if (call.signal.aborted) throw error;
    core.stats.count('failed');
    return upstreamFailureResult(error);
  }
}
