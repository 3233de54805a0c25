/**
 * The commented `toolgate.yaml` that `toolgate init` writes: the built-in
 * default policy of `toolgate run`, spelled out with the choices a project
 * usually makes next (zones, shell rules, sandbox, mode) as comments.
 *
 * @example
 * writeFileSync('toolgate.yaml', starterPolicy({ sandboxAvailable: true }));
 */
export function starterPolicy(options: { sandboxAvailable: boolean }): string {
  const sandbox = options.sandboxAvailable
    ? `# Shell commands run inside an OS sandbox (bubblewrap on Linux, sandbox-exec on
# macOS) that can write only where the zones below allow. One works here.
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

# The shell tool. A rule pre-approves (allow) or forbids (block) a command only
# when it covers every part of it (pipelines, substitutions, sh -c ...);
# anything else gets \`default\`.
shell:
  default: ask
  network: false          # true: commands in the sandbox may use the network
  rules:
    - { match: "git status", decision: allow }
    - { match: "git diff", decision: allow }
    - { match: "git log", decision: allow }
    - { match: ls, decision: allow }
    - { match: pwd, decision: allow }
    - { match: rm, decision: block, reason: "rm is blocked in this project" }
    # - { match: "npm test", decision: allow }
    # - { match: "git commit", decision: ask, description: "Create a commit" }
    # - { match: "git push", decision: block, reason: "pushing is for people" }

${sandbox}
# .git stays read-only inside the sandbox (hooks and config there make git run
# programs), so \`git commit\` fails in it even when you approve it. To let
# commands a person approved write .git, add to the sandbox line:
#   vcs_metadata: writable_when_approved

# Approvals and the audit log live in .toolgate/ beside this file (add it to
# .gitignore). The agent can never write this file or .toolgate/.
`;
}
