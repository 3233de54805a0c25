import type { ElicitRequestFormParams, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import type { Approver, PresentedRequest } from '../core/approver.ts';
import { alwaysApprovalScopeText, sessionApprovalScope } from '../core/session-approval-scope.ts';
import type { AlwaysScope, ApprovalDecision } from '../core/types.ts';
import { sanitizeTerminalText } from '../core/sanitize-terminal-text.ts';

/** The form an MCP client shows for an approval (`elicitation/create`, form mode). */
export type ApprovalElicitationSchema = ElicitRequestFormParams['requestedSchema'];

/**
 * The requested schema: a required approve/deny choice, how long an approval
 * holds (this call, this session, or always when an approvals file is kept),
 * and an optional reason that the model is told on a denial.
 * Enums carry `enumNames` so older clients label the choices too.
 *
 * @example
 * approvalElicitationSchema({ allowAlways: false }).required // ['decision']
 */
export function approvalElicitationSchema(options: { allowAlways: boolean; sessionCovers?: string | undefined; offerReveal?: boolean }): ApprovalElicitationSchema {
  const decisions = options.offerReveal === true ? ['approve', 'deny', 'reveal'] : ['approve', 'deny'];
  // The letters are the terminal's and the web inbox's keys for the same answers.
  const decisionNames = options.offerReveal === true ? ['Approve', 'Deny (n)', 'Show the masked secrets first'] : ['Approve', 'Deny (n)'];
  const scopes = options.allowAlways ? ['once', 'session', 'always'] : ['once', 'session'];
  const scopeNames = options.allowAlways
    ? ['This call only (y)', 'For the rest of this session (s; asks you to confirm)', 'Always (a; asks you to confirm; saved until revoked with `toolgate approvals`)']
    : ['This call only (y)', 'For the rest of this session (s; asks you to confirm)'];
  return {
    type: 'object',
    properties: {
      decision: {
        type: 'string',
        title: 'Decision',
        description: options.offerReveal === true ? 'Run this tool call, refuse it, or see the masked secret values before deciding' : 'Run this tool call, or refuse it',
        enum: decisions,
        enumNames: decisionNames,
      },
      scope: {
        type: 'string',
        title: 'Remember approval',
        description:
          options.sessionCovers === undefined
            ? 'How long an approval holds; it stops holding if the tool definition changes'
            : `How long an approval holds. "For the rest of this session" covers ${options.sessionCovers}. It stops holding if the tool definition changes`,
        enum: scopes,
        enumNames: scopeNames,
        default: 'once',
      },
      reason: { type: 'string', title: 'Reason (optional)', description: 'Told to the model when you deny', maxLength: 1000 },
    },
    required: ['decision'],
  };
}

/**
 * Turns a client's answer into a decision, failing closed: only an explicit
 * `accept` with `decision: "approve"` approves; decline, cancel, and anything
 * malformed deny (with the person's reason, when they gave one).
 *
 * @example
 * decisionFromElicitation({ result: { action: 'accept', content: { decision: 'approve', scope: 'session' } }, allowAlways: false })
 * // { approved: true, scope: 'session' }
 */
export function decisionFromElicitation(options: { result: ElicitResult; allowAlways: boolean }): ApprovalDecision {
  const { result } = options;
  const content = result.content ?? {};
  const reason = typeof content.reason === 'string' && content.reason.trim() !== '' ? content.reason.trim() : undefined;
  if (result.action === 'decline') return { approved: false, scope: 'once', reason: reason ?? 'declined in the MCP client' };
  if (result.action === 'cancel') return { approved: false, scope: 'once', reason: reason ?? 'the approval dialog was dismissed' };
  if (result.action !== 'accept') return { approved: false, scope: 'once', reason: 'the MCP client gave an unknown answer' };
  if (content.decision === 'deny') return reason === undefined ? { approved: false, scope: 'once' } : { approved: false, scope: 'once', reason };
  if (content.decision !== 'approve') return { approved: false, scope: 'once', reason: 'the approval form came back without "approve"' };
  const scope = content.scope ?? 'once';
  if (scope === 'once' || scope === 'session' || (scope === 'always' && options.allowAlways)) {
    return reason === undefined ? { approved: true, scope } : { approved: true, scope, note: reason };
  }
  return { approved: false, scope: 'once', reason: `the approval form came back with an unknown scope ${JSON.stringify(scope)}` };
}

export interface ElicitationApproverOptions {
  /** Sends `elicitation/create` to the client; `signal` aborts when the approval times out or the call is cancelled. */
  elicit: (params: ElicitRequestFormParams, options: { signal: AbortSignal }) => Promise<ElicitResult>;
  /** The text shown to the person; with `revealSecrets`, secret values are shown as they are (the person asked to see them). */
  message: (request: PresentedRequest, options?: { revealSecrets: boolean }) => string;
  /** Offer "always" (the gateway keeps an approvals file). */
  allowAlways: boolean;
}

/**
 * An approver that asks the person through the MCP client itself, with
 * `elicitation/create`: the client shows the message and a small form
 * (`approvalElicitationSchema`) and answers accept, decline or cancel.
 *
 * @example
 * const approver = createElicitationApprover({
 *   elicit: (params, { signal }) => server.elicitInput(params, { signal, relatedRequestId }),
 *   message: (request) => approvalMessage({ request, context }),
 *   allowAlways: true,
 * });
 */
export function createElicitationApprover(options: ElicitationApproverOptions): Approver {
  return {
    async ask(request, { signal }) {
      // Where "session" is offered, the form says what it covers (for a file write: any later content for that path).
      const covers = sessionCovers(request);
      // Secrets are masked in the dialog; the person deciding may ask to see them, in a second dialog.
      const offerReveal = maskedSecrets(request) > 0;
      const requestedSchema = approvalElicitationSchema({ allowAlways: options.allowAlways, sessionCovers: covers, offerReveal });
      const result = await options.elicit({ mode: 'form', message: options.message(request), requestedSchema }, { signal });
      let decision: ApprovalDecision;
      if (!offerReveal || result.action !== 'accept' || result.content?.decision !== 'reveal') decision = decisionFromElicitation({ result, allowAlways: options.allowAlways });
      else {
        const revealed = await options.elicit(
          { mode: 'form', message: options.message(request, { revealSecrets: true }), requestedSchema: approvalElicitationSchema({ allowAlways: options.allowAlways, sessionCovers: covers }) },
          { signal },
        );
        // A second "reveal" (or anything else unknown) is not an approval: decisionFromElicitation denies it.
        decision = decisionFromElicitation({ result: revealed, allowAlways: options.allowAlways });
      }
      if (!decision.approved || decision.scope === 'once') return decision;
      // As in the terminal and the web inbox, a wide approval takes a second step that says what it covers.
      const scope = decision.scope;
      const text = scope === 'session' ? covers : sanitizeTerminalText(alwaysApprovalScopeText(request, covers));
      // "Always" may cover less (this exact call) or more (the tool's wider rule): the second step offers each, narrowest first.
      const choices = scope === 'always' ? (request.alwaysScopes ?? []).filter((choice) => /^[a-z][a-z0-9_-]{0,31}$/.test(String(choice?.id))).slice(0, 8) : [];
      const confirmed = await options.elicit({ mode: 'form', message: wideApprovalMessage(scope, text), requestedSchema: wideApprovalSchema(scope, choices) }, { signal });
      return decisionFromConfirmation({ result: confirmed, decision, offered: choices.map((choice) => choice.id) });
    },
  };
}

/** The second step's text: what the wide approval lets run without asking. */
export function wideApprovalMessage(scope: 'session' | 'always', covers: string): string {
  return `${scope === 'session' ? '“For this session”' : '“Always”'} lets these run without asking: ${covers}.`;
}

/**
 * The second step's form: approve that widely, or only this call. Declining
 * it denies.
 *
 * @example
 * wideApprovalSchema('always').required // ['confirm']
 */
export function wideApprovalSchema(scope: 'session' | 'always', choices: ReadonlyArray<Omit<AlwaysScope, 'match'>> = []): ApprovalElicitationSchema {
  if (scope === 'always' && choices.length > 0) {
    // Narrowest first, as the terminal numbers them and the web inbox lists them: the exact call, calls like this one, the wider rule.
    const exact = choices.filter((choice) => choice.id === 'exact');
    const wider = choices.filter((choice) => choice.id !== 'exact');
    const values = [...exact.map((choice) => `always:${choice.id}`), 'yes', ...wider.map((choice) => `always:${choice.id}`), 'once'];
    const names = [
      ...exact.map((choice) => sanitizeTerminalText(`Always, only this exact call: ${choice.text}`, { collapse: true })),
      'Always, calls like this one (as said above) (a)',
      ...wider.map((choice) => sanitizeTerminalText(`Always, wider: ${choice.text} — rule: ${choice.rule}`, { collapse: true })),
      'No: this call only (y)',
    ];
    return { type: 'object', properties: { confirm: { type: 'string', title: 'Approve always? Which calls?', enum: values, enumNames: names, default: values[0]! } }, required: ['confirm'] };
  }
  return {
    type: 'object',
    properties: {
      confirm: {
        type: 'string',
        title: scope === 'session' ? 'Approve for this session?' : 'Approve always?',
        enum: ['yes', 'once'],
        enumNames: [scope === 'session' ? 'Yes, for this session (s)' : 'Yes, always (a)', 'No: this call only (y)'],
      },
    },
    required: ['confirm'],
  };
}

/**
 * The wide approval once its second step answered: `yes` keeps it, `once`
 * narrows it to this call, anything else (decline, cancel, malformed) denies.
 */
export function decisionFromConfirmation(options: { result: ElicitResult; decision: ApprovalDecision & { approved: true }; offered?: readonly string[] }): ApprovalDecision {
  const { result, decision } = options;
  const name = decision.scope === 'session' ? '“For this session”' : '“Always”';
  if (result.action !== 'accept') return { approved: false, scope: 'once', reason: `${name} was not confirmed (${result.action === 'decline' ? 'declined' : 'dismissed'} in the MCP client)` };
  if (result.content?.confirm === 'yes') return decision;
  const confirm = result.content?.confirm;
  if (decision.scope === 'always' && typeof confirm === 'string' && confirm.startsWith('always:') && (options.offered ?? []).includes(confirm.slice('always:'.length))) {
    return { ...decision, alwaysScope: confirm.slice('always:'.length) };
  }
  if (result.content?.confirm === 'once') return { ...decision, scope: 'once' };
  return { approved: false, scope: 'once', reason: `the confirmation of ${name} came back without an answer` };
}

/** How many values the request's presentation masked (`metadata.masked_secrets`). */
function maskedSecrets(request: PresentedRequest): number {
  const metadata = request.presentation?.metadata;
  const count = metadata === undefined ? undefined : metadata.masked_secrets;
  return typeof count === 'number' && Number.isFinite(count) && count > 0 ? count : 0;
}

/** The sentence from the one function every approver uses, sanitized: it quotes payload values the model chose. */
function sessionCovers(request: PresentedRequest): string {
  try {
    return sanitizeTerminalText(sessionApprovalScope({ request, call: request.call }).text);
  } catch {
    return 'later calls with an equal approval payload';
  }
}
