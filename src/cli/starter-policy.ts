import type { ProjectFacts } from './detect-project.ts';
import { proposeShellRules, type ProposedRuleGroup } from './project-shell-rules.ts';

/**
 * The commented `toolgate.yaml` that `toolgate init` writes: the built-in
 * default policy of `toolgate run`, spelled out with the choices a project
 * usually makes next (zones, shell rules, sandbox, mode) as comments, and
 * shell rules for what was found in the project (`detectProject`): git's
 * reading commands allowed, the package manager's scripts and the build
 * tools commented out, since they run the project's code.
 *
 * @example
 * writeFileSync('toolgate.yaml', starterPolicy({ sandboxAvailable: true, project: detectProject({ directory: '.' }) }));
 */
export function starterPolicy(options: { sandboxAvailable: boolean; project?: ProjectFacts }): string {
  const project = options.project ?? { buildTools: [], notes: [] };
  const sandbox = options.sandboxAvailable
    ? `# Shell commands run inside an OS sandbox (bubblewrap on Linux, sandbox-exec on
# macOS) that can write only where the zones above allow. One works here.
#   os: required   no sandbox, no file and shell tools (fallback: refuse_tools),
#                  or refuse to start (fallback: fail_fast)
#   os: preferred  use the sandbox when there is one, else run commands without
#                  it (toolgate says so when it starts)
#   os: off        never use it
sandbox: { os: required, fallback: refuse_tools }`
    : `# Shell commands run inside an OS sandbox (bubblewrap on Linux, sandbox-exec on
# macOS) when there is one. There is none here (see \`toolgate doctor\`), so with
# os: preferred the commands you approve run unconfined. Once bubblewrap is
# installed, os: required makes the sandbox a condition:
#   os: required   no sandbox, no file and shell tools (fallback: refuse_tools),
#                  or refuse to start (fallback: fail_fast)
#   os: off        never use it
sandbox: { os: preferred }`;
  return `# toolgate policy: what the agent's tools may do here, and what asks you first.
# Every key: \`toolgate schema\` (JSON Schema), README "The policy file".
# Try a call against it without running anything:
#   toolgate check --tool write_file --args '{"path":"src/a.ts","content":"x"}'
version: 1

# How asks are answered: interactive (a person, in the terminal), approve_all,
# strict (deny asks that are required), auto_deny. A --mode flag overrides it.
# Without a terminal and without a mode, every ask is denied.
mode: interactive

# The file tools (read_file, write_file, edit_file, delete_file, move_file,
# list_dir) work only inside zones. Roots are relative to this file; each of
# read, write and delete is allow, ask or block.
fs:
  zones:
    - { name: project, root: ., mode: rw, approval: { read: allow, write: ask, delete: ask } }
    # A read-only zone: the agent may read it, never change it.
    # - { name: docs, root: ../docs, mode: ro }
    # Only some kinds of file: suffixes: [.ts, .md]
    # Files no tool may touch, in .gitignore syntax: hidden: [".env", ".env.*", "*.pem"]

# The shell tool. A rule pre-approves (allow) or forbids (block) a command only
# when it covers every part of it (pipelines, substitutions, sh -c ...);
# anything else gets \`default\`.
shell:
  default: ask
  network: false          # true: commands in the sandbox may use the network
  rules:
    - { match: ls, decision: allow }
    - { match: pwd, decision: allow }
    - { match: rm, decision: block, reason: "rm is blocked in this project" }
${projectRules({ groups: proposeShellRules(project) })}
${sandbox}
# .git stays read-only inside the sandbox (hooks and config there make git run
# programs), so \`git commit\` fails in it even when you approve it. To let
# commands a person approved write .git, add to the sandbox line:
#   vcs_metadata: writable_when_approved

# Approvals and the audit log live in .toolgate/ beside this file; keep it out
# of git (.gitignore: .toolgate/). The agent can never write this file or
# .toolgate/.
`;
}

const RULE_INDENT = '    ';

/**
 * The proposed rules as YAML lines under `rules:`. Rules that run the
 * project's code are comments: a person uncomments one knowingly. Notes
 * quote package.json, which is the project's text: one line each, so
 * nothing in it can end the comment and become policy.
 */
function projectRules(options: { groups: readonly ProposedRuleGroup[] }): string {
  const lines: string[] = [];
  for (const group of options.groups) {
    const runsCode = group.rules.some((rule) => rule.runsCode);
    const heading = runsCode ? `${group.heading}. Left commented, so each asks; uncomment one to run it unasked.` : `${group.heading}.`;
    lines.push('', ...wrapComment(heading));
    for (const rule of group.rules) {
      const line = `- { match: ${JSON.stringify(rule.match)}, decision: ${rule.decision} }`;
      lines.push(`${RULE_INDENT}${runsCode ? '# ' : ''}${line}  # ${oneLine(rule.note, NOTE_LENGTH)}`);
    }
  }
  lines.push(
    '',
    `${RULE_INDENT}# A rule can also describe what a person is asked, or say why it blocks:`,
    `${RULE_INDENT}# - { match: "git commit", decision: ask, description: "Create a commit" }`,
    `${RULE_INDENT}# - { match: "git push", decision: block, reason: "pushing is for people" }`,
  );
  return `${lines.join('\n')}\n`;
}

