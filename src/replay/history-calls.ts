/**
 * The tool calls in a history, one at a time, each put in the terms
 * toolgate's hook sees it in: Claude Code's session transcripts
 * (`~/.claude/projects/<dir>/<session>.jsonl`), Codex's rollouts
 * (`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-….jsonl`), toolgate's audit log
 * and `toolgate check --batch` lines. A host's call becomes the PreToolUse
 * input its hook would have been given and is read by that host's own
 * dialect (`HOST_DIALECTS`), so replay judges exactly what the hook judges.
 * Which kind a file is, its first readable line says.
 */
import path from 'node:path';
import type { HostInput } from '../hooks/host-dialect.ts';
import { HostInputError, type HostName } from '../hooks/host-call.ts';
import { HOST_DIALECTS } from '../hooks/hosts/host-dialects.ts';
import { codexCallDetails } from '../hooks/hosts/codex.ts';
import { quoteShellWord } from '../core/quote-shell-word.ts';
import { readBoundedLines } from './read-bounded-lines.ts';

/** Where a call (or a problem) is: the file and its line, counted from 1. */
export interface Where {
  file: string;
  line: number;
}

export type HistoryKind = 'claude-code' | 'codex' | 'audit' | 'batch';

export type HistoryItem =
  /** A host's call, read by its dialect as the hook reads it. */
  | { kind: 'host'; at: Where; time: string | undefined; input: HostInput; source: string }
  /** A call already in toolgate's terms (an audit log's verdict, a check --batch line). */
  | { kind: 'toolgate'; at: Where; time: string | undefined; tool: string; args: Record<string, unknown>; server?: string; identity?: string; session: string; callId: string; caller?: string; source: string }
  /** A call of the host's that never reaches its hooks (Codex's update_plan, write_stdin…): counted, not judged. */
  | { kind: 'unseen'; at: Where; time: string | undefined; host: HostName; tool: string; source: string }
  /** A line that is not what its file's kind holds: reported, and the rest still read. */
  | { kind: 'malformed'; at: Where; problem: string };

/** Lines longer than this are reported and skipped (a Claude Code line holds a whole tool result; 16 MiB is far past any seen). */
export const MAX_LINE_BYTES = 16 * 1024 * 1024;

/** Codex's own tools that reach its PreToolUse hook (0.171): its shell tools, apply_patch, and MCP tools. */
const CODEX_SHELL_TOOLS = new Set(['exec_command', 'shell', 'shell_command', 'local_shell']);

/**
 * Every call in `file`, in order.
 *
 * @example
 * for (const item of historyCalls({ file: 'rollout.jsonl', env: process.env })) if (item.kind === 'host') judge(item.input);
 */
