/**
 * Gemini CLI's tools in the terms toolgate judges Claude Code's by
 * (host-call.ts `toolgateCallOf`): its shell, file, search and web tools are
 * the same acts under other names and arguments. Paths are resolved against
 * the session's directory, as Gemini CLI resolves them. A tool with no
 * counterpart keeps its own name, for the policy's rules and `unknown_tools`.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, HOST_SHELL_TOOL, HostInputError, WEB_FETCH_TOOL, type ToolgateCall } from '../host-call.ts';

/** Tools that act only inside the agent: its to-do list, plans, questions to the user, its own documentation. */
const AGENT_INTERNAL = new Set(['write_todos', 'ask_user', 'enter_plan_mode', 'exit_plan_mode', 'get_internal_docs', 'complete_task', 'tracker_create_task', 'tracker_update_task', 'tracker_get_task', 'tracker_list_tasks', 'tracker_add_dependency', 'tracker_visualize']);

/**
 * @example
 * geminiInClaudeTerms({ tool: 'run_shell_command', input: { command: 'ls', dir_path: 'src' }, cwd: '/p' })
 * // { tool: 'Bash', input: { command: 'ls' }, cwd: '/p/src' }
 */
export function geminiInClaudeTerms(options: { tool: string; input: Record<string, unknown>; cwd: string }): { tool: string; input: Record<string, unknown>; cwd: string } | { call: ToolgateCall } {
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
  // The file tools' paths as Gemini CLI resolves them (`@x` is `x` where no `@x` exists: a reviewer wrote past a zone with `@../`).
  const filePath = (key: string): string => path.resolve(cwd, defensivePath(text(key), cwd));
  const as = (claude: string, claudeInput: Record<string, unknown>, where = cwd) => ({ tool: claude, input: claudeInput, cwd: where });
  switch (tool) {
    case 'run_shell_command': {
      const where = optionalPath('dir_path', 'directory') ?? cwd;
      const command = strippedShellWrapper(text('command'));
      if (command === undefined) {
        const why = 'Gemini CLI takes a leading `bash -c "…"` off and unquotes the rest its own way (shell-quote) before running it: write the command itself';
        return as(HOST_SHELL_TOOL, { command: text('command'), shell: 'bash', why }, where);
      }
      return as('Bash', { command }, where);
    }
    case 'read_file':
      return as('Read', { file_path: filePath('file_path') });
    case 'write_file':
      return as('Write', { file_path: filePath('file_path'), content: text('content') });
    case 'replace':
      return as('Edit', { file_path: filePath('file_path'), old_string: text('old_string'), new_string: text('new_string'), replace_all: input.allow_multiple === true });
    case 'read_many_files': {
      // Every file its include patterns match, under the session's folder: judged as a search of their common folder.
      const include = input.include;
      if (!Array.isArray(include) || include.length === 0 || !include.every((entry) => typeof entry === 'string')) throw new HostInputError(`read_many_files's include must be a non-empty list of strings, not ${describe(include)}`);
      const patterns = include as string[];
      const pattern = patterns.length === 1 ? patterns[0]! : patterns.some((entry) => /[{},]/.test(entry)) ? '/**' : `{${patterns.join(',')}}`;
      return as('Glob', { pattern, path: cwd });
    }
    case 'list_directory':
      return as('LS', { path: optionalPath('dir_path', 'path') ?? cwd });
    case 'glob':
      return as('Glob', { pattern: text('pattern'), path: optionalPath('dir_path', 'path') ?? cwd });
    case 'grep_search':
    case 'search_file_content': {
      const include = input.include_pattern !== undefined ? text('include_pattern') : input.include !== undefined ? text('include') : undefined;
      return as('Grep', { path: optionalPath('dir_path', 'path') ?? cwd, ...(include === undefined ? {} : { glob: include }) });
    }
    case 'google_web_search':
      return as('WebSearch', { query: text('query') });
    case 'web_fetch': {
      // The URLs as Gemini CLI finds them: each word of the prompt that parses as an http(s) URL, and `url` (its direct
      // fetch). Every one is judged; a prompt with none fetches nothing.
      const words = [...(input.prompt === undefined ? [] : text('prompt').split(/\s+/)), ...(input.url === undefined ? [] : [text('url')])];
      const urls = words.filter((word) => {
        try {
          return ['http:', 'https:'].includes(new URL(word).protocol);
        } catch {
          return false;
        }
      });
      // Several URLs have no Claude Code counterpart: the call is made here (host-tools.ts judges each).
      return { call: { kind: 'tool', tool: WEB_FETCH_TOOL, args: { urls: urls.length === 0 ? words.filter((word) => word !== '').slice(0, 1) : urls } } };
    }
    default:
      return AGENT_INTERNAL.has(tool) ? as('TodoWrite', { gemini_tool: tool, input }) : as(tool, input);
  }
}

/**
 * What Gemini CLI runs for a command (its stripShellWrapper, 0.61): a leading `sh|bash|zsh -c`, `cmd.exe /c` or
 * `powershell|pwsh -Command` taken off, and then a rest wrapped in matching quotes taken out of them — by cutting the
 * first and last character, except for `"…"` after a POSIX shell, which it unquotes with shell-quote. That one case is
 * not reproduced (undefined: the call needs a person); the others are judged as what they run.
 */
function strippedShellWrapper(command: string): string | undefined {
  const match = /^\s*(?:(?:(?:\S+\/)?(?:sh|bash|zsh))\s+-c|cmd\.exe\s+\/c|powershell(?:\.exe)?\s+(?:-NoProfile\s+)?-Command|pwsh(?:\.exe)?\s+(?:-NoProfile\s+)?-Command)\s+/i.exec(command);
  if (match === null) return command.trim();
  const rest = command.slice(match[0].length).trim();
  const quoted = rest.length >= 2 && ((rest.startsWith('"') && rest.endsWith('"')) || (rest.startsWith("'") && rest.endsWith("'")));
  if (!quoted) return rest;
  if (match[0].trim().endsWith('-c') && rest.startsWith('"')) return undefined;
  return rest.slice(1, -1);
}

/** A file tool's path as Gemini CLI reads it (its resolveDefensiveToolPath, 0.61): `@x` is `x` unless `@x`, or `@` and x's first folder, exists. */
function defensivePath(filePath: string, cwd: string): string {
  const clean = filePath.replaceAll('\0', '');
  if (existsSync(path.resolve(cwd, clean)) || !clean.startsWith('@') || clean.length === 1) return clean;
  const stripped = clean.slice(1).replace(/^[\\/]+/, '');
  if (clean.startsWith('@/') || clean.startsWith('@\\')) return stripped.length > 0 ? stripped : clean;
  const first = stripped.split(/[\\/]/)[0];
  if (first === undefined || first === '') return clean;
  return existsSync(path.resolve(cwd, `@${first}`)) ? clean : stripped;
}
