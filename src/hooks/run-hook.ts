/**
 * The hook process, failing closed by construction. Every host measured here
 * lets a call run when its hook crashes, times out or prints something it
 * cannot read (`../shared/research/agent-hosts-offline.md`), so nothing
 * toolgate does may end in any of those: the input is read with a size
 * limit, every throw becomes the host's blocking answer (`dialect.fail`),
 * and a deadline below the host's own answers "blocked" before the host
 * gives up on the hook. Exactly one answer is written.
 */
import type { LoadedPolicy } from '../config/load-policy-file.ts';
import type { RunMode } from '../core/types.ts';
import { lastUserMessageIn } from './host-transcript.ts';
import { DOCTOR_PROBE_TOOL, HostInputError } from './host-call.ts';
import { quoteShellWord } from '../core/quote-shell-word.ts';
import { asksItsUserFor, dialectFor, type HookAnswer, type HostDialect, type HostInput } from './host-dialect.ts';
import type { AuditEntry, AuditSink } from '../core/audit-entry.ts';
import type { AuditLog } from '../audit/audit-log.ts';

/** The largest input read: a Write of a big file is large, but not this large. */
export const MAX_HOOK_INPUT_BYTES = 32 * 1024 * 1024;

/** How much sooner than the host's budget the hook answers by itself: time to print, exit and be read. */
const DEADLINE_MARGIN_MS = 2_000;

export interface RunHookOptions {
  dialect: HostDialect;
  stdin: NodeJS.ReadableStream;
  /** Loads the policy (where the hook was told, or found for the call: its directory, and where its session began). */
  loadPolicy: (cwd: string, input: HostInput) => Promise<LoadedPolicy>;
  env: Readonly<Record<string, string | undefined>>;
  /** The host's budget for the hook, in ms (its `timeout`); the dialect's default when absent. */
  budgetMs?: number;
  mode?: RunMode;
  /**
   * `--approver server`: the call goes to `toolgate serve` (`POST
   * <url>/hooks/<host>`), which judges it and, when it asks, waits for a
   * person in its inbox; the policy is the server's.
   */
  server?: { url: string; token: string };
  /** The program the hook was started as, absolute where it is a path (one of toolgate's own files); default this process's. */
  argv0?: string;
}

/** What a decision in progress is told when the hook has answered without it (its deadline): what it still does is dropped. */
type Ended = { signal: AbortSignal };

/**
 * Reads the host's call, decides it and returns the one answer to print.
 * Never throws and never answers after its deadline.
 *
 * @example
 * const answer = await runHook({ dialect: claudeCode, stdin: process.stdin, loadPolicy, env: process.env });
 * process.stdout.write(answer.stdout); process.stderr.write(answer.stderr); process.exitCode = answer.exitCode;
 */
export async function runHook(options: RunHookOptions): Promise<HookAnswer> {
  // The dialect of the input's event, once it is read (Copilot CLI's permissionRequest answers in its own form): each answer is in it.
  let dialect = options.dialect;
  const budgetMs = options.budgetMs ?? dialect.defaultBudgetMs;
  const deadlineMs = Math.max(500, budgetMs - Math.min(DEADLINE_MARGIN_MS, budgetMs / 4));
  let timer: NodeJS.Timeout | undefined;
  // Not unref'd: while toolgate decides, this timer is what keeps the process from ending with no answer (which a host reads as "go on").
  const deadline = new Promise<HookAnswer>((resolve) => {
    timer = setTimeout(
      () => resolve(dialect.fail(`no decision within ${seconds(deadlineMs)} (the hook's deadline, under ${dialect.title}'s ${seconds(budgetMs)} budget): the call is blocked`)),
      deadlineMs,
    );
  });
  // A hook process exits with its answer, and whatever was still under way with it; a decider (src/cli/hook-decider.ts) lives
  // on, so what is still under way is told to stop: a request to the server is abandoned, a late decision is not recorded.
  const ended = new AbortController();
  try {
    return await Promise.race([decide(options, ended, (read) => (dialect = read)), deadline]);
  } catch (error) {
    return dialect.fail(failureText(error));
  } finally {
    clearTimeout(timer);
    ended.abort();
  }
}

