import { firstMatch } from './pattern.ts';
import { sanitizeTerminalText } from './sanitize-terminal-text.ts';
import { unsafeToolName } from './tool-name-safety.ts';
import type { LabelledPattern, Policy, ToolRule } from './policy/policy.ts';
import { describeConditions, judgeArgumentRules, type PathForms } from './policy/judge-argument-rules.ts';
import { declaresApproval, type ToolDeclaration } from './tool-declaration.ts';
import { defaultRequest, errorMessage, runToolChecks } from './run-tool-check.ts';
import type { ApprovalRequest, Decision, GateContext, MatchedRule, ToolCall, Verdict } from './types.ts';

/** What a tool's name alone decides; cached per name because names repeat. */
interface NameFacts {
  hiddenBy: LabelledPattern | 'not-allowed' | undefined;
  askWhen: LabelledPattern | undefined;
  /** Why the name could pass for another (`tool-name-safety.ts`): then it is blocked, never judged as written. */
  unsafe: string | undefined;
}

/** Who judged a call before the tool's own checks: a `tools` rule, a policy section (flagging it dangerous or not), or nothing yet. */
type Judged = 'nothing' | 'tool-rule' | 'section' | 'section-dangerous';

/** A source that spoke about one call, before precedence is applied. */
interface Source {
  decision: Decision;
  rule: string;
  reason: string;
  required: boolean;
  description?: string | undefined;
  request?: ApprovalRequest;
}

export type EvaluatedVerdict = Verdict & { dangerous: boolean };

/**
 * What a part of the policy beyond `tools` says about one call (the MCP
 * gateway's `mcp.servers.<name>`): one more source, under its own rule label.
 */
export interface SectionVerdict {
  decision: Decision;
  /** Where it is written: `mcp.servers.files.tools.write_file`. */
  rule: string;
  /** toolgate's words (never text from the tool or its server). */
  reason: string;
  required: boolean;
  /** What the person reads when this asks. */
  description?: string | undefined;
  /** The request a person is shown when this asks (the default one otherwise). */
  request?: ApprovalRequest;
  /** The unknown-tool heuristic raised it (`unknown_tools.dangerous_keywords`). */
  dangerous?: boolean;
}

/** What a policy section says about a call it knows. */
export interface SectionJudgement {
  /** Its verdicts; none when another rule (a `tools` rule) speaks for it. */
  verdicts: readonly SectionVerdict[];
  /** A warning the person reads first when the call asks, whoever asks (a tool's changed definition). */
  notice?: string | undefined;
}

/**
 * A part of the policy that speaks about some tools: for a call to one of
 * them it returns its judgement (where it gives a verdict, `unknown_tools`
 * does not apply: it has its own default), for any other call undefined.
 * Synchronous and without I/O, like the rest of the policy; a throw blocks
 * the call.
 */
export type PolicySection = (call: ToolCall, tool: ToolDeclaration | undefined) => SectionJudgement | undefined;

export interface CallEvaluator {
  /**
   * The verdict, synchronously when nothing asynchronous spoke (no tool
   * check): the hot path of allowed calls then costs no promise at all.
   */
  evaluate(call: ToolCall, context: GateContext, tool: ToolDeclaration | undefined): EvaluatedVerdict | Promise<EvaluatedVerdict>;
  isHidden(name: string, aliases?: readonly string[]): boolean;
}

const MAX_CACHED_NAMES = 10_000;

/** The aliases of a tool that has none (shared: never written to). */
const NO_ALIASES: readonly string[] = Object.freeze([]);

/**
 * The policy half of the gate: filter → any block → any ask → allow, over
 * every source that speaks (the policy's tool rule and its argument rules,
 * `ask_when`, `ask_always`, the tool's own check, and the default for tools
 * that say nothing). Any error inside blocks the call.
 */
