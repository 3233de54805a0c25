/**
 * What the person last asked the agent, read from the host's transcript
 * (Claude Code's session JSONL, Codex's rollout JSONL), so the approver sees
 * the request a call serves. Best effort and bounded: a regular file only
 * (a named pipe would hang the hook), its last 512 KiB, the text cut at 500
 * characters; anything unreadable gives nothing.
 */

const TAIL_BYTES = 512 * 1024;
const MAX_CHARACTERS = 500;

/**
 * @example
 * lastUserMessageIn('/home/me/.claude/projects/p/1234.jsonl') // 'add a test for the parser'
 */
export function lastUserMessageIn(file: string): string | undefined {
  const text = readRegularFileTail(file, TAIL_BYTES);
  if (text === undefined) return undefined;
  const lines = text.split('\n');
  for (let index = lines.length - 1; index >= 0; index--) {
    let entry: unknown;
    try {
      entry = JSON.parse(lines[index]!);
    } catch {
      continue;
    }
    const found = userText(entry);
    if (found !== undefined && found.trim() !== '') return found.trim().length > MAX_CHARACTERS ? `${found.trim().slice(0, MAX_CHARACTERS)}…` : found.trim();
  }
  return undefined;
}

/** How much of a Codex rollout is read for a call's arguments: the call was written just before its hook ran. */
const CALL_TAIL_BYTES = 4 * 1024 * 1024;

/**
 * The arguments the model gave a Codex tool call, from Codex's rollout
 * (its transcript), found by the call's id: Codex's PreToolUse input gives
 * only the command (`tool_input.command`) and the directory (`cwd`, the
 * call's `workdir`), not the `shell` the model chose, which the rollout
 * records before the hook runs. Undefined when the file or the call is not
 * there (the caller treats the shell as not known).
 *
 * @example
 * codexCallArguments('/home/me/.codex/sessions/…/rollout-….jsonl', 'call_abc') // { cmd: 'ls', shell: '/bin/zsh' }
 */
export function codexCallArguments(file: string, callId: string): Record<string, unknown> | undefined {
  // The call was written just before the hook ran: the rollout's last 256 KiB hold it unless its line is longer, and only then is more read.
  return callArgumentsIn(readRegularFileTail(file, SHORT_TAIL_BYTES), callId) ?? callArgumentsIn(readRegularFileTail(file, CALL_TAIL_BYTES), callId);
}

const SHORT_TAIL_BYTES = 256 * 1024;

/**
 * The directory a Codex session began in: its rollout's first line
 * (`session_meta`, whose `cwd` Codex wrote at the start). The hook's own
 * `cwd` is the call's `workdir`, which the model chooses, so it cannot
 * say which project's policy applies. Undefined when the rollout or that
 * line cannot be read.
 *
 * @example
 * codexSessionDirectory('/home/me/.codex/sessions/…/rollout-….jsonl') // '/home/me/app'
 */
export function codexSessionDirectory(file: string): string | undefined {
  const head = readRegular(file, (size) => ({ from: 0, length: Math.min(size, SESSION_HEAD_BYTES) }));
  const newline = head?.indexOf('\n') ?? -1;
  if (head === undefined || newline === -1) return undefined;
  try {
    const entry = JSON.parse(head.slice(0, newline)) as { type?: unknown; payload?: { cwd?: unknown } };
    const cwd = entry.payload?.cwd;
    return entry.type === 'session_meta' && typeof cwd === 'string' && cwd.startsWith('/') ? cwd : undefined;
  } catch {
    return undefined;
  }
}

/** The session_meta line holds Codex's instructions (tens of KiB): one longer than this is not read. */
const SESSION_HEAD_BYTES = 1024 * 1024;

