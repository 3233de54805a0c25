/**
 * A host's call through the same gate as every other call of toolgate's:
 * the built-in tools' judgement (the shell's analysis, the fs zones) without
 * running anything, the MCP servers' section of the policy, the network
 * rules for a web fetch, the policy's rules, the approvals file, the mode,
 * and the audit log, where the host and its session are recorded.
 */
import { readFileSync, statSync } from 'node:fs';
import type { LoadedPolicy } from '../config/load-policy-file.ts';
import { createInMemoryApprovalMemory } from '../core/approval-memory.ts';
import { createNonInteractiveApprover, type PresentedRequest } from '../core/approver.ts';
import type { Authorization, GateContext, RunMode } from '../core/types.ts';
import { createMcpSimulation } from '../mcp/simulated-mcp-tools.ts';
import { createBuiltinTools } from '../runtime/create-builtin-tools.ts';
import { createRuntimeGate } from '../runtime/create-runtime-gate.ts';
import { resolveInZones } from '../tools/fs/zones.ts';
import { toolgateCallOf, type HostCall } from './host-call.ts';
import { hostTools } from './host-tools.ts';

/** What the host is told: run it, refuse it, or ask its own user (where it can). */
export interface HostVerdict {
  decision: 'allow' | 'deny' | 'ask';
  /** Why, in toolgate's words: the model reads it on a denial, the person on an ask. */
  reason: string;
  /** The gate's own outcome, for the audit trail and tests. */
  authorization: Authorization;
}

/**
 * Decides one host call. Throws on toolgate's own failures (a policy that
 * does not load, a zone root that is gone): the hook turns every throw into
 * the host's blocking answer.
 *
 * @example
 * const verdict = await decideHostCall({ loaded, input: { host: 'claude-code', sessionId, cwd, hostTool: 'Bash', toolInput: { command: 'ls' } }, env: process.env });
 */
export async function decideHostCall(options: {
  loaded: LoadedPolicy;
  input: Omit<HostCall, 'call'> & { toolInput: Record<string, unknown> };
  env: Readonly<Record<string, string | undefined>>;
  mode?: RunMode;
  /**
   * Who answers an ask: `host` leaves it to the host's own prompt (the
   * verdict is "ask"); `nobody` denies it, saying `why` (a host that cannot
   * ask from its hook), so the audit log records the denial.
   */
  asks: { by: 'host' } | { by: 'nobody'; why: (request: PresentedRequest) => string };
}): Promise<HostVerdict & { call: HostCall }> {
  const { loaded, input } = options;
  const { tools, zones } = await createBuiltinTools({ loaded, cwd: input.cwd, judgeOnly: true });
  // An edit is judged as the write it makes, and the diff needs the file: read only where the zones let a read happen.
  const readText = (file: string): string | undefined => {
    const resolved = resolveInZones({ zones, path: file, cwd: input.cwd, operation: 'read' });
    if (!resolved.ok || !resolved.exists || resolved.zone.approval.read === 'block') return undefined;
    try {
      // A regular file only: a named pipe would block the read, and the hook with it, past the host's timeout.
      if (!statSync(resolved.absolute).isFile()) return undefined;
      return readFileSync(resolved.absolute, 'utf8');
    } catch {
      return undefined;
    }
  };
  const call: HostCall = { host: input.host, sessionId: input.sessionId, cwd: input.cwd, toolUseId: input.toolUseId, transcriptPath: input.transcriptPath, hostTool: input.hostTool, call: toolgateCallOf({ tool: input.hostTool, input: input.toolInput, cwd: input.cwd, readText }) };
  const mcp = createMcpSimulation({ loaded, env: options.env });
  const gate = createRuntimeGate({ loaded, tools: [...tools, ...hostTools(loaded)], sections: [mcp.section], openWorld: true, memory: createInMemoryApprovalMemory(), ...(options.mode === undefined ? {} : { mode: options.mode }) });
  try {
    let tool: string;
    let args: Record<string, unknown>;
    if (call.call.kind === 'mcp') {
      const { server, tool: upstream } = call.call;
      const config = mcp.servers.find((candidate) => candidate.name === server);
      // A server the policy does not name is judged by its public name alone (rules, unknown_tools).
      tool = config === undefined ? input.hostTool : `${config.namespace}__${upstream}`;
      args = call.call.args;
      const resolved = config === undefined ? undefined : mcp.resolve({ tool, server });
      if (resolved !== undefined && 'error' in resolved) throw new Error(resolved.error);
      if (resolved !== undefined) gate.register(resolved.declaration);
    } else {
      ({ tool, args } = call.call);
    }
    const context: GateContext = { sessionId: `${input.host}:${input.sessionId}`, caller: input.host };
    const asks = options.asks;
    const approver = asks.by === 'host' ? null : createNonInteractiveApprover({ hint: asks.why });
    const authorization = await gate.authorize({ tool, args, callId: input.toolUseId ?? `${input.host}-call` }, context, { approver });
    return { ...verdictOf(authorization), call };
  } finally {
    await gate.close();
  }
}

function verdictOf(authorization: Authorization): HostVerdict {
  switch (authorization.decision) {
    case 'allow':
    case 'approved':
      return { decision: 'allow', reason: authorization.reason, authorization };
    case 'ask':
      return { decision: 'ask', reason: authorization.request?.description ?? authorization.reason, authorization };
    default:
      return { decision: 'deny', reason: authorization.reason, authorization };
  }
}
