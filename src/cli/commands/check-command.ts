import { createReadStream } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { createInMemoryApprovalMemory } from '../../core/approval-memory.ts';
import { presentRequest, type Approver, type PresentedRequest } from '../../core/approver.ts';
import { closestName } from '../../core/closest-name.ts';
import type { Gate } from '../../core/gate.ts';
import type { ApprovalDecision, Authorization, GateContext, RunMode } from '../../core/types.ts';
import { renderApproval } from '../../approvers/terminal/render-approval.ts';
import { sanitizeTerminalText } from '../../core/sanitize-terminal-text.ts';
import { terminalSafeJson } from '../../core/terminal-safe-json.ts';
import { createBuiltinTools } from '../../runtime/create-builtin-tools.ts';
import { createRuntimeGate } from '../../runtime/create-runtime-gate.ts';
import { createWorkerTool, WORKER_TOOL_NAME } from '../../runtime/worker-tool.ts';
import { EXIT, type CliIo } from '../cli-io.ts';
import { loadPolicyOrExplain, UsageError } from '../cli-support.ts';
import { parseCommandLine } from '../parse-command-line.ts';
import { RUN_MODE_OPTIONS, runModeFrom, runModeHelp } from '../run-mode-options.ts';
import { announcePolicy } from '../../config/policy-discovery.ts';
import { createMcpSimulation } from '../../mcp/simulated-mcp-tools.ts';
import { serverNamedRequest, type ToolOrigin } from '../../mcp/server-named-approver.ts';

type McpSimulation = ReturnType<typeof createMcpSimulation>;

export const CHECK_HELP = `Usage:
  toolgate check [--policy FILE] --tool NAME [--args JSON] [options]
  toolgate check [--policy FILE] --server NAME --tool TOOL [--args JSON] [options]
  toolgate check [--policy FILE] --batch FILE.jsonl|- [options]

What the policy does with a tool call, through the very same code path as a
real call, short of running the tool. The built-in file and shell tools (when
the policy has fs and shell sections) check the real filesystem.

Options:
  --policy FILE     the policy (default: ./toolgate.yaml, .yml or .json)
  --tool NAME       the tool to call
  --args JSON       its arguments as a JSON object (default {})
  --server NAME     the tool is TOOL of the MCP server mcp.servers.NAME, judged as
                    \`toolgate mcp\` judges it (without starting the server). A
                    namespaced name such as files__write_file needs no --server.
  --session ID      session of the call (default "check")
  --chat ID         chat of the call
${runModeHelp(17)}
  --answer ANSWER   what a person would answer if asked: once | session | deny
  --batch FILE      one call per line: {"tool", "args", "server"?, "session"?, "chat"?, "answer"?};
                    "-" reads stdin. Lines share one memory, so an "approve for
                    session" on one line applies to later lines. An audit log is
                    accepted too: its calls are replayed against this policy, with
                    the answers people gave then (an MCP gateway's calls as its
                    server's tools).
  --explain         say which rules matched and why
  --show            print the approval prompt exactly as the terminal shows it
  --json            one JSON object per call (always on with --batch)
  -h, --help        this help

Output (--json and --batch), one line per call:
  {"line": N, "tool": string,                      (--batch only: the input line)
   "decision": "allow"|"ask"|"block"|"approved"|"denied",
   "source": "policy"|"memory"|"person"|"mode"|"timeout",
   "rule": string|null, "reason": string, "note"?: string}
  With --explain, a "trace" list of every rule that spoke. A malformed batch
  line prints {"line": N, "error": "..."} and the rest still run.
  "note" says when the tool is neither toolgate's own nor in the policy: it is
  judged as a tool with no rule and no declaration (unknown_tools.decision),
  while \`toolgate run\` offers the model only its own tools and blocks a call
  to any other; for an MCP server's tool, it says what the simulation could
  not know without starting the server (its description and annotations).

Exit codes:
  0  allowed or approved (batch: every line was read)
  1  blocked or denied
  2  usage error
  3  the policy file is missing or invalid
  4  batch: some lines were malformed
  5  a person would be asked (and no --answer was given)
`;