export function createCallEvaluator(options: { policy: Policy; openWorld: boolean; sections?: readonly PolicySection[]; pathForms?: PathForms | undefined }): CallEvaluator {
  const { policy } = options;
  const sections = options.sections ?? [];
  const names = new Map<string, NameFacts>();

  function factsFor(name: string): NameFacts {
    let facts = names.get(name);
    if (facts !== undefined) return facts;
    const denied = policy.filter.deny[firstMatch(policy.filter.deny, name)];
    const allowList = policy.filter.allow;
    const hiddenBy = denied ?? (allowList !== undefined && firstMatch(allowList, name) === -1 ? 'not-allowed' : undefined);
    facts = { hiddenBy, askWhen: policy.askWhen[firstMatch(policy.askWhen, name)], unsafe: unsafeToolName(name) };
    if (names.size >= MAX_CACHED_NAMES) names.clear();
    names.set(name, facts);
    return facts;
  }

  function evaluate(call: ToolCall, context: GateContext, tool: ToolDeclaration | undefined): EvaluatedVerdict | Promise<EvaluatedVerdict> {
    const failed = (error: unknown): EvaluatedVerdict => {
      const reason = `evaluating ${String(call?.tool)} failed: ${errorMessage(error)}; blocked to fail closed`;
      return { kind: 'block', rule: null, reason, trace: [{ rule: 'gate', decision: 'block', reason }], dangerous: false };
    };
    try {
      const verdict = evaluateUnguarded(call, context, tool);
      return verdict instanceof Promise ? verdict.catch(failed) : verdict;
    } catch (error) {
      return failed(error);
    }
  }

  function evaluateUnguarded(call: ToolCall, context: GateContext, tool: ToolDeclaration | undefined): EvaluatedVerdict | Promise<EvaluatedVerdict> {
    const name = call.tool;
    if (typeof name !== 'string' || name === '') {
      const reason = 'the call names no tool; blocked';
      return { kind: 'block', rule: null, reason, trace: [{ rule: 'gate', decision: 'block', reason }], dangerous: false };
    }
    // A tool's other names (aliases) are judged by the same name rules: hidden
    // if any is denied, and each one's tool rule and ask_when speak.
    const aliases = tool?.aliases === undefined || tool.aliases === null ? NO_ALIASES : tool.aliases.filter((alias) => typeof alias === 'string' && alias !== name);
    const facts = aliases.length === 0 ? factsFor(name) : combinedFacts(name, aliases);
    if (facts.unsafe !== undefined) {
      const reason = `the tool name ${JSON.stringify(sanitizeTerminalText(name))} ${facts.unsafe}; blocked: a name that can pass for another is never judged as written`;
      return { kind: 'block', rule: null, reason, trace: [{ rule: 'gate', decision: 'block', reason }], dangerous: false };
    }
    if (facts.hiddenBy !== undefined) {
      const rule = facts.hiddenBy === 'not-allowed' ? 'filter.allow' : facts.hiddenBy.label;
      const reason =
        facts.hiddenBy === 'not-allowed'
          ? `${name} is not available: it matches no pattern in filter.allow`
          : `${name} is not available: it is hidden by ${rule} (${JSON.stringify(facts.hiddenBy.pattern.source)})`;
      return { kind: 'block', rule, reason, trace: [{ rule, decision: 'hide', reason }], dangerous: false };
    }
    if (tool === undefined && !options.openWorld) {
      const reason = `${name} is not a known tool; blocked`;
      return { kind: 'block', rule: null, reason, trace: [{ rule: 'gate', decision: 'block', reason }], dangerous: false };
    }

    const sources: Source[] = [];
    const toolRule = policy.tools.get(name);
    if (toolRule !== undefined) sources.push(policySource(name, toolRule, call.args, options.pathForms));
    for (const alias of aliases) {
      const aliasRule = policy.tools.get(alias);
      if (aliasRule !== undefined) sources.push(policySource(name, aliasRule, call.args, options.pathForms));
    }
    if (facts.askWhen !== undefined) {
      sources.push({ decision: 'ask', rule: facts.askWhen.label, reason: `${name} matches ${JSON.stringify(facts.askWhen.pattern.source)}`, required: true });
    }
    if (policy.askAlways) sources.push({ decision: 'ask', rule: 'ask_always', reason: 'every call asks (ask_always)', required: true });
    let judged: Judged = toolRule !== undefined ? 'tool-rule' : 'nothing';
    let notices: string[] | undefined;
    for (const section of sections) {
      const judgement = section(call, tool);
      if (judgement === undefined) continue;
      if (judgement.notice !== undefined) (notices ??= []).push(judgement.notice);
      for (const verdict of judgement.verdicts) {
        sources.push({
          decision: verdict.decision,
          rule: verdict.rule,
          reason: verdict.reason,
          required: verdict.required,
          description: verdict.description,
          ...(verdict.request === undefined ? {} : { request: verdict.request }),
        });
        if (verdict.dangerous === true) judged = 'section-dangerous';
        else if (judged === 'nothing' || judged === 'tool-rule') judged = 'section';
      }
    }

    const declared = tool !== undefined && declaresApproval(tool);
    // Allowed calls take this path without a closure or a promise: it is the gate's hot path.
    if (!declared) return conclude(name, call, tool, sources, aliases, judged, declared, notices);
    return runToolChecks({ tool: tool!, call, context, timeoutMs: policy.checkTimeoutMs, redactKeys: policy.redact.keys }).then((outcomes) => {
      for (const outcome of outcomes) sources.push({ ...outcome, required: outcome.decision === 'ask' ? outcome.request.required : true });
      return conclude(name, call, tool, sources, aliases, judged, declared, notices);
    });
  }

  /** The fallback for a tool nothing speaks for, then precedence over every source (positional: it runs on every call). */
  function conclude(
    name: string,
    call: ToolCall,
    tool: ToolDeclaration | undefined,
    sources: Source[],
    aliases: readonly string[],
    judged: Judged,
    declared: boolean,
    notices: readonly string[] | undefined,
  ): EvaluatedVerdict {
    let dangerous = judged === 'section-dangerous';
    if (judged === 'nothing' && !declared && aliases.every((alias) => !policy.tools.has(alias))) {
      const keyword = dangerousKeyword(name, tool?.description, policy.unknownTools.dangerousKeywords);
      dangerous = keyword !== undefined;
      const fallback = policy.unknownTools.decision;
      if (fallback === 'allow' && dangerous) {
        sources.push({ decision: 'ask', rule: 'unknown_tools.dangerous_keywords', reason: `${name} looks dangerous (mentions ${JSON.stringify(keyword)})`, required: true });
      } else {
        const why = dangerous ? ` and looks dangerous (mentions ${JSON.stringify(keyword)})` : '';
        sources.push({ decision: fallback, rule: 'unknown_tools.decision', reason: `${name} has no rule and declares no approval of its own${why}`, required: true });
      }
    }
    return combine({ name, call, tool, sources, notices, redactKeys: policy.redact.keys, dangerous });
  }

  /** Hidden when any name is denied, or when the allow list admits none of them. */
  function combinedFacts(name: string, aliases: readonly string[]): NameFacts {
    const all = [name, ...aliases].map(factsFor);
    const denied = all.find((facts) => facts.hiddenBy !== undefined && facts.hiddenBy !== 'not-allowed')?.hiddenBy;
    const hiddenBy = denied ?? (all.every((facts) => facts.hiddenBy === 'not-allowed') ? 'not-allowed' : undefined);
    return { hiddenBy, askWhen: all.find((facts) => facts.askWhen !== undefined)?.askWhen, unsafe: all[0]!.unsafe };
  }

  return {
    evaluate,
    isHidden: (name, aliases = []) => {
      const facts = aliases.length === 0 ? factsFor(name) : combinedFacts(name, aliases);
      return facts.hiddenBy !== undefined || facts.unsafe !== undefined;
    },
  };
}