function callArgumentsIn(text: string | undefined, callId: string): Record<string, unknown> | undefined {
  if (text === undefined) return undefined;
  const lines = text.split('\n');
  for (let index = lines.length - 1; index >= 0; index--) {
    const line = lines[index]!;
    if (!line.includes(callId)) continue;
    let entry: { type?: unknown; payload?: { type?: unknown; call_id?: unknown; arguments?: unknown } };
    try {
      entry = JSON.parse(line) as typeof entry;
    } catch {
      continue;
    }
    const payload = entry.payload;
    if (entry.type !== 'response_item' || payload?.type !== 'function_call' || payload.call_id !== callId || typeof payload.arguments !== 'string') continue;
    try {
      const parsed = JSON.parse(payload.arguments) as unknown;
      return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/**
 * The last `maxBytes` of `file` when it is a regular file, else undefined.
 * Opened without blocking: opening a named pipe for reading otherwise waits
 * for a writer, and holds the whole hook (a synchronous call) past its
 * deadline; checked after opening, so a file swapped meanwhile is caught.
 *
 * @example
 * readRegularFileTail('notes.txt', 1 << 20) // its text, or undefined
 */
export function readRegularFileTail(file: string, maxBytes: number): string | undefined {
  return readRegular(file, (size) => ({ from: size - Math.min(size, maxBytes), length: Math.min(size, maxBytes) }));
}

/**
 * The whole of `file` when it is a regular file of at most `maxBytes`;
 * 'too large' past it (sized on the opened file, as read); undefined when it
 * is not there, not a regular file or cannot be read.
 *
 * @example
 * readRegularFile('.claude/settings.json', 4 << 20) // its text, 'too large' or undefined
 */
export function readRegularFile(file: string, maxBytes: number): string | 'too large' | undefined {
  let tooLarge = false;
  const text = readRegular(file, (size) => {
    tooLarge = size > maxBytes;
    return tooLarge ? undefined : { from: 0, length: size };
  });
  return tooLarge ? 'too large' : text;
}

/** Opens `file` without blocking, and reads the part `range` picks from its size (none: undefined) when it is a regular file. */
function readRegular(file: string, range: (size: number) => { from: number; length: number } | undefined): string | undefined {
  // From the module object, not an ESM import: the import's facade reads every export of node:fs (2 ms of a hook's start, per tool call).
  const { closeSync, constants, fstatSync, openSync, readSync } = process.getBuiltinModule('node:fs');
  try {
    const descriptor = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      const stats = fstatSync(descriptor);
      if (!stats.isFile()) return undefined;
      const part = range(stats.size);
      if (part === undefined) return undefined;
      const buffer = Buffer.alloc(part.length);
      const read = readSync(descriptor, buffer, 0, part.length, part.from);
      return buffer.subarray(0, read).toString('utf8');
    } finally {
      closeSync(descriptor);
    }
  } catch {
    return undefined;
  }
}

/** A person's message in either host's transcript line, or undefined (tool results are not one). */
function userText(entry: unknown): string | undefined {
  if (typeof entry !== 'object' || entry === null) return undefined;
  const record = entry as Record<string, any>;
  // Claude Code: {"type":"user","message":{"role":"user","content": "..." | [{type:"text",text}, {type:"tool_result",...}]}}; isMeta marks its own notes.
  if (record.type === 'user' && record.message?.role === 'user' && record.isMeta !== true) return textOf(record.message.content, 'text');
  // Codex: {"type":"event_msg","payload":{"type":"user_message","message":"..."}}, or (0.171) a response item of role user — not the context
  // Codex injects the same way, which comes tagged (<environment_context>, <user_instructions>).
  if (record.type === 'event_msg' && record.payload?.type === 'user_message' && typeof record.payload.message === 'string') return record.payload.message;
  if (record.type === 'response_item' && record.payload?.type === 'message' && record.payload.role === 'user') {
    const text = textOf(record.payload.content, 'input_text');
    return text === undefined || text.trimStart().startsWith('<') ? undefined : text;
  }
  return undefined;
}

function textOf(content: unknown, partType: string): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  const texts = content.filter((part) => part?.type === partType && typeof part.text === 'string').map((part) => part.text as string);
  return texts.length === 0 ? undefined : texts.join('\n');
}