export function* historyCalls(options: { file: string; env: Readonly<Record<string, string | undefined>> }): Generator<HistoryItem, void, undefined> {
  const { file } = options;
  let kind: HistoryKind | undefined;
  let version: string | undefined;
  // Codex writes the session's directory and id once (session_meta), and the turn's directory with each turn (turn_context).
  const codex = { sessionId: undefined as string | undefined, cwd: undefined as string | undefined };
  for (const item of readBoundedLines({ file, maxBytes: MAX_LINE_BYTES })) {
    if ('tooLong' in item) {
      yield { kind: 'malformed', at: { file, line: item.line }, problem: `a line of ${item.tooLong} bytes, longer than the ${MAX_LINE_BYTES / 1024 / 1024} MiB replay reads: skipped` };
      continue;
    }
    const { bytes } = item;
    const first = firstContentByte(bytes);
    if (first === -1) continue;
    // Most of a transcript is not calls (prompts, tool results, token counts): a line that cannot hold one is only checked, in its
    // bytes, for being whole (a line cut short, a line of something else), not decoded or parsed. The marks looked for are
    // the ends of the names a call's line holds ("tool_use", "function_call", "session_meta"...): a line that holds one holds
    // its mark, and a mark that starts with a rare byte is found three times faster than one that starts with a quote.
    const holdsCall = kind === 'claude-code' ? bytes.includes(CLAUDE_CALL_MARK) : kind === 'codex' ? CODEX_CALL_MARKS.some((mark) => bytes.includes(mark)) : true;
    if (!holdsCall) {
      if (bytes[first] !== OPEN_BRACE || bytes[lastContentByte(bytes)] !== CLOSE_BRACE) yield { kind: 'malformed', at: { file, line: item.line }, problem: 'not a whole JSON object: a line cut short when its writer stopped, or a line of something else' };
      continue;
    }
    const at = { file, line: item.line };
    const text = bytes.toString('utf8');
    let record: Record<string, unknown>;
    try {
      const value = JSON.parse(text) as unknown;
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        yield { kind: 'malformed', at, problem: `expected a JSON object, not ${value === null ? 'null' : Array.isArray(value) ? 'a list' : `a ${typeof value}`}` };
        continue;
      }
      record = value as Record<string, unknown>;
    } catch (error) {
      yield { kind: 'malformed', at, problem: `not valid JSON (${(error as Error).message}); a line cut short when its writer stopped?` };
      continue;
    }
    if (kind === undefined) {
      kind = kindOf(record);
      if (kind === undefined) {
        yield { kind: 'malformed', at, problem: 'not a line of a Claude Code transcript, a Codex rollout, a toolgate audit log or a check --batch file: this file is not read' };
        return;
      }
    }
    // A line of a shape nobody foresaw is reported, and the rest of the file still read.
    try {
      if (kind === 'claude-code') {
        if (typeof record.version === 'string') version = record.version;
        yield* claudeCodeCalls(record, at, version, options.env);
      } else if (kind === 'codex') {
        const payload = typeof record.payload === 'object' && record.payload !== null && !Array.isArray(record.payload) ? (record.payload as Record<string, unknown>) : undefined;
        if ((record.type === 'session_meta' || record.type === 'response_item') && payload === undefined) {
          yield otherShape(at, 'Codex', version, `a ${String(record.type)} record without its payload object`);
        } else if (record.type === 'session_meta' && payload !== undefined) {
          if (typeof payload.cli_version === 'string') version = payload.cli_version;
          const id = payload.id ?? payload.session_id;
          if (typeof id === 'string') codex.sessionId = id;
          if (typeof payload.cwd === 'string') codex.cwd = payload.cwd;
        } else if (record.type === 'turn_context' && typeof payload?.cwd === 'string') {
          codex.cwd = payload.cwd;
        } else if (record.type === 'response_item' && payload !== undefined) {
          const found = codexCall(payload, record, at, version, codex);
          if (found !== undefined) yield found;
        }
      } else if (kind === 'audit') {
        const found = auditCall(record, at);
        if (found !== undefined) yield found;
      } else {
        yield batchCall(record, at);
      }
    } catch (error) {
      yield { kind: 'malformed', at, problem: `a line replay could not read (${error instanceof Error ? error.message : String(error)})` };
    }
  }
}

/** In a Claude Code line that holds a call: `"tool_use"` (and other names that end alike, which parsing then tells apart). */
const CLAUDE_CALL_MARK = Buffer.from('_use"');
/** In a Codex line that holds a call or says where calls run: `"function_call"`, `"custom_tool_call"`, `"local_shell_call"`, `"session_meta"`, `"turn_context"`. */
const CODEX_CALL_MARKS = ['_call"', '_meta"', '_context"'].map((mark) => Buffer.from(mark));

const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

const isBlank = (byte: number | undefined) => byte === 0x20 || byte === 0x09 || byte === 0x0d || byte === 0x0a;

/** Where a line's first byte that is not white space is; -1 for a blank line. */
function firstContentByte(bytes: Buffer): number {
  for (let index = 0; index < bytes.length; index++) if (!isBlank(bytes[index])) return index;
  return -1;
}

/** Where a line's last byte that is not white space is (the line is not blank). */
function lastContentByte(bytes: Buffer): number {
  let last = bytes.length - 1;
  while (last > 0 && isBlank(bytes[last])) last--;
  return last;
}

function kindOf(record: Record<string, unknown>): HistoryKind | undefined {
  if (typeof record.v === 'number' && typeof record.kind === 'string') return 'audit';
  if (typeof record.type === 'string' && 'payload' in record && 'timestamp' in record) return 'codex';
  if (typeof record.type === 'string' && ['sessionId', 'parentUuid', 'leafUuid', 'uuid'].some((key) => key in record)) return 'claude-code';
  if (typeof record.tool === 'string') return 'batch';
  return undefined;
}