const COMMENT_WIDTH = 80;
/** A note quotes a script's command line, which can be long: the comment stays on the screen. */
const NOTE_LENGTH = 100;

function wrapComment(text: string): string[] {
  const prefix = `${RULE_INDENT}# `;
  const lines: string[] = [];
  let current = '';
  for (const word of oneLine(text).split(' ')) {
    if (current !== '' && prefix.length + current.length + 1 + word.length > COMMENT_WIDTH) {
      lines.push(prefix + current);
      current = word;
    } else current = current === '' ? word : `${current} ${word}`;
  }
  if (current !== '') lines.push(prefix + current);
  return lines;
}

/**
 * Text fit for a YAML comment: YAML ends a comment at any line break (\r,
 * \n, and in YAML 1.1 also U+0085, U+2028, U+2029), and control and bidi
 * characters would disguise the line; all become spaces. Text past `limit`
 * characters is cut.
 */
function oneLine(text: string, limit = Number.POSITIVE_INFINITY): string {
  const flat = text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]+/g, ' ').replace(/ {2,}/g, ' ').trim();
  const characters = Array.from(flat);
  return characters.length <= limit ? flat : `${characters.slice(0, limit - 1).join('')}…`;
}

/**
 * The starter for the agents a developer runs (Claude Code, Codex) through
 * toolgate's hook: the host runs the calls itself, with the person's own
 * permissions and no toolgate sandbox, so the policy's decision is the only
 * guard. Reads in the project are allowed, writes there too (git keeps
 * them), deletes ask; its secrets (`.env`, keys) are hidden from every
 * call; files outside the project (~/.ssh, ~/.aws, other projects) are
 * blocked; commands no rule names ask, networked ones
 * included (`npm install`, `git push`, `curl`), since `shell.network: false`
 * would block them with no way to ask. `user`: the user-level policy, whose
 * zone is whichever project a call is made in.
 *
 * @example
 * writeFileSync(file, hostStarterPolicy({ user: true }));
 */
export function hostStarterPolicy(options: { user: boolean; project?: ProjectFacts }): string {
  const project = options.project ?? { git: { directory: '.git' }, buildTools: [], notes: [] };
  const where = options.user
    ? `# This is the user-level policy: it judges the calls made in every project that
# has no toolgate.yaml of its own, and root: . is that project (the git
# repository the call is made in, else its directory).`
    : `# root: . is this project (the folder of this file). A project's policy decides
# only once you trusted it (\`toolgate trust\`; init trusts what it writes):
# after any change to it, trust it again.`;
  return `# toolgate policy for the agents you run (Claude Code, Codex): toolgate's hook
# judges each tool call before the host runs it (toolgate install <host>).
# The host runs what is allowed itself, with your permissions and outside any
# toolgate sandbox: this policy is the guard. Every key: \`toolgate schema\`.
# Try a call without running anything:
#   toolgate check --tool shell --args '{"command":"git push"}'
version: 1

${where}
# Outside every zone, reads and writes are blocked: ~/.ssh, ~/.aws, other
# projects. Each of read, write and delete is allow, ask or block. Inside it,
# \`hidden\` names the files no call may read, write or delete, in .gitignore
# syntax (! takes a name back); a search through a folder holding one (grep -r,
# rg, Grep) asks.
fs:
  zones:
    - name: project
      root: .
      mode: rw
      approval: { read: allow, write: allow, delete: ask }
      hidden: [".env", ".env.*", "!.env.example", "!.env.sample", "!.env.template", "*.pem", "*.key", "*.p12", "*.pfx", "id_rsa*", "id_ecdsa*", "id_ed25519*", ".netrc", ".git-credentials"]

# Shell commands. A rule allows or blocks a command only when it covers every
# part of it (pipelines, substitutions, sh -c ...), and the files a command
# reads, writes and deletes are judged by the zones above whatever the rule
# says. Anything no rule names asks: installs, pushes, scripts, curl.
shell:
  default: ask
  # true: a networked command asks (or runs, where a rule allows it); false
  # would block every one outright, with no way to ask.
  network: true
  rules:
    - { match: ls, decision: allow }
    - { match: pwd, decision: allow }
    - { match: cat, decision: allow }
    - { match: head, decision: allow }
    - { match: tail, decision: allow }
    - { match: wc, decision: allow }
    - { match: grep, decision: allow }
    - { match: rg, decision: allow }
    - { match: "git push --force", decision: block, reason: "force-pushing rewrites others' history: a person does it" }
${projectRules({ groups: proposeShellRules(project) })}
# Approvals and the audit log live in .toolgate/ beside this file. No agent's
# call may write this file, .toolgate/ or toolgate's folders in your home.
# (No sandbox section here: toolgate's OS sandbox confines the commands of its own
# agent, toolgate run; an agent host runs its commands itself.)
`;
}
