/**
 * Files whose content makes programs run code: git's metadata (its
 * configuration names programs, its hooks are programs), git attributes
 * and submodules, and the project configuration of other tools that run
 * commands from it (package managers' settings, cargo's runner, direnv's
 * `.envrc`, editors' tasks, shell start-up files). A tool allowed as a
 * reader (`git status`), or a program a person later runs outside the
 * sandbox (their editor, their shell), then runs what an agent wrote. So
 * writing or deleting one asks in every zone, through the file tools and
 * the shell alike.
 *
 * Pure: an absolute path in, a reason out. Names are compared
 * case-insensitively (macOS and Windows file systems fold case).
 */

/** Directories anything under which is code-loading, by name, with why. */
const DIRECTORIES: ReadonlyMap<string, string> = new Map([
  ['.git', 'version-control metadata (git runs the programs its configuration names, and its hooks)'],
  ['.hg', 'version-control metadata (Mercurial runs the hooks its configuration names)'],
  ['.husky', 'git hooks (husky points git at them)'],
  ['.githooks', 'git hooks'],
  ['.vscode', 'editor configuration (tasks, launch and settings run programs)'],
  ['.idea', 'editor configuration (run configurations and tools run programs)'],
  ['.zed', 'editor configuration (tasks run programs)'],
  ['.devcontainer', 'dev container configuration (its commands run on build and start)'],
  ['.mise', 'mise configuration (tasks and hooks run programs)'],
  // The agent hosts' own configuration: their hooks, permission rules, MCP servers and skills run commands.
  ['.claude', "Claude Code's configuration (its hooks, permissions, MCP servers and skills run commands)"],
  ['.codex', "Codex's configuration (its hooks, MCP servers and sandbox settings)"],
  ['.gemini', "Gemini CLI's configuration (its hooks and MCP servers run commands)"],
  ['.cursor', "Cursor's configuration (its hooks, rules and MCP servers run commands)"],
  ['.opencode', "opencode's configuration (its plugins and tools are code it runs, its MCP servers and formatters commands)"],
]);

/** Files that are code-loading wherever they are, by name, with why. */
const FILES: ReadonlyMap<string, string> = new Map([
  ['.gitattributes', 'git attributes (they select filter and diff programs)'],
  ['.gitmodules', 'git submodule configuration'],
  ['.gitconfig', 'git configuration (it names programs git runs)'],
  ['.lfsconfig', 'git LFS configuration'],
  ['.envrc', 'a direnv file (shell code run on entering the directory)'],
  ['.npmrc', 'npm configuration (script-shell, node-options and hooks run programs)'],
  ['.yarnrc', 'yarn configuration (yarn-path runs a program)'],
  ['.yarnrc.yml', 'yarn configuration (yarnPath and plugins run code)'],
  ['.pnpmfile.cjs', 'a pnpm hook file (code run on install)'],
  ['.pnpmfile.mjs', 'a pnpm hook file (code run on install)'],
  ['bunfig.toml', 'bun configuration (preload scripts run code)'],
  ['.pre-commit-config.yaml', 'pre-commit configuration (its hooks run on commit)'],
  ['mise.toml', 'mise configuration (tasks and hooks run programs)'],
  ['.mise.toml', 'mise configuration (tasks and hooks run programs)'],
  ['mise.local.toml', 'mise configuration (tasks and hooks run programs)'],
  ['.mise.local.toml', 'mise configuration (tasks and hooks run programs)'],
  ['.bashrc', 'a shell start-up file'],
  ['.bash_profile', 'a shell start-up file'],
  ['.bash_login', 'a shell start-up file'],
  ['.bash_logout', 'a shell start-up file'],
  ['.profile', 'a shell start-up file'],
  ['.zshrc', 'a shell start-up file'],
  ['.zshenv', 'a shell start-up file'],
  ['.zprofile', 'a shell start-up file'],
  ['.zlogin', 'a shell start-up file'],
  ['.mcp.json', 'MCP server configuration (the agent host starts the commands it names)'],
  ['opencode.json', "opencode's configuration (its plugins, providers, MCP servers, formatters and shell run code)"],
  ['opencode.jsonc', "opencode's configuration (its plugins, providers, MCP servers, formatters and shell run code)"],
  // Lower case: names are looked up folded (codeLoadingFile), so an upper-case key would never match.
  ['claude.md', "an agent host's standing instructions (Claude Code reads them as the user's)"],
  ['agents.md', "an agent host's standing instructions (Codex and others read them as the user's)"],
  ['gemini.md', "an agent host's standing instructions (Gemini CLI reads them as the user's)"],
]);