const ANSWERS: Record<string, ApprovalDecision> = {
  once: { approved: true, scope: 'once' },
  session: { approved: true, scope: 'session' },
  deny: { approved: false, scope: 'once', reason: 'denied in the simulator' },
};

interface SimulatedCall {
  tool: string;
  args: unknown;
  /** The MCP server whose tool it is (`--server`, a batch line's or an audit line's `server`). */
  server?: string | undefined;
  /** An audit line's tool identity: lets "always" approvals bound to the definition be found. */
  identity?: string | undefined;
  session?: string;
  chat?: string;
  answer?: string;
}

/**
 * `toolgate check`: the policy simulator.
 *
 * @example
 * await runCheckCommand(['--policy', 'toolgate.yaml', '--tool', 'read_file', '--args', '{"path":"a"}'], processIo());
 */
export async function runCheckCommand(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseCommandLine({
    argv,
    options: {
      policy: { type: 'string' },
      tool: { type: 'string' },
      server: { type: 'string' },
      args: { type: 'string' },
      session: { type: 'string' },
      chat: { type: 'string' },
      ...RUN_MODE_OPTIONS,
      answer: { type: 'string' },
      batch: { type: 'string' },
      explain: { type: 'boolean' },
      show: { type: 'boolean' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    io.stdout.write(CHECK_HELP);
    return EXIT.ok;
  }
  if ((values.tool === undefined) === (values.batch === undefined)) throw new UsageError('give either --tool NAME or --batch FILE');
  if (values.batch !== undefined && (values.args !== undefined || values.answer !== undefined || values.server !== undefined)) {
    throw new UsageError('--args, --server and --answer go with --tool; in --batch files each line carries its own');
  }
  const mode = runModeFrom(values);
  if (values.answer !== undefined && ANSWERS[values.answer] === undefined) {
    throw new UsageError(`--answer must be once, session or deny, not ${JSON.stringify(values.answer)}`);
  }
  // A mistake in the arguments is a usage error, said before the policy is even read.
  let args: unknown = {};
  if (values.args !== undefined) {
    try {
      args = JSON.parse(values.args);
    } catch (error) {
      throw new UsageError(`--args is not valid JSON: ${(error as Error).message}`);
    }
    // Tool arguments are always an object: a list or a string would be judged as something no model can send.
    if (!isObject(args)) throw new UsageError(`--args must be a JSON object such as '{"path": "notes.txt"}', not ${describeJson(args)}`);
  }
  const loaded = await loadPolicyOrExplain({ policy: values.policy, io });
  // Which file, and whether an earlier run's agent could have planted it; the simulator records nothing.
  announcePolicy({ loaded, origin: values.policy === undefined ? 'found' : 'flag', cwd: io.cwd, env: io.env, write: (text) => io.stderr.write(text), record: false });
  // The built-in tools' own checks run on the real filesystem, as in a real call.
  const { tools } = await createBuiltinTools({ loaded, cwd: io.cwd });
  // call_worker is judged as `toolgate run` declares it (it never runs here).
  const worker = createWorkerTool({ askFirst: loaded.policy.tools.get(WORKER_TOOL_NAME)?.decision !== 'allow', runChild: async () => '' });
  // MCP servers' tools are judged by their section of the policy, as the gateway judges them.
  const mcp = createMcpSimulation({ loaded, env: io.env });
  const gate = createRuntimeGate({ loaded, tools: [...tools, worker], sections: [mcp.section], mode, simulate: true, memory: createInMemoryApprovalMemory() });
  const color = io.env.NO_COLOR === undefined && io.stdout.isTTY === true;
  // Where each rule was written in the policy file (`toolgate.yaml:14`), for the person reading the verdict.
  const ruleAt = (rule: string | null): string | undefined => (rule === null ? undefined : loaded.policy.ruleAt?.(rule));
  const options = { gate, io, explain: values.explain === true, show: values.show === true, color, mcp, ruleAt };
  const knownTools = [...tools.map((tool) => tool.name), worker.name, ...loaded.policy.tools.keys()];
  const noteFor = (tool: string): string | undefined => unknownToolNote({ tool, gate, knownTools, mcpServers: mcp.servers.map((server) => server.name) });

  if (values.tool !== undefined) {
    const call: SimulatedCall = { tool: values.tool, args, server: values.server, session: values.session, chat: values.chat, answer: values.answer };
    const simulated = await simulate(call, 1, options);
    if ('error' in simulated) throw new UsageError(`--server: ${simulated.error}`);
    const { result } = simulated;
    const note = simulated.note ?? noteFor(call.tool);
    if (values.json === true) io.stdout.write(`${terminalSafeJson(outputOf(result, options.explain, note, ruleAt))}\n`);
    else io.stdout.write(humanOutput(result, options.explain, note, ruleAt));
    if (result.decision === 'allow' || result.decision === 'approved') return EXIT.ok;
    return result.decision === 'ask' ? EXIT.asks : EXIT.blockedOrDenied;
  }

  const source = values.batch!;
  let lines: string[];
  try {
    lines = await readLines(source === '-' ? io.stdin : createReadStream(path.resolve(io.cwd, source)));
  } catch (error) {
    throw new UsageError(`cannot read the batch file ${source}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  const replay = replayAnswers(lines);
  let malformed = 0;
  for (const [index, text] of lines.entries()) {
    const lineNumber = index + 1;
    if (text.trim() === '') continue;
    const parsed = parseBatchLine(text, replay);
    if ('skip' in parsed) continue;
    if ('error' in parsed) {
      malformed++;
      io.stderr.write(`${safe(source === '-' ? '<stdin>' : source)}:${lineNumber}: ${safe(parsed.error)}\n`);
      io.stdout.write(`${terminalSafeJson({ line: lineNumber, error: parsed.error })}\n`);
      continue;
    }
    const simulated = await simulate({ ...parsed, session: parsed.session ?? values.session, chat: parsed.chat ?? values.chat }, lineNumber, options);
    if ('error' in simulated) {
      malformed++;
      io.stderr.write(`${safe(source === '-' ? '<stdin>' : source)}:${lineNumber}: ${safe(simulated.error)}\n`);
      io.stdout.write(`${terminalSafeJson({ line: lineNumber, error: simulated.error })}\n`);
      continue;
    }
    const note = simulated.note ?? noteFor(parsed.tool);
    // The line number and the tool first, so each output line can be matched with its input without counting.
    io.stdout.write(`${terminalSafeJson({ line: lineNumber, tool: parsed.tool, ...(parsed.server === undefined ? {} : { server: parsed.server }), ...outputOf(simulated.result, options.explain, note, ruleAt) })}\n`);
  }
  return malformed > 0 ? EXIT.badInput : EXIT.ok;
}

/**
 * One call through the gate; an MCP server's tool (named with its server, or
 * by its namespaced name) is declared as the gateway declares it for the
 * call, and the declaration it stands in for is put back afterwards, so a
 * built-in tool of the same name on the next line is judged as itself.
 */
async function simulate(
  call: SimulatedCall,
  lineNumber: number,
  options: { gate: Gate; io: CliIo; show: boolean; color: boolean; mcp: McpSimulation; ruleAt: RuleAt },
): Promise<{ result: Authorization; note: string | undefined } | { error: string }> {
  const mcpTool = options.mcp.resolve({ tool: call.tool, server: call.server, identity: call.identity });
  if (mcpTool !== undefined && 'error' in mcpTool) return mcpTool;
  if (mcpTool === undefined) return { result: await authorizeSimulated(call, lineNumber, { ...options, origin: undefined }), note: undefined };
  const { gate } = options;
  const previous = gate.tool(call.tool);
  gate.register(mcpTool.declaration);
  try {
    const origin = { server: mcpTool.entry.server.name, upstreamName: mcpTool.entry.tool.name };
    return { result: await authorizeSimulated(call, lineNumber, { ...options, origin }), note: mcpTool.note };
  } finally {
    if (previous === undefined) gate.unregister(call.tool);
    else gate.register(previous);
  }
}

async function authorizeSimulated(
  call: SimulatedCall,
  lineNumber: number,
  // An MCP server's tool: its prompt names the server first, as the gateway's does.
  options: { gate: Gate; io: CliIo; show: boolean; color: boolean; ruleAt: RuleAt; origin: ToolOrigin | undefined },
): Promise<Authorization> {
  const context: GateContext = { sessionId: call.session ?? 'check', ...(call.chat === undefined ? {} : { chatId: call.chat }) };
  const toolCall = { tool: call.tool, args: call.args, callId: `check-${lineNumber}` };
  const answer = call.answer === undefined ? undefined : ANSWERS[call.answer];
  const width = Math.max(40, Math.min(options.io.stdout.columns ?? 80, 120));
  const shown = (request: PresentedRequest) => renderApproval({ request: serverNamedRequest({ request, origin: options.origin }), color: options.color, width }).text;
  const approver: Approver | undefined =
    answer === undefined
      ? undefined
      : {
          ask: async (request) => {
            if (options.show) options.io.stdout.write(`${shown(request)}\n`);
            return answer;
          },
        };
  const result = await options.gate.authorize(toolCall, context, { approver });
  if (options.show && result.decision === 'ask' && result.request !== undefined) {
    try {
      const presented = await presentRequest({ request: result.request, call: toolCall, context });
      // As the gate presents it to an approver: with the rule that asked.
      if (result.rule !== null) presented.askedBy = options.ruleAt(result.rule) === undefined ? { rule: result.rule } : { rule: result.rule, at: options.ruleAt(result.rule)! };
      options.io.stdout.write(`${shown(presented)}\n`);
    } catch (error) {
      options.io.stderr.write(`the prompt for ${safe(call.tool)} could not be built: ${safe((error as Error).message)}\n`);
    }
  }
  return result;
}

type RuleAt = (rule: string | null) => string | undefined;

function outputOf(result: Authorization, explain: boolean, note: string | undefined, ruleAt: RuleAt): Record<string, unknown> {
  const output: Record<string, unknown> = { decision: result.decision, source: result.source, rule: result.rule, reason: result.reason };
  const at = ruleAt(result.rule);
  if (at !== undefined) output.rule_at = at;
  if (note !== undefined) output.note = note;
  if (explain) output.trace = result.trace.map((entry) => ({ ...entry, ...(ruleAt(entry.rule) === undefined ? {} : { at: ruleAt(entry.rule) }) }));
  return output;
}

/**
 * For a tool that is neither toolgate's own nor named in the policy: what
 * the verdict means. The simulator judges it as a tool an MCP server offers
 * (no rule, no declaration: `unknown_tools.decision`); `toolgate run` offers
 * the model only its own tools, so there a call to it is blocked.
 */
function unknownToolNote(options: { tool: string; gate: Gate; knownTools: readonly string[]; mcpServers: readonly string[] }): string | undefined {
  const { tool, gate } = options;
  if (gate.tool(tool) !== undefined || gate.policy.tools.has(tool)) return undefined;
  const close = closestName(tool, options.knownTools);
  const servers = options.mcpServers;
  const mcp = servers.length === 0 ? '' : `; for a tool of one of the policy's MCP servers (${servers.join(', ')}), give --server NAME (batch: "server")`;
  return (
    `${tool} is not a toolgate tool and the policy has no rule for it${close === undefined ? '' : ` (did you mean ${close}?)`}: ` +
    'judged as a tool with no rule and no declaration of its own (unknown_tools.decision), such as a tool an MCP server or your own code offers; `toolgate run` offers the model only its own tools and blocks a call to any other' +
    mcp
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describeJson(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'a list' : `a ${typeof value}`;
}

/**
 * The decision line, its reason and (with --explain) every rule that spoke.
 * Reasons and rule labels quote tool names, arguments and policy text, which
 * a model or a planted policy chose: each part goes through the one sanitiser,
 * so an OSC 52 clipboard write, a cursor move or a window title prints as text.
 */
function humanOutput(result: Authorization, explain: boolean, note: string | undefined, ruleAt: RuleAt): string {
  const where = (rule: string | null): string => (ruleAt(rule) === undefined ? '' : `, ${safe(ruleAt(rule))}`);
  const lines = [`${safe(result.decision)} (${safe(result.source)}${result.rule === null ? '' : `: ${safe(result.rule)}${where(result.rule)}`})`, `  ${safe(result.reason)}`];
  if (note !== undefined) lines.push(`  note: ${safe(note)}`);
  if (explain) {
    lines.push('  rules that spoke:');
    if (result.trace.length === 0) lines.push('    (none)');
    for (const entry of result.trace) lines.push(`    ${safe(entry.rule)}${where(entry.rule)}: ${safe(entry.decision)} — ${safe(entry.reason)}`);
  }
  return `${lines.join('\n')}\n`;
}

/** One line of text as a person must read it: every control, escape, bidi and invisible character shown escaped. */
function safe(text: unknown): string {
  return sanitizeTerminalText(String(text), { collapse: true });
}

type BatchLine = SimulatedCall | { error: string } | { skip: true };

/** In an audit log, what the person answered for each call id, to replay it. */
function replayAnswers(lines: readonly string[]): Map<string, string> {
  const answers = new Map<string, string>();
  for (const text of lines) {
    try {
      const entry = JSON.parse(text) as Record<string, unknown>;
      if (entry.kind !== 'decision' || entry.source !== 'person') continue;
      answers.set(`${String(entry.session)}\u0000${String(entry.call_id)}`, entry.decision === 'approved' ? 'once' : 'deny');
    } catch {
      // Reported when the line itself is read.
    }
  }
  return answers;
}

function parseBatchLine(text: string, replay: Map<string, string>): BatchLine {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { error: `not valid JSON: ${(error as Error).message}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { error: 'expected a JSON object with "tool" and "args"' };
  const line = value as Record<string, unknown>;
  if (line.v !== undefined && typeof line.kind === 'string') {
    // An audit record: replay its call; decision records only supply answers, other records
    // (definition_changed, call_not_run, mcp_access) no call.
    if (line.kind !== 'verdict') return { skip: true };
    if (typeof line.tool !== 'string') return { error: 'audit record without a tool' };
    return {
      tool: line.tool,
      args: line.args ?? {},
      // An MCP gateway's line names the server and the tool's identity: replayed as that server's tool.
      server: typeof line.server === 'string' ? line.server : undefined,
      identity: typeof line.identity === 'string' ? line.identity : undefined,
      session: typeof line.session === 'string' ? line.session : undefined,
      chat: typeof line.chat === 'string' ? line.chat : undefined,
      answer: replay.get(`${String(line.session)}\u0000${String(line.call_id)}`),
    };
  }
  const known = new Set(['tool', 'args', 'server', 'session', 'chat', 'answer']);
  const unknown = Object.keys(line).filter((key) => !known.has(key));
  if (unknown.length > 0) return { error: `unknown key ${JSON.stringify(unknown[0])} (expected tool, args, server, session, chat, answer)` };
  if (typeof line.tool !== 'string' || line.tool === '') return { error: '"tool" must be a non-empty string' };
  for (const key of ['server', 'session', 'chat'] as const) {
    if (line[key] !== undefined && typeof line[key] !== 'string') return { error: `"${key}" must be a string` };
  }
  if (line.answer !== undefined && (typeof line.answer !== 'string' || ANSWERS[line.answer] === undefined)) {
    return { error: '"answer" must be "once", "session" or "deny"' };
  }
  if (line.args !== undefined && !isObject(line.args)) return { error: `"args" must be a JSON object, not ${describeJson(line.args)}` };
  return {
    tool: line.tool,
    args: line.args ?? {},
    server: line.server as string | undefined,
    session: line.session as string | undefined,
    chat: line.chat as string | undefined,
    answer: line.answer as string | undefined,
  };
}

async function readLines(stream: NodeJS.ReadableStream): Promise<string[]> {
  const lines: string[] = [];
  const reader = createInterface({ input: stream, crlfDelay: Infinity });
  for await (const line of reader) lines.push(line);
  return lines;
}
