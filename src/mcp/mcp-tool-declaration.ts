import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { PolicySection, SectionJudgement, SectionVerdict } from '../core/evaluate-call.ts';
import { firstMatch } from '../core/pattern.ts';
import { describeConditions, judgeArgumentRules } from '../core/policy/judge-argument-rules.ts';
import { blocksOutright, type Policy } from '../core/policy/policy.ts';
import { maskSecrets } from '../core/redact.ts';
import type { ToolDeclaration } from '../core/tool-declaration.ts';
import type { ApprovalRequest, Decision, ToolCall } from '../core/types.ts';
import { filesystemPathForms } from '../filesystem/path-forms.ts';
import { fileWritePreview } from './file-write-preview.ts';
import type { UpstreamServerConfig } from './upstream-server-config.ts';
import { NAMESPACE_SEPARATOR } from './assign-client-names.ts';

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
  /** The server's default for tools with no rule: an `ask_when` or `ask_always` that also asks decided more specifically. */
  fallback?: boolean;
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
  // The servers run on this machine (or see the same files): paths are judged where they lead.
  const { server, tool } = entry;
  const rule = server.tools.get(tool.name);
  if (rule !== undefined) {
    const judged = judgeArgumentRules(rule, args, filesystemPathForms);
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
  if (server.defaultDecision !== 'block' && toolNames(entry).some((name) => policy.tools.has(name))) return undefined;

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
  return { decision: server.defaultDecision, label: server.defaultLabel, reason: `${entry.clientName} has no rule${why}: ${server.defaultLabel} is ${server.defaultDecision}`, description: undefined, required: true, fallback: true };
}

/**
 * Everything the server's section of the policy says about one call: its rule
 * (`evaluateServerRule`), then its `ask_when` and `ask_always` — no verdict
 * when a top-level `tools` rule decides. Asks carry the request a person is
 * shown; `changeNote` (while the definition has changed since it was last
 * shown) is the notice that goes first in whatever request is made.
 *
 * @example
 * serverVerdicts({ entry, policy, args: { path: 'a.txt' }, changeNote: undefined })
 * // { verdicts: [{ decision: 'allow', rule: 'mcp.servers.files.tools.read_text_file', ... }] }
 */
export function serverVerdicts(options: { entry: McpToolEntry; policy: Policy; call: ToolCall; changeNote: string | undefined }): SectionJudgement {
  const { entry, call } = options;
  const { server, tool } = entry;
  const outcome = evaluateServerRule({ entry, policy: options.policy, args: call.args });
  const named: SectionVerdict[] = [];
  const asked = server.askWhen[firstMatch(server.askWhen, tool.name)];
  if (asked !== undefined) named.push({ decision: 'ask', rule: asked.label, reason: `${tool.name} on MCP server ${server.name} matches ${JSON.stringify(asked.pattern.source)}`, required: true });
  if (server.askAlways) named.push({ decision: 'ask', rule: `mcp.servers.${server.name}.ask_always`, reason: `every call to MCP server ${server.name} asks (mcp.servers.${server.name}.ask_always)`, required: true });
  const verdicts: SectionVerdict[] = [];
  if (outcome !== undefined) {
    const reason = outcome.decision === 'block' && !outcome.reason.includes(outcome.label) ? `${outcome.reason} (${outcome.label})` : outcome.reason;
    verdicts.push({ decision: outcome.decision, rule: outcome.label, reason, required: outcome.required, description: outcome.description, dangerous: outcome.label === 'unknown_tools.dangerous_keywords' });
  }
  // Of verdicts that agree, the first is the one recorded as deciding: a default (a tool with no rule) comes after
  // the ask_when or ask_always that names the tool, so `edit_file` is recorded as asked by `ask_when[0]`, not the default.
  if (outcome?.fallback === true) verdicts.unshift(...named);
  else verdicts.push(...named);
  // The change note is the section's to give whoever asks (a top-level rule, the tool's own check).
  const notice = options.changeNote === undefined ? {} : { notice: options.changeNote };
  if (!verdicts.some((verdict) => verdict.decision === 'ask')) return { verdicts, ...notice };
  const request: ApprovalRequest = {
    tool: call.tool,
    // The server's description is what the tool says it does; the person reads it as such (approval-message.ts: "About").
    description: outcome?.description ?? tool.description ?? `Call ${tool.name} on MCP server ${server.name}`,
    payload: call.args ?? null,
    required: true,
    presentation: async () => {
      // Secrets are masked for the person, not dropped: the terminal can reveal them from the call's own arguments.
      const { value, masked } = maskSecrets(call.args ?? {}, server.redactKeys);
      const rule = verdicts.find((verdict) => verdict.decision === 'ask')!.rule;
      const metadata = { server: server.name, upstreamTool: tool.name, rule, ...(masked === 0 ? {} : { masked_secrets: masked }) };
      // A local server writing a file: what it would change, against the file as it is now. Not when a secret was
      // masked: the new content would show what `redact.keys` hides (the arguments, masked, are shown instead).
      const preview = server.transport.kind === 'stdio' && masked === 0 ? await fileWritePreview({ tool: tool.name, args: call.args, cwd: server.transport.cwd }).catch(() => undefined) : undefined;
      if (preview !== undefined) return { ...preview, metadata: { ...preview.metadata, ...metadata } };
      return { type: 'structured', content: JSON.stringify(value, null, 2) ?? 'null', metadata };
    },
  };
  return { verdicts: verdicts.map((verdict) => (verdict.decision === 'ask' ? { ...verdict, request } : verdict)), ...notice };
}

