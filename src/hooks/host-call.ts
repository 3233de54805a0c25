/**
 * One normalized call from an agent host (Claude Code, Codex...): who asks
 * (the host, its session, its working directory), and the call in toolgate's
 * terms — a shell command for the shell tool's judgement, a file read, write
 * or edit for the fs zones, an MCP server's tool for `mcp.servers`, a web
 * fetch for the network rules, and anything else as the host names it, for
 * the policy's rules and `unknown_tools`. A host's dialect
 * (`host-dialect.ts`) reads its own JSON into this; everything after it is
 * the same for every host.
 */
import path from 'node:path';
import { quoteShellWord } from '../core/quote-shell-word.ts';

export type HostName = 'claude-code' | 'codex' | 'gemini' | 'copilot' | 'cursor' | 'opencode';

export interface HostCall {
  host: HostName;
  /** The host's session id, as the host gives it. */
  sessionId: string;
  /** The host's working directory (absolute). */
  cwd: string;
  /** The host's own id of the call, for the audit log. */
  toolUseId: string | undefined;
  transcriptPath: string | undefined;
  /** The tool as the host names it (`Bash`, `Edit`, `mcp__files__write_file`). */
  hostTool: string;
  /** The shell the host runs commands with (its `$SHELL`, or `CLAUDE_CODE_SHELL`), when the hook knows it. */
  shell?: string | undefined;
  /**
   * How the host runs the call beyond its tool input, when the hook can read
   * it (Codex's exec_command arguments from its rollout: tty, login,
   * sandbox_permissions…): part of the call's identity, and a terminal (tty)
   * makes a program the model can type into.
   */
  options?: Record<string, unknown> | undefined;
  /** What the person last asked the agent, from the host's transcript, when the hook could read it: for the approver. */
  lastUserMessage?: string | undefined;
  /**
   * The host's hook event, where its hook answers more than one and they
   * differ in what they can do: Copilot CLI's `permissionRequest` (asked in
   * place of its own prompt; no changed input), Cursor's `preToolUse` (its
   * file changes; no "ask"); undefined for the others.
   */
  event?: 'permissionRequest' | 'preToolUse' | undefined;
  /** The call in toolgate's terms. */
  call: ToolgateCall;
}

export type ToolgateCall =
  /** A built-in tool of toolgate's (shell, the fs tools) or a host tool judged by name. */
  | { kind: 'tool'; tool: string; args: Record<string, unknown> }
  /** A tool of an MCP server the host connects to: judged by `mcp.servers.<server>` when the policy names that server. */
  | { kind: 'mcp'; server: string; tool: string; args: Record<string, unknown> };

/**
 * Tools of the hosts that act only inside the agent (plans, to-do lists,
 * local sub-agents whose own calls are hooked too). Not skills or slash
 * commands: a skill's `!command` lines run without the PreToolUse hook
 * (HOST_SKILL_TOOL judges them).
 */
const AGENT_INTERNAL = new Set(['TodoWrite', 'Task', 'Agent', 'ExitPlanMode', 'BashOutput', 'KillShell', 'KillBash', 'AskUserQuestion']);

/** The names `toolgateCallOf` reads as Claude Code's tools (a host's tool of the same name would be judged as that tool). */
export const CLAUDE_TOOL_NAMES: ReadonlySet<string> = new Set(['Bash', 'Monitor', 'Read', 'Write', 'Edit', 'MultiEdit', 'NotebookEdit', 'Glob', 'Grep', 'LS', 'Skill', 'WebFetch', 'WebSearch', ...AGENT_INTERNAL]);

/**
 * A host's own tool under a name of its own where its name reads as
 * another's — an MCP tool's (`mcp__…`), Claude Code's, or one `taken` (a
 * tool of toolgate's, an MCP server's namespace): `<host>:<name>`, judged by
 * its own rules, never as the tool it imitates (a repository's server or
 * tool can be named anything).
 *
 * @example
 * ownToolName('cursor', 'write_file', (name) => name === 'write_file') // 'cursor:write_file'
 */
export function ownToolName(host: HostName, name: string, taken: (name: string) => boolean): string {
  return name.startsWith('mcp__') || CLAUDE_TOOL_NAMES.has(name) || taken(name) ? `${host}:${name}` : name;
}

