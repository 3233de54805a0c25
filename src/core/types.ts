/**
 * The shapes every part of toolgate speaks: a tool call, the context it is
 * made in, the gate's verdict, the approval request a person sees, and the
 * decision they give. This file has no behaviour.
 */

/** A tool call as proposed by a model. `args` is whatever the model sent. */
export interface ToolCall {
  tool: string;
  args: unknown;
  callId: string;
}

/** Where a call is made. Session decisions are scoped by `sessionId` + `chatId`. */
export interface GateContext {
  sessionId: string;
  chatId?: string;
  runId?: string;
  /** Which agent or worker made the call (sub-agents share the parent's memory). */
  caller?: string;
  tags?: readonly string[];
  /** Daemon runs may auto-approve asks where the policy says `auto_approve_in_daemon`. */
  daemon?: boolean;
}

export type Decision = 'allow' | 'ask' | 'block';

export type PresentationType = 'text' | 'diff' | 'file_content' | 'command' | 'structured';

/** How a request is shown to a person. Built lazily, after the memory lookup. */
export interface Presentation {
  type: PresentationType;
  content: string;
  language?: string;
  metadata?: Record<string, unknown>;
}

/**
 * What a person is asked to decide. `payload` is the fingerprint for
 * "approve for session": the tool chooses what goes in.
 */
export interface ApprovalRequest {
  tool: string;
  description: string;
  payload: unknown;
  /** A value, or a function that builds it (called only if a person is asked). */
  presentation?: Presentation | (() => Presentation | Promise<Presentation>);
  groupId?: string;
  /** `false` marks a soft ask: strict mode approves it (seed 001). */
  required: boolean;
}

/** Which part of the policy produced a verdict, for `--explain` and the audit log. */
export interface MatchedRule {
  /** A stable label: `tools.send_email`, `filter.deny[0]`, `ask_when[1]`, `tool:needsApproval`... */
  rule: string;
  decision: Decision | 'hide';
  reason: string;
}

export type Verdict =
  | { kind: 'allow'; rule: string | null; reason: string; trace: MatchedRule[] }
  | { kind: 'ask'; request: ApprovalRequest; rule: string | null; reason: string; trace: MatchedRule[] }
  | { kind: 'block'; rule: string | null; reason: string; trace: MatchedRule[] };

export type ApprovalScope = 'once' | 'session' | 'always';

/**
 * A choice of what "approve always" covers, other than the request's payload
 * (issue 38): "this command with any arguments in this zone". A tool offers
 * it (`ToolDeclaration.alwaysScopes`) and decides later whether a call falls
 * within it (`withinAlwaysScope`); the approvals keep `match`.
 */
export interface AlwaysScope {
  /** Names the choice in a decision (`command`, `exact`); unique among one call's scopes. */
  id: string;
  /** What it covers, in words: "git push with any arguments, run in zone workspace". */
  text: string;
  /** The rule it amounts to, as people read it in the approvals list (a policy line where there is one). */
  rule: string;
  /** What the tool matches later calls against (plain JSON). */
  match: unknown;
}

/** A person's (or a mode's) answer to an approval request. */
export type ApprovalDecision =
  | {
      approved: true;
      scope: ApprovalScope;
      /** Edited arguments: what runs is what was approved. Always once-only. */
      args?: unknown;
      /**
       * With scope `always`: which of the request's `alwaysScopes` the person
       * chose (its `id`); without it, "always" covers what "for this session"
       * covers (the tool and its approval payload).
       */
      alwaysScope?: string;
      note?: string;
      /** Who decided (an authenticated approver's name), for the audit log. */
      by?: string;
    }
  | {
      approved: false;
      scope: 'once' | 'session';
      reason?: string;
      /** Stop the whole run rather than letting the model adapt (seed 004). */
      stop?: boolean;
      /**
       * Set by approvers that answer without a person (nobody at the
       * terminal): recorded with source `mode`, never as a person's denial.
       */
      automatic?: boolean;
      /** Nobody answered in time (a server's approval timeout): recorded with source `timeout`, never as a person's denial. */
      timedOut?: boolean;
      /** Who decided (an authenticated approver's name), for the audit log. */
      by?: string;
    };

/** Where a final decision came from. `timeout` is never a person's denial. */
export type DecisionSource = 'policy' | 'memory' | 'person' | 'mode' | 'timeout';

/** The final outcome of a call through the whole approval path. */
export interface Authorization {
  /** `ask` only when nobody could be asked yet (deferred runs, the simulator). */
  decision: 'allow' | 'block' | 'approved' | 'denied' | 'ask';
  source: DecisionSource;
  rule: string | null;
  reason: string;
  /** The arguments that may run: the model's, or the person's edit. */
  args: unknown;
  request?: ApprovalRequest;
  /** What the person was shown, when a person decided: what they approved is what must run. */
  presentation?: Presentation;
  /** Whether a denial should stop the run (`on_deny: stop` or the decision's own `stop`). */
  stop: boolean;
  /** The person who decided, when their approver says who (the server's authenticated approver). */
  approver?: string;
  trace: MatchedRule[];
}

export type RunMode = 'interactive' | 'approve_all' | 'strict' | 'auto_deny';