async function decide(options: RunHookOptions, ended: Ended, answeringIn: (dialect: HostDialect) => void): Promise<HookAnswer> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readInput(options.stdin));
  } catch (error) {
    if (error instanceof HostInputError) throw error;
    throw new HostInputError(`the input is not JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  const dialect = dialectFor(options.dialect, parsed);
  answeringIn(dialect);
  options = { ...options, dialect };
  // The shell the host runs this command with, as the hook (in the host's environment, as its user) can tell.
  const read = dialect.read(parsed);
  const details = dialect.detailsOf(read, options.env);
  const input = { ...read, shell: details.shell, ...(details.options === undefined ? {} : { options: details.options }) };
  if (options.server !== undefined) {
    // Decided here first where this machine has a policy for the call: what it allows or blocks is answered at once, the
    // server up or down, and kept for the server's audit log; only an ask goes to the server, for a person. doctor's probe
    // goes to the server, whose answer it checks.
    if (input.hostTool !== DOCTOR_PROBE_TOOL) {
      const local = await decideLocally(options, input, ended);
      if (local !== undefined && local.decision !== 'ask') return dialect.answer(local);
    }
    // The hook runs as the user and can read the host's transcript; the server is shown what it found, nothing else of it.
    const lastUserMessage = input.transcriptPath === undefined ? undefined : lastUserMessageIn(input.transcriptPath);
    return forward(options, ended, input, { ...(parsed as object), toolgate_shell: input.shell ?? null, ...(input.options === undefined ? {} : { toolgate_call_options: input.options }), ...(lastUserMessage === undefined ? {} : { toolgate_last_user_message: lastUserMessage }) });
  }
  const loaded = await options.loadPolicy(input.cwd, input);
  const asksItsUser = asksItsUserFor(dialect, input);
  const asks = asksItsUser
    ? { by: 'host' as const }
    : {
        by: 'nobody' as const,
        // The situation and who could decide; never a rule that allows the call: its author wanted a person asked.
        why: (request: { description: string }) =>
          `${dialect.title} cannot ask a person from its hook (${request.description}), so nobody who can approve it is reachable and it did not run. ` +
          `A person can decide such calls in toolgate serve's web inbox: install the hook with \`toolgate install ${dialect.name} --approver server --server URL\``,
      };
  // Loaded only here: the judge (policy parser, shell analysis, gate) is most of what a hook process loads, and one that forwards to the server needs none of it.
  const [{ createHostJudge }, { recordHostAnswers, rememberHostAsk }, log] = await Promise.all([import('./decide-host-call.ts'), import('./host-prompt-answers.ts'), openAuditLog(loaded)]);
  // The entry of a call left to the host's prompt: what its answer, read from the transcript later, completes.
  let asked: AuditEntry | undefined;
  const audit: AuditSink | undefined =
    log === undefined
      ? undefined
      : {
          async record(entry) {
            if (ended.signal.aborted) return;
            await log.record(entry);
            if (entry.decision === 'ask') asked = entry;
          },
        };
  const judge = await createHostJudge({ loaded, env: options.env, cwd: input.cwd, ...(audit === undefined ? {} : { audit }), ...(options.mode === undefined ? {} : { mode: options.mode }), ...(options.argv0 === undefined ? {} : { argv0: options.argv0 }) });
  try {
    // doctor's and install's probe: the policy loaded and the judge stood up, which is what it checks; it is no call, and not recorded as one.
    if (input.hostTool === DOCTOR_PROBE_TOOL) return dialect.answer({ decision: 'deny', reason: `toolgate doctor's probe call, answered with the policy ${loaded.path} (a probe runs nothing)` });
    // What the person answered in the host's own prompt to this session's earlier asks, now in its transcript.
    if (audit !== undefined && asksItsUser) await recordHostAnswers({ env: options.env, input, audit });
    const verdict = await judge.decide(input, asks);
    if (verdict.decision === 'ask' && asked !== undefined && asksItsUser) rememberHostAsk({ env: options.env, input, entry: asked });
    return dialect.answer({ decision: verdict.decision, reason: verdict.reason, updatedInput: verdict.updatedInput });
  } finally {
    await judge.close();
    await log?.close();
  }
}