/**
 * The gate's view of upstream tools: `declare` names one as the client sees
 * it, its identity bound to the server and the definition; `section` is the
 * servers' part of the policy (`serverVerdicts`) for the gate's `sections`,
 * judging each call by the entry its declaration was made from.
 * `changeNote` says, while it returns text, that an entry's definition
 * changed since it was last shown; it goes first in the request.
 *
 * @example
 * const servers = createMcpServerSection({ policy, changeNote: () => undefined });
 * const gate = createGate({ policy, sections: [servers.section] });
 * gate.register(servers.declare(entry));
 */
export function createMcpServerSection(options: { policy: Policy; changeNote: (entry: McpToolEntry) => string | undefined }): {
  section: PolicySection;
  declare(entry: McpToolEntry): ToolDeclaration;
} {
  const { policy } = options;
  const declared = new WeakMap<ToolDeclaration, McpToolEntry>();
  return {
    section: (call, tool) => {
      const entry = tool === undefined ? undefined : declared.get(tool);
      if (entry === undefined) return undefined;
      return serverVerdicts({ entry, policy, call, changeNote: options.changeNote(entry) });
    },
    declare: (entry) => {
      const declaration: ToolDeclaration = {
        name: entry.clientName,
        // The policy's name rules (filter, tools.<name>, ask_when) also judge the tool's own name on its
        // server and its namespaced name: a collision that renames it must not shed them, and a top-level
        // `files__read_text_file: block` must hold whether or not the name is namespaced today.
        ...(toolNames(entry).length === 1 ? {} : { aliases: toolNames(entry).filter((name) => name !== entry.clientName) }),
        identity: entry.identity,
        server: entry.server.name,
      };
      if (entry.tool.description !== undefined) declaration.description = entry.tool.description;
      declared.set(declaration, entry);
      return declaration;
    },
  };
}

/**
 * Whether the policy blocks every call to the tool whatever its arguments:
 * then clients are not offered it (seed 004's schema filtering), as the AI
 * SDK adapter does not offer such tools to the model.
 *
 * @example
 * blockedWhateverTheArguments({ entry, policy }) // true for `mcp.servers.files.tools.delete_file: block`
 */
export function blockedWhateverTheArguments(options: { entry: McpToolEntry; policy: Policy }): boolean {
  const { entry, policy } = options;
  const serverRule = entry.server.tools.get(entry.tool.name);
  if (serverRule !== undefined && blocksOutright(serverRule)) return true;
  if (serverRule === undefined && entry.server.defaultDecision === 'block') return true;
  return toolNames(entry).some((name) => {
    const rule = policy.tools.get(name);
    return rule !== undefined && blocksOutright(rule);
  });
}

/**
 * Every name the policy's top-level rules know the tool by: the one the
 * client sees, its own on the server, and its namespaced one
 * (`files__read_text_file`), whichever the gateway lists today.
 *
 * @example
 * toolNames(entry) // ['read_text_file', 'files__read_text_file']
 */
export function toolNames(entry: McpToolEntry): string[] {
  return [...new Set([entry.clientName, entry.tool.name, `${entry.server.namespace}${NAMESPACE_SEPARATOR}${entry.tool.name}`])];
}

function dangerousKeyword(tool: Tool, keywords: readonly string[] | undefined): string | undefined {
  if (keywords === undefined) return undefined;
  const text = `${tool.name}\n${tool.title ?? ''}\n${tool.description ?? ''}`.toLowerCase();
  return keywords.find((keyword) => text.includes(keyword));
}