/** The CLI and its version, as the calls' source says it. */
function sourceOf(title: 'Claude Code' | 'Codex', version: string | undefined): string {
  return version === undefined ? title : `${title} ${version}`;
}

/** A call line of another shape than the version replay was made with: said with the file's version. */
function otherShape(at: Where, title: 'Claude Code' | 'Codex', version: string | undefined, problem: string): HistoryItem {
  return { kind: 'malformed', at, problem: `${problem} (${sourceOf(title, version)}; replay reads the transcripts of ${title === 'Claude Code' ? 'Claude Code 2.1' : 'Codex 0.171'}, and this line is of another shape)` };
}

/** Claude Code's assistant message: each tool_use block a call, as its PreToolUse hook receives it. */
function* claudeCodeCalls(record: Record<string, unknown>, at: Where, version: string | undefined, env: Readonly<Record<string, string | undefined>>): Generator<HistoryItem> {
  if (record.type !== 'assistant') return;
  const message = record.message as { content?: unknown } | undefined;
  if (!Array.isArray(message?.content)) return;
  const time = typeof record.timestamp === 'string' ? record.timestamp : undefined;
  for (const block of message.content as unknown[]) {
    if (typeof block !== 'object' || block === null || (block as { type?: unknown }).type !== 'tool_use') continue;
    const { id, name, input } = block as { id?: unknown; name?: unknown; input?: unknown };
    const hookInput = { session_id: record.sessionId, cwd: record.cwd, hook_event_name: 'PreToolUse', tool_name: name, tool_input: input, tool_use_id: id };
    try {
      const read = HOST_DIALECTS['claude-code']!.read(hookInput);
      const details = HOST_DIALECTS['claude-code']!.detailsOf(read, env);
      yield { kind: 'host', at, time, input: { ...read, shell: details.shell }, source: sourceOf('Claude Code', version) };
    } catch (error) {
      if (!(error instanceof HostInputError)) throw error;
      yield otherShape(at, 'Claude Code', version, `a tool call its hook could not be given: ${error.message}`);
    }
  }
}

/** A Codex response item that is a call, as its PreToolUse hook receives it; undefined for anything else. */
function codexCall(
  payload: Record<string, unknown>,
  record: Record<string, unknown>,
  at: Where,
  version: string | undefined,
  session: { sessionId: string | undefined; cwd: string | undefined },
): HistoryItem | undefined {
  if (payload.type !== 'function_call' && payload.type !== 'custom_tool_call' && payload.type !== 'local_shell_call') return undefined;
  const time = typeof record.timestamp === 'string' ? record.timestamp : undefined;
  const source = sourceOf('Codex', version);
  const name = typeof payload.name === 'string' ? payload.name : payload.type === 'local_shell_call' ? 'local_shell' : undefined;
  if (name === undefined) return otherShape(at, 'Codex', version, `a ${String(payload.type)} without a name`);
  if (session.sessionId === undefined || session.cwd === undefined) return otherShape(at, 'Codex', version, `a call (${name}) before the rollout said its session and directory (session_meta)`);
  let args: Record<string, unknown>;
  if (payload.type === 'custom_tool_call') {
    if (typeof payload.input !== 'string') return otherShape(at, 'Codex', version, `${name}'s input is not text`);
    args = { input: payload.input };
  } else if (payload.type === 'local_shell_call') {
    args = (payload.action as Record<string, unknown> | undefined) ?? {};
  } else {
    try {
      const parsed = typeof payload.arguments === 'string' ? (JSON.parse(payload.arguments) as unknown) : payload.arguments;
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return otherShape(at, 'Codex', version, `${name}'s arguments are not a JSON object`);
      args = parsed as Record<string, unknown>;
    } catch (error) {
      return otherShape(at, 'Codex', version, `${name}'s arguments are not valid JSON (${(error as Error).message})`);
    }
  }
  const namespace = typeof payload.namespace === 'string' ? payload.namespace : undefined;
  const tool = namespace === undefined ? name : `${namespace}__${name}`;
  let hookTool: string;
  let toolInput: Record<string, unknown>;
  let cwd = session.cwd;
  if (CODEX_SHELL_TOOLS.has(name)) {
    const command = commandOf(args);
    if (command === undefined) return otherShape(at, 'Codex', version, `${name} without a command (cmd or command)`);
    hookTool = 'Bash';
    toolInput = { command };
    const workdir = typeof args.workdir === 'string' ? args.workdir : typeof args.working_directory === 'string' ? args.working_directory : undefined;
    if (workdir !== undefined && workdir !== '') cwd = path.resolve(session.cwd, workdir);
  } else if (name === 'apply_patch') {
    hookTool = 'apply_patch';
    toolInput = args;
  } else if (tool.startsWith('mcp__')) {
    hookTool = tool;
    toolInput = args;
  } else {
    return { kind: 'unseen', at, time, host: 'codex', tool, source };
  }
  const hookInput = { session_id: session.sessionId, cwd, hook_event_name: 'PreToolUse', tool_name: hookTool, tool_input: toolInput, tool_use_id: payload.call_id ?? payload.id };
  try {
    const read = HOST_DIALECTS.codex!.read(hookInput);
    // Its shell and options from the call's own arguments, as the hook reads them from the rollout.
    const details = hookTool === 'Bash' ? codexCallDetails(args) : HOST_DIALECTS.codex!.detailsOf(read, {});
    return { kind: 'host', at, time, input: { ...read, shell: details.shell, ...(details.options === undefined ? {} : { options: details.options }) }, source };
  } catch (error) {
    if (!(error instanceof HostInputError)) throw error;
    return otherShape(at, 'Codex', version, `a tool call its hook could not be given: ${error.message}`);
  }
}