/** Files code-loading only inside a directory of a given name: `.cargo/config.toml`, `.bundle/config`. */
const NESTED: readonly { directory: string; names: ReadonlySet<string>; why: string }[] = [
  { directory: '.cargo', names: new Set(['config', 'config.toml']), why: 'cargo configuration (runner, rustc-wrapper and aliases run programs)' },
  { directory: '.bundle', names: new Set(['config']), why: 'bundler configuration' },
  { directory: '.yarn', names: new Set(['releases', 'plugins', 'sdks']), why: 'yarn\'s own code (yarnPath and plugins)' },
  // Interactive Copilot CLI runs a repository's hooks and reads its instructions and agents as the user's.
  { directory: '.github', names: new Set(['hooks', 'copilot-instructions.md', 'instructions', 'agents']), why: "GitHub Copilot's configuration (its hooks run commands; its instructions and agents are read as the user's)" },
];

/**
 * The names that are code-loading where they stand (a folder's or a file's),
 * as they are written, and the nested ones as paths (`.github/hooks`): what
 * is looked for beside a command before it runs in the OS sandbox (the
 * upper-case instruction files, as hosts name them).
 */
export const CODE_LOADING_NAMES: readonly string[] = [
  ...DIRECTORIES.keys(),
  ...FILES.keys(),
  'CLAUDE.md',
  'AGENTS.md',
  'GEMINI.md',
  ...NESTED.flatMap((entry) => [...entry.names].map((name) => `${entry.directory}/${name}`)),
];

/**
 * Why writing or deleting `absolute` needs a person whatever the zone
 * allows, or undefined. A path inside a code-loading directory counts
 * (`.git/hooks/pre-commit`), and so does the directory itself (`.git`:
 * removing or replacing it swaps the configuration).
 *
 * Only the components below `root` (the zone's root, when known) count.
 *
 * @example
 * codeLoadingFile({ absolute: '/p/ws/.git/config', root: '/p/ws' }) // 'version-control metadata (git runs ...)'
 * codeLoadingFile({ absolute: '/p/ws/sub/.envrc', root: '/p/ws' })  // 'a direnv file (shell code run on entering the directory)'
 * codeLoadingFile({ absolute: '/p/ws/src/index.ts' })                // undefined
 */
export function codeLoadingFile(options: { absolute: string; root?: string }): string | undefined {
  const { absolute, root } = options;
  const below = root !== undefined && (absolute === root || absolute.startsWith(`${root.replace(/[\\/]+$/, '')}/`)) ? absolute.slice(root.length) : absolute;
  const components = below.split(/[\\/]+/).filter((component) => component !== '');
  for (let index = 0; index < components.length; index++) {
    const component = components[index]!.toLowerCase();
    const directory = DIRECTORIES.get(component);
    if (directory !== undefined) return directory;
    if (index === components.length - 1) {
      const file = FILES.get(component);
      if (file !== undefined) return file;
    }
    const nested = NESTED.find((entry) => entry.directory === component);
    const next = components[index + 1]?.toLowerCase();
    if (nested !== undefined && next !== undefined && nested.names.has(next)) return nested.why;
  }
  return undefined;
}
