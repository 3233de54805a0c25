/**
 * opencode's tools (1.18.33, as its requests to the model list them) in the
 * terms toolgate judges Claude Code's by (host-call.ts `toolgateCallOf`).
 * Paths resolve against the session's directory, as opencode resolves them;
 * its bash tool runs in `workdir` when the call names one (resolved the same
 * way), so that is where the command is judged. Its MCP tools are named
 * `<server>_<tool>`, each part with every character but letters, digits,
 * `_` and `-` made `_`: one that begins with exactly one server the policy
 * names is that server's tool. A tool with no counterpart keeps its own
 * name, for the policy's rules and `unknown_tools` — but a repository can
 * give opencode tools of its own (`.opencode/tool/`), named as it likes: one
 * named like a tool toolgate gives a meaning to (its `shell`, Claude Code's
 * `Read`, `mcp__files__read_text_file`) would be judged as that tool while
 * running the repository's code, so it is judged as `opencode:<name>`.
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import { describe, HOST_PATCH_TOOL, HostInputError, ownToolName } from '../host-call.ts';

/**
 * Tools that act only inside the agent: its to-do list, sub-agents (whose
 * calls come through the plugin too), questions to its user, plan mode, and
 * skills (a skill's instructions are text the model reads; what it then
 * runs is a call of its own).
 */
const AGENT_INTERNAL = new Set(['todowrite', 'todoread', 'task', 'question', 'skill', 'plan_enter', 'plan_exit', 'invalid']);

/**
 * @example
 * opencodeInClaudeTerms({ tool: 'bash', input: { command: 'ls', workdir: 'src' }, cwd: '/p', mcpServers: [], hasMeaning: () => false })
 * // { tool: 'Bash', input: { command: 'ls' }, cwd: '/p/src' }
 */
export function opencodeInClaudeTerms(options: {
  tool: string;
  input: Record<string, unknown>;
  cwd: string;
  mcpServers: readonly string[];
  /** Whether toolgate judges a tool of this name as something of its own (a built-in tool, a host tool). */
  hasMeaning: (name: string) => boolean;
}): { tool: string; input: Record<string, unknown>; cwd: string } {
  const { tool, input, cwd } = options;
  const text = (key: string): string => {
    const value = input[key];
    if (typeof value !== 'string') throw new HostInputError(`${tool}'s ${key} must be a string, not ${describe(value)}`);
    return value;
  };
  const optionalPath = (key: string): string | undefined => (input[key] === undefined || input[key] === null ? undefined : path.resolve(cwd, text(key)));
  const as = (claude: string, claudeInput: Record<string, unknown>, where = cwd) => ({ tool: claude, input: claudeInput, cwd: where });
  switch (tool) {
    case 'bash':
      return as('Bash', { command: text('command') }, optionalPath('workdir') ?? cwd);
    case 'read': {
      // A file is read; a folder is listed.
      const target = path.resolve(cwd, text('filePath'));
      return statSync(target, { throwIfNoEntry: false })?.isDirectory() === true ? as('LS', { path: target }) : as('Read', { file_path: target });
    }
    case 'write':
      return as('Write', { file_path: path.resolve(cwd, text('filePath')), content: text('content') });
    case 'edit':
      return as('Edit', { file_path: path.resolve(cwd, text('filePath')), old_string: text('oldString'), new_string: text('newString'), replace_all: input.replaceAll === true });
    case 'list':
      return as('LS', { path: optionalPath('path') ?? cwd });
    case 'glob':
      return as('Glob', { pattern: text('pattern'), path: optionalPath('path') ?? cwd });
    case 'grep':
      return as('Grep', { pattern: text('pattern'), path: optionalPath('path') ?? cwd, ...(input.include === undefined ? {} : { glob: text('include') }) });
    case 'webfetch':
      return as('WebFetch', { url: text('url') });
    case 'websearch':
    case 'codesearch':
      return as('WebSearch', { query: text('query') });
    case 'apply_patch':
      // The same patch format as Codex's (decide-host-call.ts judges each file it changes), read as opencode reads it.
      return as(HOST_PATCH_TOOL, { patch: opencodePatchText(text('patchText')) });
    default: {
      if (AGENT_INTERNAL.has(tool)) return as('TodoWrite', { opencode_tool: tool, input });
      const server = mcpServerOf(tool, options.mcpServers);
      if (server !== undefined) return as(`mcp__${server.name}__${server.tool}`, input);
      return as(ownToolName('opencode', tool, options.hasMeaning), input);
    }
  }
}

/**
 * The patch opencode applies from `patchText` (1.18.33): what lies between
 * its `*** Begin Patch` and `*** End Patch` lines, whatever surrounds them
 * (a `cd dir &&` before it changes nothing: its paths are the session's,
 * and judging them from dir let a patch write into a zone it could not;
 * found on review). Without those lines, the text as it is, which the
 * patch reader refuses.
 */
function opencodePatchText(text: string): string {
  const lines = text.split(/\r?\n/);
  const begin = lines.findIndex((line) => line.trim() === '*** Begin Patch');
  const end = lines.findLastIndex((line) => line.trim() === '*** End Patch');
  return begin === -1 || end <= begin ? text : lines.slice(begin, end + 1).join('\n');
}

/** The policy's MCP server whose tool `tool` is, as opencode names its MCP tools; undefined when none or more than one could be. */
function mcpServerOf(tool: string, servers: readonly string[]): { name: string; tool: string } | undefined {
  const matches = servers.filter((name) => tool.startsWith(`${opencodeName(name)}_`) && tool.length > opencodeName(name).length + 1);
  if (matches.length !== 1) return undefined;
  return { name: matches[0]!, tool: tool.slice(opencodeName(matches[0]!).length + 1) };
}

/** A name as opencode puts it in a tool's name. */
function opencodeName(name: string): string {
  return name.replace(/[^a-zA-Z0-9_-]/g, '_');
}