/** The largest file an edit is turned into a write of (for the diff): above it, it is judged as an edit of the file. */
const MAX_EDITED_BYTES = 4 * 1024 * 1024;
/** More edits than this in one call are judged as an edit of the file, not computed. */
const MAX_EDITS = 200;

/** toolgate's name for the host tools that only act inside the agent: a declaration that needs no approval, unless a rule of the policy says otherwise. */
export const AGENT_INTERNAL_TOOL = 'agent_internal';
export const WEB_FETCH_TOOL = 'web_fetch';
export const WEB_SEARCH_TOOL = 'web_search';
/**
 * Hosts that let the model type into a program a call started, with no hook
 * on what it types (Codex's `write_stdin`): a call that starts a program
 * reading commands from its input asks (`input-readers.ts`).
 */
export const HOSTS_WITHOUT_INPUT_GATE: ReadonlySet<HostName> = new Set(['codex']);
/** A Claude Code skill or custom slash command, judged with the inline commands it runs before the model sees it (`host-skills.ts`). */
/** Codex's `apply_patch` (its shell tool given the patch command): judged as the fs changes it makes (codex-patch.ts). */
export const HOST_PATCH_TOOL = 'apply_patch';
export const HOST_SKILL_TOOL = 'skill';
/** The tool of `toolgate doctor`'s probe call: toolgate serve answers it at once (denied: nothing runs), so a probe never waits in the inbox. */
export const DOCTOR_PROBE_TOOL = 'toolgate_doctor_probe';
/** A call another hook of the host's, from the repository's own settings, can change after toolgate judged it (Gemini CLI's BeforeTool `tool_input`): blocked. */
export const HOST_REWRITTEN_TOOL = 'host_hook_rewrites';
/** A shell command `sandbox.hosts: wrap` cannot run in the OS sandbox (no sandbox here, a host that takes no changed command): blocked. */
export const HOST_SANDBOX_TOOL = 'host_sandbox';
/** A host's search through every file below a folder (Claude Code's Grep) that holds a file a zone hides: it asks. */
export const HOST_SEARCH_TOOL = 'host_search';
/** A command the host runs with a shell whose syntax is not bash's, in a form that shell reads differently: it asks. */
export const HOST_SHELL_TOOL = 'host_shell';

/**
 * A Claude Code tool call in toolgate's terms (Codex names its shell `Bash`
 * too, and its MCP tools the same way). An edit is judged as the write it
 * makes: the file's content after the edit, so the person sees the diff;
 * when `readText` does not give the file (it reads only where the zones let
 * a read happen), as an edit of it.
 *
 * @example
 * toolgateCallOf({ tool: 'Bash', input: { command: 'ls' }, cwd: '/p', readText: () => undefined })
 * // { kind: 'tool', tool: 'shell', args: { command: 'ls', cwd: '/p' } }
 */
