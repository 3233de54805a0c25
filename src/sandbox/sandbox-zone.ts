/**
 * The plain data the sandbox layer derives its profiles from. The layers
 * above it (the file tools' zones, the policy file) map their own types onto
 * these, so nothing in `src/sandbox` depends on them.
 */

/** How a zone treats one kind of operation: at once, after a person decided, or never. */
export type SandboxApproval = 'allow' | 'ask' | 'block';

/** One directory the policy puts in reach of commands (a zone of `fs.zones`). */
export interface SandboxZone {
  /** For people: rules derived from the zone say `zone <name>`. */
  readonly name: string;
  /** Absolute and already realpath'ed. */
  readonly root: string;
  readonly mode: 'ro' | 'rw';
  /** Only files whose name ends with one of these may be written; undefined means any file. */
  readonly suffixes?: readonly string[] | undefined;
  readonly approval: { readonly read: SandboxApproval; readonly write: SandboxApproval; readonly delete: SandboxApproval };
}

/**
 * Who let a command run, which decides how much of the zones it gets:
 *
 * - `policy`: nobody was asked (a rule, a zone or the default allowed it).
 *   It may write only where the policy lets writes *and* deletes happen
 *   without asking (no OS sandbox can let a process write a file but not
 *   delete it), and read only where reads need no approval.
 * - `person`: a person approved it (or their remembered approval, or a mode
 *   that approves for them). It gets what could be approved: every zone
 *   whose writes are not blocked, read-write.
 */
export type CallAuthority = 'policy' | 'person';

/**
 * What commands may do to version-control metadata inside writable zones
 * (policy key `sandbox.vcs_metadata`): every `.git`, and git's user
 * configuration (`~/.gitconfig`, `~/.config/git`) when a zone holds it:
 *
 * - `read_only` (the default): no command writes it; `git status` and
 *   `git log` work, `git add` and `git commit` do not.
 * - `writable_when_approved`: commands a person approved may write it,
 *   commands nobody approved may not (so an allowed command cannot plant a
 *   hook or a `core.fsmonitor` that a later approved command would run).
 * - `writable`: like the rest of the zone.
 */
export type VcsMetadataAccess = 'read_only' | 'writable_when_approved' | 'writable';