/**
 * The call judged by the policy this machine has for it (`loadPolicy`:
 * `--policy`, else the project's trusted one or the user's), each decision
 * recorded in that policy's audit log and kept for the server's. Undefined
 * where there is no such policy (or it cannot be loaded): the server judges
 * the call.
 */
async function decideLocally(options: RunHookOptions, input: HostInput, ended: Ended): Promise<{ decision: 'allow' | 'deny' | 'ask'; reason: string; updatedInput?: Record<string, unknown> | undefined } | undefined> {
  let loaded: LoadedPolicy;
  try {
    loaded = await options.loadPolicy(input.cwd, input);
  } catch {
    return undefined;
  }
  const [{ createHostJudge }, { keepForServer }, log] = await Promise.all([import('./decide-host-call.ts'), import('./hook-outbox.ts'), openAuditLog(loaded)]);
  const audit: AuditSink = {
    async record(entry) {
      if (ended.signal.aborted) return;
      await log?.record(entry);
      keepForServer({ env: options.env, entry });
    },
  };
  const judge = await createHostJudge({ loaded, env: options.env, cwd: input.cwd, audit, ...(options.mode === undefined ? {} : { mode: options.mode }), ...(options.argv0 === undefined ? {} : { argv0: options.argv0 }) });
  try {
    const verdict = await judge.decide(input, { by: 'host' });
    // With the command it runs instead, where the policy wraps it (sandbox.hosts: wrap): dropping it ran it unconfined (found on review).
    return { decision: verdict.decision, reason: verdict.reason, updatedInput: verdict.updatedInput };
  } finally {
    await judge.close();
    await log?.close();
  }
}

/** The policy's audit log, opened (loaded only by a hook that judges a call itself); undefined where the policy turns it off. */
async function openAuditLog(loaded: LoadedPolicy): Promise<AuditLog | undefined> {
  if (loaded.policy.document.audit?.enabled === false) return undefined;
  const [{ createAuditLog }, { auditLogPath }] = await Promise.all([import('../audit/audit-log.ts'), import('../config/load-policy-file.ts')]);
  return createAuditLog({ path: auditLogPath(loaded) });
}