function policySource(name: string, toolRule: ToolRule, args: unknown, pathForms: PathForms | undefined): Source {
  const judged = toolRule.rules.length === 0 ? undefined : judgeArgumentRules(toolRule, args, pathForms);
  if (judged?.kind === 'matched') {
    const { rule } = judged;
    return {
      decision: rule.decision,
      rule: rule.label,
      reason: rule.reason ?? `${name} arguments match ${describeConditions(rule)}`,
      required: rule.required,
      description: rule.description ?? toolRule.description,
    };
  }
  // Never a soft ask: strict mode must not approve what the policy could not judge.
  if (judged?.kind === 'unsure') return { decision: 'ask', rule: judged.rule.label, reason: judged.reason, required: true, description: judged.rule.description ?? toolRule.description };
  return {
    decision: toolRule.decision,
    rule: toolRule.label,
    reason: toolRule.reason ?? `${toolRule.label} is ${toolRule.decision}`,
    required: toolRule.required,
    description: toolRule.description,
  };
}

/**
 * Precedence: any block blocks, any ask asks, otherwise allow. Every verdict
 * is built whole, in one field order per kind (`dangerous` last, as in the
 * early returns above): the gate reads them on its hot path, where a
 * property added afterwards would give each kind a second shape.
 */
function combine(options: {
  name: string;
  call: ToolCall;
  tool: ToolDeclaration | undefined;
  sources: Source[];
  notices: readonly string[] | undefined;
  redactKeys: ReadonlySet<string>;
  dangerous: boolean;
}): EvaluatedVerdict {
  const { name, call, sources, dangerous } = options;
  const trace: MatchedRule[] = sources.map((source) => ({ rule: source.rule, decision: source.decision, reason: source.reason }));
  const block = sources.find((source) => source.decision === 'block');
  if (block !== undefined) return { kind: 'block', rule: block.rule, reason: block.reason, trace, dangerous };
  const asks = sources.filter((source) => source.decision === 'ask');
  if (asks.length > 0) {
    const rich = asks.find((source) => source.request !== undefined)?.request;
    // The policy's description of the tool (or of the matching argument rule) is what the person reads, whoever asks.
    const chosen = sources.find((source) => source.description !== undefined && source.description !== '')?.description;
    const required = asks.some((source) => source.required);
    const notices = options.notices;
    let request: ApprovalRequest;
    if (rich === undefined && notices === undefined) {
      // The common ask, built once: the default description is made only when no rule describes the tool.
      request = defaultRequest({ call, description: chosen, redactKeys: options.redactKeys });
      request.required = required;
    } else {
      const base = rich ?? defaultRequest({ call, redactKeys: options.redactKeys });
      // A notice (a changed definition) goes first whichever description is chosen: a rule's description must not hide it.
      const description = notices === undefined || notices.length === 0 ? chosen : [...notices, chosen ?? base.description].join('\n\n');
      request = { ...base, ...(description === undefined ? {} : { description }), required };
    }
    const first = asks[0]!;
    return { kind: 'ask', request, rule: first.rule, reason: first.reason, trace, dangerous };
  }
  const allow = sources[0];
  if (allow === undefined) {
    // Unreachable while the fallback always speaks; kept so a future edit fails closed.
    return { kind: 'block', rule: null, reason: `nothing decided ${name}; blocked to fail closed`, trace, dangerous };
  }
  return { kind: 'allow', rule: allow.rule, reason: allow.reason, trace, dangerous };
}

function dangerousKeyword(name: string, description: string | undefined, keywords: readonly string[] | undefined): string | undefined {
  if (keywords === undefined) return undefined;
  const text = `${name}\n${description ?? ''}`.toLowerCase();
  return keywords.find((keyword) => text.includes(keyword));
}
