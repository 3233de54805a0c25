import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { describeConditions, judgeArgumentRules } from '../core/policy/judge-argument-rules.ts';
import type { Policy } from '../core/policy/policy.ts';
import { maskSecrets } from '../core/redact.ts';
import { blockCall, type ApprovalCheckResult, type ToolDeclaration } from '../core/tool-declaration.ts';
import type { Decision, ToolCall } from '../core/types.ts';
import type { UpstreamServerConfig } from './upstream-server-config.ts';

/** An upstream tool as the gateway lists it. */
export interface McpToolEntry {
  /** The name the client sees (namespaced or not). */
  clientName: string;
  server: UpstreamServerConfig;
  /** The definition as the server sent it (its own name). */
  tool: Tool;
  definitionHash: string;
  /** Server identity + definition hash: `ToolDeclaration.identity`. */
  identity: string;
}

/** What the server's section of the policy says about one call. */
export interface ServerRuleOutcome {
  decision: Decision;
  /** Where it came from: `mcp.servers.files.tools.write_file`, `mcp.servers.files.trust_annotations`... */
  label: string;
  reason: string;
  description: string | undefined;
  required: boolean;
}

/**
 * The server's say on a call, most specific first:
 * 1. the server's rule for the tool (`mcp.servers.S.tools.T`, its argument
 *    `rules` first) decides;
 * 2. else, when the top-level `tools` has a rule for the client's name, the
 *    server says nothing (undefined) and that rule decides;
 * 3. else the server's `default` (ask when absent). With
 *    `trust_annotations: true`, `readOnlyHint: true` lowers a default ask to
 *    allow (never when `destructiveHint` is true, and never a rule or a
 *    block); the `unknown_tools.dangerous_keywords` heuristic raises a default
 *    allow (or a trusted annotation) back to ask.
 * The gate then combines this with the top-level `tools`, `ask_when` and
 * `filter`: most restrictive wins.
 *
 * @example
 * evaluateServerRule({ entry, policy, args: { path: 'a.txt' } }) // { decision: 'allow', label: 'mcp.servers.files.tools.read_text_file', ... }
 */
export function evaluateServerRule(options: { entry: McpToolEntry; policy: Policy; args: unknown }): ServerRuleOutcome | undefined {
  const { entry, policy, args } = options;
  const { server, tool } = entry;
  const rule = server.tools.get(tool.name);
  if (rule !== undefined) {
    const judged = judgeArgumentRules(rule, args);
    if (judged.kind === 'matched') {
      const argumentRule = judged.rule;
      return {
        decision: argumentRule.decision,
        label: argumentRule.label,
        reason: argumentRule.reason ?? `${entry.clientName} arguments match ${describeConditions(argumentRule)} (${argumentRule.label})`,
        description: argumentRule.description ?? rule.description,
        required: argumentRule.required,
      };
    }
    // Never a soft ask: strict mode must not approve what the policy could not judge.
    if (judged.kind === 'unsure') return { decision: 'ask', label: judged.rule.label, reason: `${judged.reason} (${judged.rule.label})`, description: judged.rule.description ?? rule.description, required: true };
    return { decision: rule.decision, label: rule.label, reason: rule.reason ?? `${rule.label} is ${rule.decision}`, description: rule.description, required: rule.required };
  }
  // A top-level rule for the name decides instead of the server's default, but
  // never instead of a server that blocks by default: any block blocks.
  if (server.defaultDecision !== 'block' && (policy.tools.has(entry.clientName) || policy.tools.has(tool.name))) return undefined;

  const keyword = dangerousKeyword(tool, policy.unknownTools.dangerousKeywords);
  const annotations = tool.annotations;
  const base = `mcp.servers.${server.name}`;
  if (server.defaultDecision === 'ask' && server.trustAnnotations && annotations?.readOnlyHint === true && annotations.destructiveHint !== true) {
    if (keyword === undefined) {
      return { decision: 'allow', label: `${base}.trust_annotations`, reason: `${entry.clientName} is marked read-only (readOnlyHint) and the policy trusts ${server.name}'s annotations`, description: undefined, required: true };
    }
  }
  if (server.defaultDecision === 'allow' && keyword !== undefined) {
    return { decision: 'ask', label: 'unknown_tools.dangerous_keywords', reason: `${entry.clientName} has no rule and looks dangerous (mentions ${JSON.stringify(keyword)})`, description: undefined, required: true };
  }
  const why = keyword === undefined ? '' : ` and looks dangerous (mentions ${JSON.stringify(keyword)})`;
  return { decision: server.defaultDecision, label: server.defaultLabel, reason: `${entry.clientName} has no rule${why}: ${server.defaultLabel} is ${server.defaultDecision}`, description: undefined, required: true };
}

/**
 * The gate's view of an upstream tool: named as the client sees it, its
 * identity bound to the server and the definition, and a `checkApproval` that
 * brings the server's rules (`evaluateServerRule`) to the gate.
 * `changeNote` says, while it returns text, that the definition changed
 * since it was last approved; it is shown in the request.
 *
 * @example
 * gate.register(createMcpToolDeclaration({ entry, policy, changeNote: () => undefined }));
 */
export function createMcpToolDeclaration(options: { entry: McpToolEntry; policy: Policy; changeNote: () => string | undefined }): ToolDeclaration {
  const { entry, policy } = options;
  const declaration: ToolDeclaration = {
    name: entry.clientName,
    // The policy's name rules (filter, tools.<name>, ask_when) also judge the
    // tool's own name on its server: a collision that renames it must not shed them.
    ...(entry.tool.name === entry.clientName ? {} : { aliases: [entry.tool.name] }),
    identity: entry.identity,
    checkApproval: (call: ToolCall): ApprovalCheckResult => {
      const outcome = evaluateServerRule({ entry, policy, args: call.args });
      if (outcome === undefined || outcome.decision === 'allow') return null;
      if (outcome.decision === 'block') return blockCall(outcome.reason.includes(outcome.label) ? outcome.reason : `${outcome.reason} (${outcome.label})`);
      const note = options.changeNote();
      const summary = outcome.description ?? entry.tool.description ?? `Call ${entry.tool.name} on MCP server ${entry.server.name}`;
      return {
        tool: call.tool,
        // The change note first: a server's description may be long, and a person must not miss that the tool changed.
        description: note === undefined ? summary : `${note}\n\n${summary}`,
        payload: call.args ?? null,
        required: outcome.required,
        presentation: () => {
          // Secrets are masked for the person, not dropped: the terminal can reveal them from the call's own arguments.
          const { value, masked } = maskSecrets(call.args ?? {}, entry.server.redactKeys);
          return {
            type: 'structured',
            content: JSON.stringify(value, null, 2) ?? 'null',
            metadata: { server: entry.server.name, upstreamTool: entry.tool.name, rule: outcome.label, ...(masked === 0 ? {} : { masked_secrets: masked }) },
          };
        },
      };
    },
  };
  if (entry.tool.description !== undefined) declaration.description = entry.tool.description;
  return declaration;
}

function dangerousKeyword(tool: Tool, keywords: readonly string[] | undefined): string | undefined {
  if (keywords === undefined) return undefined;
  const text = `${tool.name}\n${tool.title ?? ''}\n${tool.description ?? ''}`.toLowerCase();
  return keywords.find((keyword) => text.includes(keyword));
}
