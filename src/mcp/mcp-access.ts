/**
 * Deciding one use of a server's resource or prompt (`mcp-access-policy.ts`
 * says allow, ask or block): an ask goes to whoever the gateway asks about
 * tool calls (or the policy's mode answers it), within the policy's approval
 * timeout, and every decision that is not a plain allow is audited as an
 * `mcp_access` line. Completions never ask a person (they are suggestions
 * typed as you go): only an allowed target is completed.
 */
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import type { Approver } from '../core/approver.ts';
import type { AuditEntry, AuditSink } from '../core/audit-entry.ts';
import { redact } from '../core/redact.ts';
import { errorMessage } from '../core/run-tool-check.ts';
import type { GateContext, RunMode } from '../core/types.ts';
import { judgeAccess, type AccessPolicy } from './mcp-access-policy.ts';
import { McpProtocolError } from './mcp-protocol-error.ts';
import type { UpstreamServerConfig } from './upstream-server-config.ts';

/** What is decided: a client's use of a resource or prompt, or a server's request to the client. */
export type AccessMethod = 'resources/read' | 'resources/subscribe' | 'prompts/get' | 'sampling/createMessage' | 'elicitation/create';

/** The rules that decide `method` on `server`. */
export function accessPolicyFor(server: UpstreamServerConfig, method: AccessMethod): AccessPolicy {
  if (method === 'prompts/get') return server.prompts;
  if (method === 'sampling/createMessage') return server.sampling;
  if (method === 'elicitation/create') return server.elicitation;
  return server.resources;
}

/** What a client wants to do, on which server (or what a server wants of the client). */
export interface AccessRequest {
  server: UpstreamServerConfig;
  /** The MCP method: `resources/read`, `resources/subscribe`, `prompts/get`. */
  method: AccessMethod;
  /** The URI or the prompt name, as the server knows it. */
  target: string;
  /** The prompt's arguments (shown to the person, redacted in the audit). */
  args?: Record<string, unknown>;
}

export interface AccessDependencies {
  mode: RunMode | undefined;
  approvalTimeoutMs: number | undefined;
  audit: AuditSink | undefined;
}

/** The schema version of `mcp_access` audit lines. */
export const MCP_ACCESS_SCHEMA_VERSION = 1;

/**
 * Resolves when the use may go on; throws the protocol error the client
 * gets (naming the rule) when it may not.
 *
 * @example
 * await decideAccess({ request: { server, method: 'resources/read', target: uri }, context, approver, signal, deps });
 */
export async function decideAccess(options: { request: AccessRequest; context: GateContext; approver: () => Approver; signal: AbortSignal; deps: AccessDependencies }): Promise<void> {
  const { request, context, deps } = options;
  const policy = accessPolicyFor(request.server, request.method);
  const verdict = judgeAccess(policy, request.target);
  const what = request.target === '' ? `${request.method} by MCP server ${JSON.stringify(request.server.name)}` : `${request.method} ${JSON.stringify(request.target)} on MCP server ${JSON.stringify(request.server.name)}`;
  const record = async (decision: string, source: string, reason: string, approver?: string) => {
    await deps.audit?.record({
      v: MCP_ACCESS_SCHEMA_VERSION,
      kind: 'mcp_access',
      time: new Date().toISOString(),
      session: context.sessionId,
      caller: context.caller ?? null,
      server: request.server.name,
      method: request.method,
      target: request.target,
      args: request.args === undefined ? null : redact(request.args, request.server.redactKeys),
      decision,
      source,
      rule: verdict.rule,
      reason,
      ...(approver === undefined ? {} : { approver }),
    } as unknown as AuditEntry);
  };
  if (verdict.decision === 'allow') {
    // A server's requests of the client are rare and reach the person or their model: each is audited, allowed ones too.
    if (request.method === 'sampling/createMessage' || request.method === 'elicitation/create') await record('allow', 'policy', `${what} is allowed by ${verdict.rule}`);
    return;
  }
  if (verdict.decision === 'block') {
    const reason = `${what} is blocked by ${verdict.rule}`;
    await record('block', 'policy', reason);
    throw new McpProtocolError({ code: ErrorCode.InvalidRequest, message: `toolgate: ${reason}` });
  }
  const answer = await ask(options, verdict.rule, what);
  await record(answer.approved ? 'approved' : 'denied', answer.source, answer.reason, answer.by);
  if (!answer.approved) throw new McpProtocolError({ code: ErrorCode.InvalidRequest, message: `toolgate: ${what} was not approved: ${answer.reason}` });
}

async function ask(
  options: { request: AccessRequest; context: GateContext; approver: () => Approver; signal: AbortSignal; deps: AccessDependencies },
  rule: string,
  what: string,
): Promise<{ approved: boolean; source: string; reason: string; by?: string }> {
  const { request, deps } = options;
  // The policy's mode answers before anyone is asked, as for tool calls; these asks are required ones.
  if (deps.mode === 'approve_all') return { approved: true, source: 'mode', reason: 'approved by mode approve_all' };
  if (deps.mode === 'auto_deny' || deps.mode === 'strict') return { approved: false, source: 'mode', reason: `denied by mode ${deps.mode}` };
  const timeout = deps.approvalTimeoutMs === undefined ? undefined : AbortSignal.timeout(deps.approvalTimeoutMs);
  const signal = timeout === undefined ? options.signal : AbortSignal.any([options.signal, timeout]);
  // What the person is shown: the URI, the prompt and its arguments, or (a server's request of the client) what it asks for.
  const payload =
    request.target === '' ? (request.args ?? {}) : request.args === undefined ? { [request.method === 'prompts/get' ? 'name' : 'uri']: request.target } : { name: request.target, arguments: request.args };
  try {
    const decision = await options.approver().ask(
      {
        tool: request.method,
        description: `${what} (${rule} asks)`,
        payload,
        presentation: { type: 'structured', content: JSON.stringify(redact(payload, request.server.redactKeys), null, 2), metadata: { server: request.server.name, method: request.method } },
        required: true,
        call: { tool: request.method, args: payload, callId: `${options.context.sessionId}:${request.method}:${request.target}` },
        context: options.context,
      },
      { signal },
    );
    if (decision.approved) return { approved: true, source: 'person', reason: 'approved', ...(decision.by === undefined ? {} : { by: decision.by }) };
    return { approved: false, source: decision.automatic === true ? 'policy' : 'person', reason: decision.reason ?? 'denied' };
  } catch (error) {
    if (timeout?.aborted === true) return { approved: false, source: 'timeout', reason: `timed out after ${deps.approvalTimeoutMs} ms without an answer` };
    return { approved: false, source: 'gate', reason: `the approval failed (${errorMessage(error)}); denied to fail closed` };
  }
}
