/**
 * GitHub Copilot CLI's tools (1.0.102, as its requests to the model list
 * them) in the terms toolgate judges Claude Code's by (host-call.ts
 * `toolgateCallOf`): its shell, file and search tools are the same acts
 * under other names and arguments. Paths resolve against the session's
 * directory, where each of its commands starts (its shell keeps no `cd` or
 * variable between calls). A tool with no counterpart keeps its own name,
 * for the policy's rules and `unknown_tools`.
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import { applyPatch, parsePatch } from 'diff';
import { describe, HostInputError, type ToolgateCall } from '../host-call.ts';

/** Tools that act only inside the agent: its shells' output, its session database, sub-agents (whose calls come through the hook too), its own documentation. */
const AGENT_INTERNAL = new Set(['read_bash', 'stop_bash', 'list_bash', 'sql', 'session_store_sql', 'read_agent', 'list_agents', 'write_agent', 'task', 'fetch_copilot_cli_documentation', 'report_intent', 'update_todo']);

/**
 * @example
 * copilotInClaudeTerms({ tool: 'create', input: { path: '/p/a.txt', file_text: 'x' }, cwd: '/p' })
 * // { tool: 'Write', input: { file_path: '/p/a.txt', content: 'x' }, cwd: '/p' }
 */
export function copilotInClaudeTerms(options: { tool: string; input: Record<string, unknown>; cwd: string }): { tool: string; input: Record<string, unknown>; cwd: string } {
  const { tool, input, cwd } = options;
  const text = (key: string): string => {
    const value = input[key];
    if (typeof value !== 'string') throw new HostInputError(`${tool}'s ${key} must be a string, not ${describe(value)}`);
    return value;
  };
  const as = (claude: string, claudeInput: Record<string, unknown>) => ({ tool: claude, input: claudeInput, cwd });
  switch (tool) {
    case 'bash':
      return as('Bash', { command: text('command') });
    case 'view': {
      // A file is read; a folder is listed.
      const target = path.resolve(cwd, text('path'));
      return isDirectory(target) ? as('LS', { path: target }) : as('Read', { file_path: target });
    }
    case 'create':
      return as('Write', { file_path: path.resolve(cwd, text('path')), content: text('file_text') });
    case 'edit':
      return as('Edit', { file_path: path.resolve(cwd, text('path')), old_string: text('old_str'), new_string: text('new_str') });
    case 'glob':
      return as('Glob', { pattern: text('pattern'), path: searchedFolder(input.paths, cwd, tool) });
    case 'grep':
      return as('Grep', { path: searchedFolder(input.paths, cwd, tool), ...(input.glob === undefined ? {} : { glob: text('glob') }) });
    default:
      return AGENT_INTERNAL.has(tool) ? as('TodoWrite', { copilot_tool: tool, input }) : as(tool, input);
  }
}

/** The folder a search reads: its one directory, or the folder holding all of several (a search of each is a read below it). */
function searchedFolder(paths: unknown, cwd: string, tool: string): string {
  if (paths === undefined) return cwd;
  const list = typeof paths === 'string' ? [paths] : Array.isArray(paths) && paths.length > 0 && paths.every((entry) => typeof entry === 'string') ? (paths as string[]) : undefined;
  if (list === undefined) throw new HostInputError(`${tool}'s paths must be a directory or a non-empty list of them, not ${describe(paths)}`);
  const absolute = list.map((entry) => path.resolve(cwd, entry));
  let common = absolute[0]!;
  for (const entry of absolute.slice(1)) {
    while (entry !== common && !entry.startsWith(common.endsWith(path.sep) ? common : `${common}${path.sep}`)) common = path.dirname(common);
  }
  return common;
}

function isDirectory(target: string): boolean {
  return statSync(target, { throwIfNoEntry: false })?.isDirectory() === true;
}

/** A diff longer than this is shown as it is, not applied (the hook decides before its deadline). */
const MAX_DIFF_BYTES = 4 * 1024 * 1024;

/**
 * Copilot CLI's permission request for a file change (`edit`, for its
 * create and edit tools alike; measured with 1.0.102): `{file_path, diff}`,
 * a git diff of that one file. Judged as the write it is, at `file_path`:
 * its content after the diff, where the diff applies to what the zones let
 * be read (a new file's, to nothing); otherwise the diff itself is what is
 * shown.
 *
 * @example
 * copilotDiffAsWrite({ input: { file_path: 'a.txt', diff: '--- a/dev/null\n+++ b/a.txt\n@@ -1,0 +1,1 @@\n+hi\n' }, cwd: '/p', readText: () => undefined })
 * // { kind: 'tool', tool: 'write_file', args: { path: '/p/a.txt', content: 'hi\n' } }
 */
export function copilotDiffAsWrite(options: { input: Record<string, unknown>; cwd: string; readText: (file: string) => string | undefined }): ToolgateCall {
  const { input, cwd, readText } = options;
  const text = (key: string): string => {
    const value = input[key];
    if (typeof value !== 'string') throw new HostInputError(`edit's ${key} must be a string, not ${describe(value)}`);
    return value;
  };
  const file = path.resolve(cwd, text('file_path'));
  const diff = text('diff');
  const write = (content: string): ToolgateCall => ({ kind: 'tool', tool: 'write_file', args: { path: file, content } });
  if (diff.length > MAX_DIFF_BYTES) return write(diff);
  const patches = parsePatch(diff);
  if (patches.length !== 1) return write(diff);
  const [patch] = patches;
  if (/^(a\/)?\/?dev\/null$/.test(patch!.oldFileName ?? '')) {
    // A new file: its lines are the diff's added ones.
    const lines = patch!.hunks.flatMap((hunk) => hunk.lines);
    const added = lines.filter((line) => line.startsWith('+')).map((line) => line.slice(1));
    return write(added.length === 0 ? '' : `${added.join('\n')}${lines.at(-1)?.startsWith('\\') === true ? '' : '\n'}`);
  }
  const before = readText(file);
  const after = before === undefined ? false : applyPatch(before, patch!);
  return write(after === false ? diff : after);
}
