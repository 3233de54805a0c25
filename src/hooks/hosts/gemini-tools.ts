/**
 * Gemini CLI's tools in the terms toolgate judges Claude Code's by
 * (host-call.ts `toolgateCallOf`): its shell, file, search and web tools are
 * the same acts under other names and arguments. Paths are resolved against
 * the session's directory, as Gemini CLI resolves them. A tool with no
 * counterpart keeps its own name, for the policy's rules and `unknown_tools`.
 */
import path from 'node:path';
import { describe, HostInputError } from '../host-call.ts';

/** Tools that act only inside the agent: its to-do list, plans, questions to the user, its own documentation. */
const AGENT_INTERNAL = new Set(['write_todos', 'ask_user', 'enter_plan_mode', 'exit_plan_mode', 'get_internal_docs', 'complete_task', 'tracker_create_task', 'tracker_update_task', 'tracker_get_task', 'tracker_list_tasks', 'tracker_add_dependency', 'tracker_visualize']);

/**
 * @example
 * geminiInClaudeTerms({ tool: 'run_shell_command', input: { command: 'ls', dir_path: 'src' }, cwd: '/p' })
 * // { tool: 'Bash', input: { command: 'ls' }, cwd: '/p/src' }
 */
export function geminiInClaudeTerms(options: { tool: string; input: Record<string, unknown>; cwd: string }): { tool: string; input: Record<string, unknown>; cwd: string } {
  const { tool, input, cwd } = options;
  const text = (key: string): string => {
    const value = input[key];
    if (typeof value !== 'string') throw new HostInputError(`${tool}'s ${key} must be a string, not ${describe(value)}`);
    return value;
  };
  const optionalPath = (...keys: string[]): string | undefined => {
    const key = keys.find((candidate) => input[candidate] !== undefined);
    return key === undefined ? undefined : path.resolve(cwd, text(key));
  };
  const as = (claude: string, claudeInput: Record<string, unknown>, where = cwd) => ({ tool: claude, input: claudeInput, cwd: where });
  switch (tool) {
    case 'run_shell_command':
      return as('Bash', { command: text('command') }, optionalPath('dir_path', 'directory') ?? cwd);
    case 'read_file':
      return as('Read', { file_path: optionalPath('file_path', 'absolute_path') ?? text('file_path') });
    case 'write_file':
      return as('Write', { file_path: path.resolve(cwd, text('file_path')), content: text('content') });
    case 'replace':
      return as('Edit', { file_path: path.resolve(cwd, text('file_path')), old_string: text('old_string'), new_string: text('new_string'), replace_all: input.allow_multiple === true });
    case 'list_directory':
      return as('LS', { path: optionalPath('dir_path', 'path') ?? cwd });
    case 'glob':
      return as('Glob', { pattern: text('pattern'), path: optionalPath('dir_path', 'path') ?? cwd });
    case 'grep_search':
    case 'search_file_content':
      return as('Grep', { path: optionalPath('dir_path', 'path') ?? cwd, ...(input.include === undefined ? {} : { glob: text('include') }) });
    case 'google_web_search':
      return as('WebSearch', { query: text('query') });
    case 'web_fetch': {
      // Up to 20 URLs in a prompt: one judged as a fetch of it; several, or none found, by the tool's own name.
      const urls = text('prompt').match(/https?:\/\/[^\s<>"'`)\]]+/g) ?? [];
      return urls.length === 1 ? as('WebFetch', { url: urls[0]! }) : as(tool, input);
    }
    default:
      return AGENT_INTERNAL.has(tool) ? as('TodoWrite', { gemini_tool: tool, input }) : as(tool, input);
  }
}