export function toolgateCallOf(options: { tool: string; input: Record<string, unknown>; cwd: string; readText: (file: string) => string | undefined }): ToolgateCall {
  const { tool, input, cwd, readText } = options;
  const text = (key: string): string => {
    const value = input[key];
    if (typeof value !== 'string') throw new HostInputError(`${tool}'s ${key} must be a string, not ${describe(value)}`);
    return value;
  };
  const optionalText = (key: string): string | undefined => (input[key] === undefined ? undefined : text(key));
  const mcp = /^mcp__(.+?)__(.+)$/s.exec(tool);
  if (mcp !== null) return { kind: 'mcp', server: mcp[1]!, tool: mcp[2]!, args: input };
  switch (tool) {
    case 'Bash':
      return { kind: 'tool', tool: 'shell', args: { command: shellCommandOf(input, tool), cwd } };
    case 'Monitor':
      // Runs its command in the background: the same judgement as a shell call.
      return { kind: 'tool', tool: 'shell', args: { command: text('command'), cwd } };
    case 'Read':
      return { kind: 'tool', tool: 'read_file', args: { path: text('file_path') } };
    case 'Write':
      return { kind: 'tool', tool: 'write_file', args: { path: text('file_path'), content: text('content') } };
    case 'Edit':
      return editAsWrite(text('file_path'), [{ old: text('old_string'), new: text('new_string'), all: input.replace_all === true }], readText);
    case 'MultiEdit': {
      const edits = input.edits;
      if (!Array.isArray(edits) || edits.length === 0) throw new HostInputError(`MultiEdit's edits must be a non-empty list, not ${describe(edits)}`);
      return editAsWrite(
        text('file_path'),
        edits.map((edit, index) => {
          const entry = edit as Record<string, unknown>;
          if (typeof entry?.old_string !== 'string' || typeof entry.new_string !== 'string') throw new HostInputError(`MultiEdit's edits[${index}] needs old_string and new_string strings`);
          return { old: entry.old_string, new: entry.new_string, all: entry.replace_all === true };
        }),
        readText,
      );
    }
    case 'NotebookEdit':
      // A cell of the notebook changes: judged as a write of the notebook file (its zone, its path), with the new cell as what is shown.
      return { kind: 'tool', tool: 'write_file', args: { path: text('notebook_path'), content: optionalText('new_source') ?? '' } };
    case 'Glob':
    case 'Grep':
    case 'LS': {
      // Reads under a directory: judged as listing it (the zones' read approval). An absolute pattern
      // (Glob's, Grep's glob) searches its own base directory, whatever `path` says: that directory.
      const base = optionalText('path') ?? cwd;
      const pattern = tool === 'Glob' ? optionalText('pattern') : tool === 'Grep' ? optionalText('glob') : undefined;
      return { kind: 'tool', tool: 'list_dir', args: { path: pattern === undefined ? base : patternBase(pattern, base) } };
    }
    case 'Skill':
      // Resolved and judged with its inline commands by the judge (decide-host-call.ts), which knows the user's environment.
      return { kind: 'tool', tool: HOST_SKILL_TOOL, args: { skill: input.skill, ...(input.args === undefined ? {} : { args: input.args }) } };
    case 'WebFetch':
      return { kind: 'tool', tool: WEB_FETCH_TOOL, args: { url: text('url') } };
    case 'WebSearch':
      return { kind: 'tool', tool: WEB_SEARCH_TOOL, args: { query: text('query') } };
    default:
      // A sub-agent that runs elsewhere (isolation: remote) makes calls no hook here sees: judged by its name.
      if (AGENT_INTERNAL.has(tool) && (input.isolation === undefined || input.isolation === 'worktree')) return { kind: 'tool', tool: AGENT_INTERNAL_TOOL, args: { tool, input } };
      return { kind: 'tool', tool, args: input };
  }
}

/** The command of a shell call: a string (Claude Code, Codex), or an argv list (older Codex `shell`), joined as bash would read it. */
function shellCommandOf(input: Record<string, unknown>, tool: string): string {
  const command = input.command;
  if (typeof command === 'string') return command;
  if (Array.isArray(command) && command.length > 0 && command.every((word) => typeof word === 'string')) return (command as string[]).map(quoteShellWord).join(' ');
  throw new HostInputError(`${tool}'s command must be a string or a list of strings, not ${describe(command)}`);
}

/**
 * An edit judged as the write it makes: the file's content with the edits
 * applied (as the host applies them: each once, or everywhere with
 * replace_all), so the approval shows the diff. A file that cannot be read
 * or an edit that does not apply is judged as an edit of the file, which the
 * fs tools check (its zone, that the text occurs).
 */
function editAsWrite(file: string, edits: ReadonlyArray<{ old: string; new: string; all: boolean }>, readText: (file: string) => string | undefined): ToolgateCall {
  const first = edits[0]!;
  const asEdit = (edit: { old: string; new: string }): ToolgateCall => ({ kind: 'tool', tool: 'edit_file', args: { path: file, old_string: edit.old === '' ? ' ' : edit.old, new_string: edit.new } });
  // Bounded: an edit is computed here, in the hook, before its deadline can speak; a huge one is judged as an edit of the file.
  if (edits.length > MAX_EDITS) return asEdit(first);
  let content = readText(file);
  if (content === undefined || content.length > MAX_EDITED_BYTES) return asEdit(first);
  for (const edit of edits) {
    if (edit.old === '' || !content.includes(edit.old)) return asEdit(edit);
    const occurrences = edit.all ? countUpTo(content, edit.old, Math.ceil(MAX_EDITED_BYTES / Math.max(1, edit.new.length)) + 1) : 1;
    if (content.length + occurrences * (edit.new.length - edit.old.length) > MAX_EDITED_BYTES) return asEdit(edit);
    content = edit.all ? content.replaceAll(edit.old, () => edit.new) : content.replace(edit.old, () => edit.new);
  }
  return { kind: 'tool', tool: 'write_file', args: { path: file, content } };
}

