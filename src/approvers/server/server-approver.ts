/**
 * An approver that asks in `toolgate serve`'s inbox (`POST /asks`): the
 * gate that judged the call (the MCP gateway's `--approver server`) keeps
 * its policy and runs the call; a person on the team decides it in the web
 * inbox, from any device. Each ask has its own id, so a request repeated
 * after the server's wait (`pending`) waits for the same card; when the gate
 * stops waiting (its approval timeout, a cancelled call), the card's run is
 * cancelled, so that nobody approves what no longer waits.
 *
 * Fails closed: an unreachable server, a refused token or an answer that is
 * not a decision throws, and the gate denies.
 */
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { Approver, PresentedRequest } from '../../core/approver.ts';
import type { ApprovalDecision } from '../../core/types.ts';

/** How long one request waits at the server before it answers `pending` and is made again. */
const WAIT_SECONDS = 50;
/** How long the cancel of an abandoned ask may take. */
const CANCEL_TIMEOUT_MS = 5_000;

const decisionShape = z.union([
  z.object({ approved: z.literal(true), scope: z.enum(['once', 'session', 'always']), args: z.unknown().optional(), alwaysScope: z.string().optional(), note: z.string().optional(), by: z.string().optional() }),
  z.object({
    approved: z.literal(false),
    scope: z.enum(['once', 'session']),
    reason: z.string().optional(),
    stop: z.boolean().optional(),
    automatic: z.boolean().optional(),
    by: z.string().optional(),
  }),
]);

const answerShape = z.discriminatedUnion('status', [
  z.object({ status: z.literal('pending'), run_id: z.string() }),
  z.object({ status: z.literal('decided'), run_id: z.string(), decision: decisionShape }),
  z.object({ status: z.literal('ended'), run_id: z.string(), run_status: z.string(), reason: z.string() }),
]);

export interface ServerApproverOptions {
  /** The server's base URL (`http://127.0.0.1:8080`). */
  url: string;
  /** A submitter's token (`toolgate token create NAME --role submitter`). */
  token: string;
  /** Who asks, as the card says it (`toolgate mcp (client claude-code)`). */
  caller: (request: PresentedRequest) => string;
  /** When the gate stops waiting, if it does (the policy's approval timeout): the card shows it. */
  approvalTimeoutMs?: number;
  fetch?: typeof globalThis.fetch;
}

/**
 * @example
 * const approver = createServerApprover({ url: 'http://127.0.0.1:8080', token: process.env.TOOLGATE_TOKEN!, caller: () => 'toolgate mcp' });
 */
export function createServerApprover(options: ServerApproverOptions): Approver {
  const base = options.url.replace(/\/+$/, '');
  const fetch = options.fetch ?? globalThis.fetch;
  const post = async (path: string, body: unknown, signal: AbortSignal): Promise<unknown> => {
    let response: Response;
    try {
      response = await fetch(`${base}${path}`, { method: 'POST', headers: { authorization: `Bearer ${options.token}`, 'content-type': 'application/json' }, body: JSON.stringify(body), signal });
    } catch (error) {
      if (signal.aborted) throw error;
      throw new Error(`toolgate serve at ${options.url} could not be reached (${causeOf(error)})`);
    }
    const text = await response.text();
    if (response.status !== 200) throw new Error(`toolgate serve at ${options.url} answered ${response.status}: ${errorText(text)}`);
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new Error(`toolgate serve at ${options.url} answered what is not JSON: ${text.slice(0, 200)}`);
    }
  };
  return {
    async ask(request, { signal }) {
      const id = randomBytes(18).toString('base64url');
      const rule = request.askedBy;
      const body = {
        id,
        tool: request.tool,
        args: request.call.args ?? {},
        description: request.description,
        ...(request.payload === undefined ? {} : { payload: request.payload }),
        required: request.required,
        reason: rule === undefined || rule.rule === '' ? request.description : `asked by ${rule.rule}${rule.at === undefined ? '' : ` — ${rule.at}`}`,
        ...(request.presentation === undefined ? {} : { presentation: request.presentation }),
        ...(rule === undefined || rule.rule === '' ? {} : { asked_by: rule }),
        ...(request.alwaysScopes === undefined || request.alwaysScopes.length === 0 ? {} : { always_scopes: request.alwaysScopes.slice(0, 8).map(({ id, text, rule: line }) => ({ id, text, rule: line })) }),
        session_id: request.context.sessionId ?? 'default',
        caller: options.caller(request),
        ...(options.approvalTimeoutMs === undefined ? {} : { times_out_at: new Date(Date.now() + options.approvalTimeoutMs).toISOString() }),
      };
      let runId: string | undefined;
      try {
        // The first request answers at once with the card's run id, so that an ask abandoned while it waits is cancelled.
        for (let wait = 0; ; wait = WAIT_SECONDS) {
          const parsed = answerShape.safeParse(await post(`/asks?timeout=${wait}`, body, signal));
          if (!parsed.success) throw new Error(`toolgate serve at ${options.url} answered no decision: ${parsed.error.issues[0]?.message ?? 'unexpected shape'}`);
          const answer = parsed.data;
          runId = answer.run_id;
          if (answer.status === 'pending') continue;
          if (answer.status === 'ended') {
            return { approved: false, scope: 'once', automatic: true, reason: `the ask ${answer.run_id} was ${answer.run_status} in toolgate serve's inbox (${answer.reason}); it did not run` } satisfies ApprovalDecision;
          }
          return answer.decision as ApprovalDecision;
        }
      } catch (error) {
        // The gate stopped waiting (or the server failed): the card must not stay, to be approved for nothing.
        // Given up before the first answer (a stalled server), the card's run is asked for again by its id, to cancel it.
        runId ??= signal.aborted ? await runIdOf(post, body) : undefined;
        if (runId !== undefined) await cancelQuietly(post, runId);
        throw error;
      }
    },
  };
}

/** The run of an ask, by asking once more with its id (which creates it if the first request never arrived): undefined when that fails too. */
async function runIdOf(post: (path: string, body: unknown, signal: AbortSignal) => Promise<unknown>, body: unknown): Promise<string | undefined> {
  try {
    const parsed = answerShape.safeParse(await post('/asks?timeout=0', body, AbortSignal.timeout(CANCEL_TIMEOUT_MS)));
    return parsed.success ? parsed.data.run_id : undefined;
  } catch {
    return undefined;
  }
}

async function cancelQuietly(post: (path: string, body: unknown, signal: AbortSignal) => Promise<unknown>, runId: string): Promise<void> {
  try {
    await post(`/runs/${encodeURIComponent(runId)}/cancel`, {}, AbortSignal.timeout(CANCEL_TIMEOUT_MS));
  } catch {
    // The ask is denied either way; a card left behind is cancelled by nobody, and approving it runs nothing.
  }
}

function causeOf(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
  if (typeof cause?.code === 'string') return cause.code;
  if (typeof cause?.message === 'string') return cause.message;
  return error instanceof Error ? error.message : String(error);
}

function errorText(text: string): string {
  try {
    const parsed = JSON.parse(text) as { error?: unknown };
    if (typeof parsed.error === 'string') return parsed.error.slice(0, 300);
  } catch {
    // Not JSON: said as it came.
  }
  return text.slice(0, 300);
}