/** The server's answer, checked: a 200 with the host's PreToolUse JSON, or the call is blocked. */
async function forward(options: RunHookOptions, ended: Ended, input: HostInput, body: Record<string, unknown>): Promise<HookAnswer> {
  const { dialect } = options;
  const server = options.server!;
  const budgetSeconds = Math.round((options.budgetMs ?? dialect.defaultBudgetMs) / 1000);
  const url = `${server.url.replace(/\/+$/, '')}/hooks/${dialect.name}?timeout=${budgetSeconds}`;
  // The decisions made here since the last request go with this one, for the server's audit log.
  const { takeForServer } = await import('./hook-outbox.ts');
  const waiting = takeForServer({ env: options.env });
  // node:http, not fetch: fetch loads undici, which costs a hook process more than the whole request.
  let reply: { status: number; text: string; recorded: string | undefined };
  try {
    reply = await post(url, server.token, ended.signal, JSON.stringify(waiting.entries.length === 0 ? body : { ...body, toolgate_local_decisions: waiting.entries }));
  } catch (error) {
    waiting.unsent();
    throw new Error(`toolgate serve at ${server.url} could not be reached (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  const { text } = reply;
  if (reply.status !== 200) {
    waiting.unsent();
    throw new Error(`toolgate serve at ${server.url} answered ${reply.status}: ${text.slice(0, 300)}`);
  }
  // Kept until the server says it recorded them all (a refused token is answered 200 too, with a denial).
  if (Number(reply.recorded) === waiting.entries.length) waiting.sent();
  else waiting.unsent();
  let answer: unknown;
  try {
    answer = JSON.parse(text);
  } catch {
    throw new Error(`toolgate serve at ${server.url} answered what is not JSON: ${text.slice(0, 300)}`);
  }
  // The server answers in the host's dialect.
  const found = dialect.decisionIn(answer);
  if (found === undefined) throw new Error(`toolgate serve at ${server.url} answered no decision: ${text.slice(0, 300)}`);
  const { decision, reason, updatedInput } = found;
  // A changed input is taken only as the agent's own command wrapped in the sandbox (sandbox.hosts: wrap): the server may allow
  // or deny the agent's call, not put another in its place.
  if (updatedInput !== undefined && !wrapsCommandOf(updatedInput, input.toolInput)) throw new Error(`toolgate serve at ${server.url} answered with a call other than the agent's (not its command in toolgate's sandbox)`);
  // The server answers in the host's dialect already ("toolgate: ..."); told on as it is (the command it wraps too), and never "ask" where the host cannot ask.
  return dialect.answer({ decision: decision === 'ask' && !asksItsUserFor(dialect, input) ? 'deny' : decision, reason: reason.replace(/^toolgate: /, ''), updatedInput });
}

/**
 * Whether `changed` is `original` with its command run inside bubblewrap:
 * every other field the same, and the command `…/bwrap OPTIONS -- …/bash -c
 * 'COMMAND'`, COMMAND the original, quoted as toolgate quotes it.
 */
function wrapsCommandOf(changed: Record<string, unknown>, original: Record<string, unknown>): boolean {
  const { command: wrapped, ...rest } = changed;
  const { command, ...originalRest } = original;
  if (typeof wrapped !== 'string' || typeof command !== 'string' || JSON.stringify(rest) !== JSON.stringify(originalRest)) return false;
  const tail = ` -c ${quoteShellWord(command)}`;
  const match = /^\/[^\s]*\/bwrap .* -- (\/[^\s]*\/bash)$/s.exec(wrapped.endsWith(tail) ? wrapped.slice(0, -tail.length) : '');
  return match !== null;
}

/** One POST with the bearer token; the status, the body's text, and how many reported decisions the server recorded. */
async function post(url: string, token: string, signal: AbortSignal, body: string): Promise<{ status: number; text: string; recorded: string | undefined }> {
  const target = new URL(url);
  // process.getBuiltinModule, not import(): an ESM import of node:http reads every export, and one of them loads
  // undici (25 ms of a hook's start); this module object reads none.
  const { request } = target.protocol === 'https:' ? process.getBuiltinModule('node:https') : process.getBuiltinModule('node:http');
  return new Promise((resolve, reject) => {
    const sent = request(target, { method: 'POST', signal, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      const recorded = response.headers['x-toolgate-recorded'];
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), recorded: Array.isArray(recorded) ? recorded[0] : recorded }));
      response.on('error', reject);
    });
    sent.on('error', reject);
    sent.end(body);
  });
}

async function readInput(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    size += buffer.length;
    if (size > MAX_HOOK_INPUT_BYTES) throw new HostInputError(`the input is larger than ${MAX_HOOK_INPUT_BYTES} bytes`);
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function failureText(error: unknown): string {
  if (error instanceof HostInputError) return `the hook's input could not be read as a call: ${error.message}; the call is blocked`;
  const message = error instanceof Error ? error.message : String(error);
  return `toolgate could not decide this call (${message}); the call is blocked`;
}

function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}
