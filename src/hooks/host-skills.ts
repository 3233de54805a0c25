/**
 * What a Claude Code skill runs on the model's behalf before the model sees
 * it. A `Skill` call (skills in `.claude/skills/<name>/SKILL.md`, custom
 * slash commands in `.claude/commands/<name>.md`, the user's in
 * `~/.claude`, and plugins') loads the file and runs its inline shell lines
 * — `` !`command` `` and fenced ```` ```! ```` blocks — with no PreToolUse
 * hook of their own (measured with Claude Code 2.1.332: the only hook call
 * is the `Skill` call itself). So the hook reads the skill first: every file
 * that could be the one Claude Code loads, every inline command in it, each
 * to be judged by the shell analysis and shown on the card. A skill that
 * cannot be found or read is blocked: what it would run cannot be known.
 */
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { readRegularFile } from './host-transcript.ts';
import { shellSplit } from '../core/shell-split.ts';

/** The largest skill file read; a larger one is blocked (Claude Code itself skips some over 128 KiB). */
const MAX_SKILL_BYTES = 1024 * 1024;
/** How deep under the plugins directory a plugin's skills are looked for. */
const MAX_PLUGIN_DEPTH = 7;
/** More inline commands than this and the skill is blocked, not judged one by one. */
const MAX_INLINE_COMMANDS = 100;

export interface ResolvedSkill {
  name: string;
  /** Every file Claude Code could load for this name (judged together: toolgate does not guess which one wins). */
  files: string[];
  /** The inline commands of all of them, with the call's arguments in place. */
  commands: string[];
  /** A shell a file's frontmatter names (`shell:`), which runs its commands instead of the user's. */
  shell?: string;
}

/**
 * @example
 * resolveSkill({ name: 'deploy', args: undefined, cwd: '/p', env: process.env })
 * // { name: 'deploy', files: ['/p/.claude/skills/deploy/SKILL.md'], commands: ['git status'] }
 */
export function resolveSkill(options: { name: unknown; args: unknown; cwd: string; env: Readonly<Record<string, string | undefined>> }): ResolvedSkill | { problem: string } {
  const { name, cwd, env } = options;
  if (typeof name !== 'string' || !/^[A-Za-z0-9_][A-Za-z0-9_.:-]{0,199}$/.test(name) || name.includes('..')) {
    return { problem: `the skill name ${JSON.stringify(name)} is not one toolgate can look up (letters, digits, _ . : - only)` };
  }
  const args = typeof options.args === 'string' ? options.args : options.args === undefined ? '' : JSON.stringify(options.args);
  const home = env.HOME ?? '/';
  const configDirectory = env.CLAUDE_CONFIG_DIR ?? path.join(home, '.claude');
  const candidates: string[] = [];
  const [plugin, pluginSkill] = name.includes(':') ? [name.slice(0, name.indexOf(':')), name.slice(name.indexOf(':') + 1)] : [undefined, undefined];
  // The project's, in the working directory and every directory above it, and the user's.
  for (let directory = cwd; ; directory = path.dirname(directory)) {
    candidates.push(...skillFiles(path.join(directory, '.claude'), name));
    if (path.dirname(directory) === directory) break;
  }
  candidates.push(...skillFiles(configDirectory, name));
  if (plugin !== undefined && pluginSkill !== undefined) candidates.push(...pluginSkillFiles(path.join(configDirectory, 'plugins'), plugin, pluginSkill));
  // Each candidate read once: the ones that are there are the files.
  const texts = new Map<string, string | 'too large'>();
  for (const file of new Set(candidates)) {
    const text = readRegularFile(file, MAX_SKILL_BYTES);
    if (text !== undefined) texts.set(file, text);
  }
  const files = [...texts.keys()];
  if (files.length === 0) {
    return { problem: `the skill ${name} was not found where Claude Code keeps skills and commands (.claude/skills, .claude/commands here and above, ${configDirectory}, its plugins), so what it runs cannot be read beforehand` };
  }
  const commands: string[] = [];
  let shell: string | undefined;
  for (const file of files) {
    const text = texts.get(file)!;
    if (text === 'too large') return { problem: `the skill file ${file} is larger than ${MAX_SKILL_BYTES} bytes` };
    const frontmatter = frontmatterOf(text);
    if (frontmatter.problem !== undefined) return { problem: `the skill file ${file}: ${frontmatter.problem}` };
    const skillDirectory = path.dirname(file);
    for (const command of [...inlineCommands(text), ...frontmatter.hookCommands]) {
      // Claude Code's own variables for a skill: where it is.
      const placed = command.replaceAll('${CLAUDE_SKILL_DIR}', skillDirectory);
      commands.push(...argumentVariants(placed, args, frontmatter.argumentNames));
    }
    shell ??= frontmatter.shell;
  }
  if (commands.length > MAX_INLINE_COMMANDS) return { problem: `the skill ${name} has more than ${MAX_INLINE_COMMANDS} inline commands` };
  return { name, files, commands, ...(shell === undefined ? {} : { shell }) };
}

/** `<base>/skills/<name>/SKILL.md` and `<base>/commands/<name>.md` (a `:` in a command's name is a subdirectory). */
function skillFiles(base: string, name: string): string[] {
  return [path.join(base, 'skills', name, 'SKILL.md'), path.join(base, 'commands', `${name.replaceAll(':', path.sep)}.md`)];
}

