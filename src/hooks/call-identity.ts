/**
 * The identity of a host's call: every field that decides what the call
 * does. Two calls are the same call only when all of them are equal, so a
 * decision — approved once, approved for the session, denied — is bound to
 * all of them: the same command text run in another directory, by another
 * shell, in another session or by another host is a new call, judged (and
 * asked) again.
 *
 * The one place this is written down. Every path that remembers or collects
 * a decision for a host's call goes through it: the process hook and the
 * server judge a call with `callScope` as the scope of the gate's memory
 * ("approve for session"), and the server's pending approvals
 * (`POST /hooks/:host`, from the command hook or Claude Code's `http` hook)
 * are found again by `callFingerprint`.
 */
import { createHash } from 'node:crypto';
import { fingerprint } from '../core/fingerprint.ts';
import type { HostName } from './host-call.ts';

export interface HostCallIdentity {
  host: HostName;
  /** The host's session: an approval for the session ends with it. */
  sessionId: string;
  /** The directory the call runs in: Claude Code's after the session's `cd`s, Codex's the call's `workdir`. */
  cwd: string;
  /** The shell that interprets a command (null: the host did not say, and the call is judged as such). */
  shell: string | null;
  /** The tool as the host names it. */
  hostTool: string;
  /** All of its arguments, as the host sent them. */
  toolInput: Record<string, unknown>;
  /** How the host runs it beyond its input, where the hook can read it (Codex: tty, login, sandbox_permissions…); null otherwise. */
  options: Record<string, unknown> | null;
}

/** The fields of a call's identity, in the order they are written. */
export const CALL_IDENTITY_FIELDS: ReadonlyArray<keyof HostCallIdentity> = ['host', 'sessionId', 'cwd', 'shell', 'hostTool', 'toolInput', 'options'];

/**
 * @example
 * callIdentity({ host: 'codex', sessionId: 's', cwd: '/p', shell: '/bin/bash', hostTool: 'Bash', toolInput: { command: 'ls' } })
 */
export function callIdentity(input: { host: HostName; sessionId: string; cwd: string; shell?: string | undefined; hostTool: string; toolInput: Record<string, unknown>; options?: Record<string, unknown> | undefined }): HostCallIdentity {
  return { host: input.host, sessionId: input.sessionId, cwd: input.cwd, shell: input.shell ?? null, hostTool: input.hostTool, toolInput: input.toolInput, options: input.options ?? null };
}

/**
 * A short digest of the identity and of who sent it (a token's name): the
 * key the server's pending approval of a call is found by when the host
 * retries it. Canonical (key order does not matter, types do). With
 * `judged`, what toolgate made of the call too (the tool it judged and its
 * arguments: a skill's files and inline commands, an edit's resulting
 * content), so that a retry made the same way but now doing something else
 * (a skill file edited since, a file the edit changes) is a new call.
 *
 * @example
 * callFingerprint(identity, 'alice') // 'Xq3…' (24 characters, [A-Za-z0-9])
 */
export function callFingerprint(identity: HostCallIdentity, owner: string, judged?: { tool: string; args: unknown }): string {
  const canonical = fingerprint([owner, ...CALL_IDENTITY_FIELDS.map((field) => identity[field]), judged === undefined ? null : [judged.tool, judged.args]]);
  return createHash('sha256').update(canonical).digest('base64url').slice(0, 24).replace(/[-_]/g, '0');
}

/**
 * Where and how a call runs, beyond its tool and arguments: the scope the
 * gate's memory keeps a host call's decisions in (its `chatId`), under the
 * host's session. Readable, as it is written to the audit log (`chat`).
 *
 * @example
 * callScope(identity) // 'in /home/me/project, shell /bin/bash'
 */
export function callScope(identity: Pick<HostCallIdentity, 'cwd' | 'shell'> & { options?: HostCallIdentity['options'] }): string {
  const options = identity.options === undefined || identity.options === null || Object.keys(identity.options).length === 0 ? '' : `, run with ${fingerprint(identity.options)}`;
  return `in ${identity.cwd}, shell ${identity.shell ?? 'not known'}${options}`;
}