/** How often `needle` occurs in `text`, counting no further than `limit`. */
function countUpTo(text: string, needle: string, limit: number): number {
  let count = 0;
  for (let at = text.indexOf(needle); at !== -1 && count < limit; at = text.indexOf(needle, at + needle.length)) count++;
  return count;
}

/** More brace alternatives than this and a pattern is judged as searching from the root. */
const MAX_BRACE_ALTERNATIVES = 64;

/**
 * The directory a glob pattern searches: for each of its brace alternatives
 * (`{/etc,src}/*` is `/etc/*` and `src/*`), the part before its first glob
 * character, resolved against `base` (an absolute pattern against nothing),
 * `..` included; several give their common ancestor. A `..` after a glob
 * character (a double-star segment followed by "..") can climb anywhere: the root.
 */
function patternBase(pattern: string, base: string): string {
  const alternatives = expandBraces(pattern);
  if (alternatives === undefined) return path.parse(base).root;
  const bases = alternatives.map((alternative) => {
    const wild = alternative.search(/[*?[]/);
    if (wild !== -1 && /(^|\/)\.\.(\/|$)/.test(alternative.slice(wild))) return path.parse(base).root;
    const literal = wild === -1 ? alternative : alternative.slice(0, wild);
    const directory = wild === -1 ? literal : literal.slice(0, literal.lastIndexOf('/') + 1);
    return path.resolve(base, directory === '' ? '.' : directory);
  });
  return bases.reduce(commonAncestor);
}

/** The brace alternatives of a pattern (nested braces too), or undefined past MAX_BRACE_ALTERNATIVES. */
function expandBraces(pattern: string): string[] | undefined {
  const open = pattern.indexOf('{');
  if (open === -1) return [pattern];
  let depth = 0;
  const commas: number[] = [];
  let close = -1;
  for (let index = open; index < pattern.length && close === -1; index++) {
    const character = pattern[index];
    if (character === '{') depth++;
    else if (character === '}' && --depth === 0) close = index;
    else if (character === ',' && depth === 1) commas.push(index);
  }
  // An unclosed brace is a literal one to a glob matcher; judged as it stands.
  if (close === -1) return [pattern];
  const cuts = [open, ...commas, close];
  const results: string[] = [];
  for (let index = 0; index < cuts.length - 1; index++) {
    const expanded = expandBraces(`${pattern.slice(0, open)}${pattern.slice(cuts[index]! + 1, cuts[index + 1])}${pattern.slice(close + 1)}`);
    if (expanded === undefined || results.length + expanded.length > MAX_BRACE_ALTERNATIVES) return undefined;
    results.push(...expanded);
  }
  return results;
}

function commonAncestor(first: string, second: string): string {
  const a = first.split(path.sep);
  const b = second.split(path.sep);
  let shared = 0;
  while (shared < a.length && shared < b.length && a[shared] === b[shared]) shared++;
  return a.slice(0, shared).join(path.sep) || path.sep;
}

/** The host sent something toolgate cannot read as a call: the call is blocked, saying what was wrong. */
export class HostInputError extends Error {
  override name = 'HostInputError';
}

/** A JSON value's kind, for error messages. */
export function describe(value: unknown): string {
  if (value === undefined) return 'missing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** A non-empty string field of a host's JSON; a HostInputError naming it otherwise. */
export function textField(record: Record<string, unknown>, key: string): string {
  const value = record[key];
  if (typeof value !== 'string' || value === '') throw new HostInputError(`${key} must be a non-empty string, not ${describe(value)}`);
  return value;
}

/** The absolute form of a host's working directory; a relative or missing one is refused. */
export function absoluteDirectory(value: unknown, field: string): string {
  if (typeof value !== 'string' || value === '') throw new HostInputError(`${field} must be a non-empty string, not ${describe(value)}`);
  if (!path.isAbsolute(value)) throw new HostInputError(`${field} must be an absolute path, not ${JSON.stringify(value)}`);
  return path.normalize(value);
}