/** The command of a Codex shell call: `cmd` (exec_command), or `command` as text or as argv (`["bash", "-lc", "…"]`). */
function commandOf(args: Record<string, unknown>): string | undefined {
  const command = args.cmd ?? args.command;
  if (typeof command === 'string') return command;
  if (!Array.isArray(command) || command.length === 0 || !command.every((word) => typeof word === 'string')) return undefined;
  const words = command as string[];
  if (words.length === 3 && /(^|\/)(ba|z|da)?sh$/.test(words[0]!) && ['-c', '-lc'].includes(words[1]!)) return words[2];
  return words.map(quoteShellWord).join(' ');
}

/** An audit log's verdict record: the call as the gate saw it (its arguments already masked). Decision records and events are no calls. */
function auditCall(record: Record<string, unknown>, at: Where): HistoryItem | undefined {
  if (record.kind !== 'verdict') return undefined;
  if (typeof record.tool !== 'string' || record.tool === '') return { kind: 'malformed', at, problem: 'an audit verdict record without a tool' };
  const args = typeof record.args === 'object' && record.args !== null && !Array.isArray(record.args) ? (record.args as Record<string, unknown>) : {};
  const caller = typeof record.caller === 'string' ? record.caller : undefined;
  return {
    kind: 'toolgate',
    at,
    time: typeof record.time === 'string' ? record.time : undefined,
    tool: record.tool,
    args,
    ...(typeof record.server === 'string' ? { server: record.server } : {}),
    ...(typeof record.identity === 'string' ? { identity: record.identity } : {}),
    session: typeof record.session === 'string' ? record.session : '',
    callId: typeof record.call_id === 'string' ? record.call_id : '',
    ...(caller === undefined ? {} : { caller }),
    source: caller === undefined ? 'audit log' : `audit log (${caller})`,
  };
}

/** A `toolgate check --batch` line: `{"tool", "args", "server"?, "session"?}`. */
function batchCall(record: Record<string, unknown>, at: Where): HistoryItem {
  if (typeof record.tool !== 'string' || record.tool === '') return { kind: 'malformed', at, problem: '"tool" must be a non-empty string' };
  const args = record.args ?? {};
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return { kind: 'malformed', at, problem: '"args" must be a JSON object' };
  return {
    kind: 'toolgate',
    at,
    time: undefined,
    tool: record.tool,
    args: args as Record<string, unknown>,
    ...(typeof record.server === 'string' ? { server: record.server } : {}),
    session: typeof record.session === 'string' ? record.session : 'replay',
    callId: `${at.line}`,
    source: 'check --batch',
  };
}
