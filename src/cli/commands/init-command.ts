import { INSTALLABLE_HOSTS } from '../../hooks/host-install.ts';
import type { HostName } from '../../hooks/host-call.ts';
import { closeSync, lstatSync, openSync, renameSync, writeFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { findPolicyFile } from '../../config/load-policy-file.ts';
import { sanitizeTerminalText } from '../../core/sanitize-terminal-text.ts';
import { parsePolicy } from '../../core/policy/parse-policy.ts';
import { detectSandbox, type SandboxDetection } from '../../sandbox/detect-sandbox.ts';
import { EXIT, type CliIo } from '../cli-io.ts';
import { UsageError } from '../cli-support.ts';
import { parseCommandLine } from '../parse-command-line.ts';
import { askYesNo } from '../ask-yes-no.ts';
import { detectProject, type ProjectFacts } from '../detect-project.ts';
import { addStateDirectoryToGitignore, gitignoreIgnoresStateDirectory, readGitignore, STATE_DIRECTORY_LINE } from '../gitignore-state-directory.ts';
import { hostStarterPolicy, starterPolicy } from '../starter-policy.ts';
import { userPolicyFile } from '../../config/find-host-policy.ts';
import { trustPolicy } from '../../config/policy-trust.ts';
import { toolgateConfigHome } from '../../config/user-toolgate-paths.ts';
import { makeDirectoriesSync } from '../../filesystem/make-directories.ts';
import { errorMessage } from '../../core/run-tool-check.ts';

export const INIT_HELP = `Usage: toolgate init [--policy FILE] [--for HOST] [--force] [--gitignore | --no-gitignore]
       toolgate init --user [--force]

Writes a starter policy for this project: ./toolgate.yaml, the built-in
default policy of \`toolgate run\` spelled out and commented (zones, shell
rules, sandbox, mode), ready to change. The sandbox line is chosen for this
machine: os: required where an OS sandbox works, else os: preferred.

It looks at the project (the policy's folder; it reads a few files and runs
nothing) and proposes shell rules for what it finds: in a git repository,
git status, diff and log are allowed (they only read it). The package
manager's test, build and lint scripts (package.json, with npm, pnpm, yarn
or bun by its lockfile) and the build tools (make, cargo, go, pytest, mvn)
get rules too, commented out: they run the project's own code, which the
agent can change first, so they ask until you uncomment them.

toolgate keeps approvals and the audit log in .toolgate/ beside the policy.
In a git repository (or beside a .gitignore) init offers to add that one
line to the .gitignore there: it asks when stdin is a terminal, and never
changes the file without a yes or --gitignore.

For the agents you already run (toolgate install claude-code | codex |
gemini | copilot | opencode | cursor), the calls run in the host, not in
toolgate's sandbox, so a starter for them says so and decides accordingly:
--for claude-code (or codex, gemini, copilot, opencode, cursor) writes one where
reads and writes in the project are allowed, deletes ask, files outside it
(~/.ssh, ~/.aws, other projects) are blocked, and commands no rule names ask,
networked ones included (npm install, git push, curl). init trusts the policy
it writes: agent hosts' hooks judge calls in this project with it
(toolgate trust --help). Gemini CLI has no "ask" in a hook's answer: what
asks is denied there with the reason, unless the hook's asks go to the
server's inbox (toolgate install gemini --approver server).

Options:
  --policy FILE   where to write it (default: ./toolgate.yaml)
  --for HOST      the starter for an agent host's hook: claude-code, codex,
                  gemini, copilot, opencode or cursor
  --user          write the user-level policy instead, for the agent hosts'
                  calls in every project that has no toolgate.yaml of its own
                  ($XDG_CONFIG_HOME/toolgate/toolgate.yaml, ~/.config/toolgate);
                  its zone is whichever project a call is made in
  --force         replace an existing file
  --gitignore     add .toolgate/ to .gitignore without asking (once: nothing
                  is added when it is there); also with a policy already there
  --no-gitignore  leave .gitignore as it is, and do not ask
  -h, --help      this help

Exit codes:
  0  written; or, with --gitignore, the line added beside a policy that was
     already there (the policy left as it is)
  1  a policy file is already there (nothing written; --force replaces it),
     or .gitignore could not be written
  2  usage error
`;

export interface InitDependencies {
  /** How the sandbox is found (tests inject one). Default `detectSandbox`. */
  detectSandbox?: () => Promise<SandboxDetection>;
}

/**
 * `toolgate init`: writes a commented starter `toolgate.yaml`.
 *
 * @example
 * process.exitCode = await runInitCommand([], processIo());
 */
export async function runInitCommand(argv: string[], io: CliIo, dependencies: InitDependencies = {}): Promise<number> {
  const { values } = parseCommandLine({
    argv,
    options: { policy: { type: 'string' }, for: { type: 'string' }, user: { type: 'boolean' }, force: { type: 'boolean' }, gitignore: { type: 'boolean' }, 'no-gitignore': { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help === true) {
    io.stdout.write(INIT_HELP);
    return EXIT.ok;
  }
  // Every host install writes a hook for: its "no policy" error names init --for HOST.
  if (values.for !== undefined && !INSTALLABLE_HOSTS.includes(String(values.for) as HostName)) throw new UsageError(`--for must be ${INSTALLABLE_HOSTS.join(', ')}, not ${JSON.stringify(values.for)}`);
  if (values.user === true) {
    if (values.policy !== undefined || values.gitignore === true || values['no-gitignore'] === true) throw new UsageError('--user writes the user-level policy in toolgate\'s config home: leave out --policy and --gitignore');
    return writeUserPolicy({ io, force: values.force === true });
  }
  if (values.gitignore === true && values['no-gitignore'] === true) {
    throw new UsageError('give --gitignore (add .toolgate/ to .gitignore) or --no-gitignore (leave it as it is), not both');
  }
  const gitignoreChoice: GitignoreChoice = values.gitignore === true ? 'add' : values['no-gitignore'] === true ? 'leave' : 'ask';
  const file = path.resolve(io.cwd, values.policy ?? 'toolgate.yaml');
  if (!/\.ya?ml$/.test(file)) throw new UsageError(`--policy must name a .yaml or .yml file, not ${JSON.stringify(values.policy)}`);
  // The zones' roots are relative to the policy: its folder is the project.
  const projectDirectory = path.dirname(file);
  // Another policy file beside it would be found first, or instead: say so rather than write a second one.
  const existing = entryExists(file) ? file : values.policy === undefined ? findPolicyFile(io.cwd) : undefined;
  if (existing !== undefined && values.force !== true) {
    // An explicit --gitignore is how a project that has its policy adds the line: that is the whole request, and it succeeds.
    if (gitignoreChoice === 'add') {
      io.stdout.write(`${sanitizeTerminalText(existing)} is already there: left as it is\n`);
      const added = await offerGitignore({ io, directory: projectDirectory, choice: 'add', git: detectProject({ directory: projectDirectory }).git !== undefined });
      return added ? EXIT.ok : EXIT.blockedOrDenied;
    }
    io.stderr.write(`toolgate init: ${sanitizeTerminalText(existing)} is already there: nothing written (--force replaces it; --gitignore adds only the .gitignore line)\n`);
    return EXIT.blockedOrDenied;
  }
  const forHost = values.for !== undefined;
  const detection = forHost ? undefined : await (dependencies.detectSandbox ?? (() => detectSandbox({ environment: { PATH: io.env.PATH ?? process.env.PATH } })))();
  const project = detectProject({ directory: projectDirectory });
  const text = detection === undefined ? hostStarterPolicy({ user: false, project }) : starterPolicy({ sandboxAvailable: detection.available, project });
  // The starter must load: a broken template would fail the person's first run.
  parsePolicy({ text, source: file });
  if (values.force === true) {
    // Replace the entry itself, never write through a symlink to wherever it points.
    const temporary = `${file}.${process.pid}.tmp`;
    writeFileSync(temporary, text, { mode: 0o644, flag: 'wx' });
    renameSync(temporary, file);
  } else {
    // wx: never follows a symlink or replaces a file that appeared meanwhile.
    const descriptor = openSync(file, 'wx', 0o644);
    try {
      writeSync(descriptor, text);
    } finally {
      closeSync(descriptor);
    }
  }
  const safe = (value: string) => sanitizeTerminalText(value);
  io.stdout.write(`wrote ${safe(file)}\n`);
  if (detection === undefined) io.stdout.write(`  for ${values.for}'s hook: the host runs the calls it allows itself, outside toolgate's sandbox; next: toolgate install ${values.for}\n`);
  else {
    io.stdout.write(
      detection.available
        ? `  sandbox: { os: required, fallback: refuse_tools }: an OS sandbox (${detection.kind}) works here\n`
        : `  sandbox: { os: preferred }: no OS sandbox here (${safe(detection.reason ?? 'unknown reason')})\n`,
    );
  }
  io.stdout.write(`  ${trustWritten({ file, text, env: io.env })}\n`);
  io.stdout.write(`  ${safe(describeProject(project))}\n`);
  for (const note of project.notes) io.stdout.write(`  note: ${safe(note)}\n`);
  const gitignored = await offerGitignore({ io, directory: projectDirectory, choice: gitignoreChoice, git: project.git !== undefined });
  io.stdout.write(`  edit it, and try it with \`toolgate check --tool NAME --args JSON\`\n`);
  return gitignored ? EXIT.ok : EXIT.blockedOrDenied;
}

/** Trusts the policy init just wrote (the person asked for it): agent hosts' hooks use it in this project. One line saying so, or why not. */
function trustWritten(options: { file: string; text: string; env: CliIo['env'] }): string {
  try {
    trustPolicy({ file: options.file, text: options.text, env: options.env });
    return 'trusted: agent hosts\' hooks (toolgate install) judge calls in this project with it; after you edit it, run `toolgate trust` again';
  } catch (error) {
    return `not trusted (${sanitizeTerminalText(errorMessage(error))}): agent hosts' hooks block calls here until \`toolgate trust\` records it`;
  }
}

/** `init --user`: the user-level policy, for agent hosts' calls in every project without a policy of its own. */
async function writeUserPolicy(options: { io: CliIo; force: boolean }): Promise<number> {
  const { io } = options;
  const home = toolgateConfigHome(io.env);
  const existing = userPolicyFile(io.env);
  const file = existing ?? path.join(home, 'toolgate.yaml');
  if (existing !== undefined && !options.force) {
    io.stderr.write(`toolgate init: ${sanitizeTerminalText(existing)} is already there: nothing written (--force replaces it)\n`);
    return EXIT.blockedOrDenied;
  }
  const text = hostStarterPolicy({ user: true });
  parsePolicy({ text, source: file });
  makeDirectoriesSync(home, 0o700);
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, text, { mode: 0o600, flag: 'wx' });
  renameSync(temporary, file);
  io.stdout.write(`wrote ${sanitizeTerminalText(file)}\n`);
  io.stdout.write('  the user-level policy: agent hosts\' hooks judge the calls in every project without a toolgate.yaml of its own with it, its zone rooted at that project\n');
  io.stdout.write('  next: toolgate install claude-code --scope user, and toolgate install codex\n');
  return EXIT.ok;
}

/** What the flags say about .gitignore: add the line, leave the file, or ask (when there is a terminal). */
type GitignoreChoice = 'add' | 'leave' | 'ask';

/** One line on what init found and proposed rules for. */
function describeProject(project: ProjectFacts): string {
  const found: string[] = [];
  if (project.git !== undefined) found.push('a git repository (git status, diff, log allowed)');
  const manager = project.packageManager;
  if (manager !== undefined) {
    const scripts = manager.scripts.map((script) => script.name);
    found.push(`${manager.name} (${manager.evidence})${scripts.length === 0 ? ', no test, build or lint script' : ` with ${scripts.join(', ')}`}`);
  }
  for (const tool of project.buildTools) found.push(`${tool.name} (${tool.file})`);
  if (found.length === 0) return 'project: no git repository, package manager or build tool found; only the generic rules';
  const commented = (manager?.scripts.length ?? 0) > 0 || project.buildTools.length > 0;
  return `project: ${found.join('; ')}${commented ? ': rules that run the project\'s code are commented out (uncomment to allow)' : ''}`;
}

/**
 * Adds `.toolgate/` to the project's .gitignore when the person says so (the
 * flag, or a yes at the terminal), and says what it did. Never asks without
 * a terminal, and asks only where git matters (a repository, or a .gitignore
 * already there). False when the file could not be written.
 */
async function offerGitignore(options: { io: CliIo; directory: string; choice: GitignoreChoice; git: boolean }): Promise<boolean> {
  const { io, choice } = options;
  const file = path.join(options.directory, '.gitignore');
  const shown = sanitizeTerminalText(file);
  let text: string | undefined;
  try {
    text = readGitignore(file);
  } catch (error) {
    io.stderr.write(`toolgate init: cannot read ${shown} (${sanitizeTerminalText(errorMessage(error))}): left as it is\n`);
    return choice !== 'add';
  }
  if (text !== undefined && gitignoreIgnoresStateDirectory(text)) {
    io.stdout.write(`  .gitignore: already ignores ${STATE_DIRECTORY_LINE}\n`);
    return true;
  }
  const relevant = options.git || text !== undefined;
  let add = choice === 'add';
  if (choice === 'ask' && relevant) {
    if (io.stdin.isTTY === true) add = await askYesNo({ io, question: `add ${STATE_DIRECTORY_LINE} (toolgate's approvals and audit log) to ${shown}?` });
    else {
      io.stdout.write(`  .gitignore: ${STATE_DIRECTORY_LINE} is not in it; \`toolgate init --gitignore\` adds that line (no terminal to ask)\n`);
      return true;
    }
  }
  if (!add) {
    if (relevant) io.stdout.write(`  .gitignore: left as it is; \`toolgate init --gitignore\` adds ${STATE_DIRECTORY_LINE}\n`);
    return true;
  }
  try {
    const outcome = addStateDirectoryToGitignore({ file });
    io.stdout.write(outcome === 'created' ? `  .gitignore: created ${shown} with ${STATE_DIRECTORY_LINE}\n` : `  .gitignore: added ${STATE_DIRECTORY_LINE} to ${shown}\n`);
    return true;
  } catch (error) {
    io.stderr.write(`toolgate init: cannot add ${STATE_DIRECTORY_LINE} to ${shown} (${sanitizeTerminalText(errorMessage(error))})\n`);
    return false;
  }
}

/** Whether anything is at `file`, a dangling symlink included (existsSync follows links). */
function entryExists(file: string): boolean {
  try {
    lstatSync(file);
    return true;
  } catch {
    return false;
  }
}