/** A plugin's `skills/<skill>/SKILL.md` or `commands/<skill>.md`, anywhere under the plugins directory below a directory named for the plugin. */
function pluginSkillFiles(root: string, plugin: string, skill: string): string[] {
  const { readdirSync } = process.getBuiltinModule('node:fs');
  const found: string[] = [];
  const walk = (directory: string, depth: number, underPlugin: boolean): void => {
    if (depth > MAX_PLUGIN_DEPTH) return;
    let entries: Array<{ name: string; isDirectory(): boolean }>;
    try {
      entries = readdirSync(directory, { withFileTypes: true });
    } catch {
      return;
    }
    if (underPlugin) found.push(...skillFiles(directory, skill));
    for (const entry of entries) if (entry.isDirectory() && entry.name !== 'node_modules' && !entry.name.startsWith('.')) walk(path.join(directory, entry.name), depth + 1, underPlugin || entry.name === plugin);
  };
  walk(root, 0, false);
  return found;
}

/**
 * The inline shell commands of a skill's text: `` !`…` `` anywhere, and the
 * bodies of ```` ```! ```` fenced blocks. Read wider than Claude Code may
 * (a `!` inside a code example counts too): a command too many is judged,
 * never one too few.
 *
 * @example
 * inlineCommands('Status: !`git status`\n```!\nnpm test\n```') // ['git status', 'npm test']
 */
export function inlineCommands(text: string): string[] {
  const commands: string[] = [];
  // Claude Code's own block pattern (not tied to line starts: ```!rm -rf x``` mid-line runs too), and a line-anchored one
  // for blocks it closes otherwise; each block's whole body, the opening line's rest included.
  for (const match of text.matchAll(/```!\s*\n?([\s\S]*?)\n?```/g)) commands.push(match[1]!);
  for (const match of text.matchAll(/^[ \t>*+-]*(`{3,}|~{3,})!([^\n]*)\n([\s\S]*?)^[ \t>*+-]*\1/gm)) commands.push(`${match[2]!}\n${match[3]!}`);
  // Inline ones anywhere, blocks included: a command judged twice is judged, never one missed.
  for (const match of text.matchAll(/!`([^`]+)`/g)) commands.push(match[1]!);
  return [...new Set(commands.map((command) => command.trim()).filter((command) => command !== ''))];
}

/**
 * The texts `command` can become once Claude Code puts the call's arguments
 * in: `$ARGUMENTS`, `$ARGUMENTS[n]`, `$n`, `${n}` and the skill's named
 * `arguments:` (`$dir`). Rather than copy how Claude Code numbers and
 * splits them (which has changed between releases), every placeholder is
 * tried as the whole argument text and as each argument alone (split at
 * spaces, and as a shell splits them, quotes removed): each text is judged,
 * the worst verdict wins. The first is what the card shows.
 *
 * @example
 * argumentVariants('ls $0', 'src; rm -rf src', []) // ['ls src; rm -rf src', 'ls src;', 'ls rm', …]
 */
export function argumentVariants(command: string, args: string, named: readonly string[]): string[] {
  const placeholders = new RegExp(
    [String.raw`\$ARGUMENTS\[\d+\]`, String.raw`\$\{ARGUMENTS\}`, String.raw`\$ARGUMENTS\b`, String.raw`\$\{\d+\}`, String.raw`\$\d+`, ...named.map((name) => String.raw`\$\{${name}\}|\$${name}\b`)].join('|'),
    'g',
  );
  if (!placeholders.test(command)) return [command];
  const values = [args, ...new Set([...args.split(/\s+/), ...shellSplit(args)].filter((word) => word !== ''))];
  if (args.trim() === '') values.splice(0, values.length, '');
  return [...new Set(values.map((value) => command.replace(placeholders, () => value)))];
}


/**
 * What a skill's YAML frontmatter adds: the `shell:` its commands run with,
 * the names of its `arguments:`, and the commands of the `hooks:` it defines
 * (which run on the session's events while it is loaded, with no hook of
 * their own: judged like its inline commands). Frontmatter that is not YAML
 * is a problem: what it sets cannot be told.
 */
function frontmatterOf(text: string): { shell?: string; argumentNames: string[]; hookCommands: string[]; problem?: string } {
  const raw = /^---\r?\n([\s\S]*?)\r?\n---/.exec(text)?.[1];
  if (raw === undefined) return { argumentNames: [], hookCommands: [] };
  let data: unknown;
  try {
    data = parseYaml(raw);
  } catch (error) {
    return { argumentNames: [], hookCommands: [], problem: `its frontmatter is not YAML toolgate can read (${error instanceof Error ? error.message.split('\n')[0] : String(error)})` };
  }
  if (typeof data !== 'object' || data === null) return { argumentNames: [], hookCommands: [] };
  const record = data as Record<string, unknown>;
  const hookCommands: string[] = [];
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (typeof value === 'object' && value !== null) for (const [key, member] of Object.entries(value)) key === 'command' && typeof member === 'string' ? hookCommands.push(member) : walk(member);
  };
  walk(record.hooks);
  const declared = record.arguments;
  const argumentNames = (Array.isArray(declared) ? declared : typeof declared === 'object' && declared !== null ? Object.keys(declared) : [])
    .map((entry) => (typeof entry === 'string' ? entry : typeof entry === 'object' && entry !== null ? (entry as { name?: unknown }).name : undefined))
    .filter((name): name is string => typeof name === 'string' && /^[A-Za-z_][A-Za-z0-9_]*$/.test(name));
  return { ...(typeof record.shell === 'string' ? { shell: record.shell } : {}), argumentNames, hookCommands };
}
