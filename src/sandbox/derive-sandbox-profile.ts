import os from 'node:os';
import path from 'node:path';
import { intersectProfiles } from './intersect-profiles.ts';
import { accessOf, normalizeSandboxPath, type SandboxAccess, type SandboxNetwork, type SandboxPathRule, type SandboxProfile } from './sandbox-profile.ts';
import type { CallAuthority, SandboxZone, VcsMetadataAccess } from './sandbox-zone.ts';

/**
 * What a program needs to start on Linux, read-only: the system trees and a
 * minimal `/etc` (the dynamic linker's cache, user and host name lookups,
 * time zone, DNS and TLS trust). Deliberately not `/etc` as a whole: it holds
 * `/etc/npmrc`, `/etc/pip.conf`, `/etc/ssl/private` and other places tokens
 * and keys end up. Paths that do not exist on a host are skipped by the
 * backend.
 */
export const LINUX_SYSTEM_READ_ONLY_PATHS: readonly string[] = [
  '/usr',
  '/bin',
  '/sbin',
  '/lib',
  '/lib32',
  '/lib64',
  '/libx32',
  '/etc/ld.so.cache',
  '/etc/ld.so.conf',
  '/etc/ld.so.conf.d',
  '/etc/alternatives',
  '/etc/passwd',
  '/etc/group',
  '/etc/nsswitch.conf',
  '/etc/localtime',
  '/etc/timezone',
  '/etc/hosts',
  '/etc/host.conf',
  '/etc/resolv.conf',
  '/etc/gai.conf',
  '/etc/services',
  '/etc/protocols',
  '/etc/mime.types',
  '/etc/ssl/certs',
  '/etc/ssl/openssl.cnf',
  '/etc/ca-certificates',
  '/etc/pki/tls/certs',
  '/etc/pki/ca-trust/extracted',
];

/** The macOS counterpart, for the Seatbelt profile. */
export const MACOS_SYSTEM_READ_ONLY_PATHS: readonly string[] = [
  '/usr',
  '/bin',
  '/sbin',
  '/System',
  '/Library/Apple',
  '/Library/Frameworks',
  '/opt/homebrew',
  '/private/etc/hosts',
  '/private/etc/resolv.conf',
  '/private/etc/services',
  '/private/etc/protocols',
  '/private/etc/passwd',
  '/private/etc/group',
  '/private/etc/localtime',
  '/private/etc/ssl',
  '/private/var/db/timezone',
  '/private/var/db/dyld',
];

/**
 * Credential files and directories hidden wherever a zone would otherwise
 * expose them (directly under a zone root, and under the home directory when
 * a zone contains it): a zone on `~` must not hand out `~/.ssh`. Stricter than
 * the file tools on purpose; the sandbox may be stricter, never weaker.
 */
export const SECRET_NAMES: readonly string[] = [
  '.ssh',
  '.gnupg',
  '.aws',
  '.azure',
  '.config/gcloud',
  '.kube',
  '.docker',
  '.netrc',
  '.git-credentials',
  '.npmrc',
  '.pypirc',
  '.password-store',
  '.vault-token',
];

/** The name of version-control metadata: a repository's directory, or a worktree's or submodule's `gitdir:` file. */
export const VCS_METADATA_NAME = '.git';

/** git's configuration in a home directory, protected like `.git` (`sandbox.vcs_metadata`) when a zone makes it writable. */
export const USER_VCS_CONFIGURATION: readonly string[] = ['.gitconfig', '.config/git'];

export interface DeriveSandboxProfileOptions {
  /**
   * The policy's zones, as plain data (the file tools' `Zone` has this shape).
   * What each gets depends on `authority`.
   */
  zones: readonly SandboxZone[];
  /**
   * Who let the command run (see `CallAuthority`). Omitted: `person`, the
   * most any call can get — the profile `toolgate doctor` shows and the
   * policy layer judges paths against. A command nobody approved must run
   * with `policy`.
   */
  authority?: CallAuthority;
  /** The policy's `shell.network`: false (the default) is no network at all. */
  network: boolean | { allowDomains: string[] };
  /**
   * Version-control metadata: `access` is `sandbox.vcs_metadata` (default
   * `read_only`); `paths` are the `.git` entries found inside the zones
   * (`findVcsMetadata`). Each writable zone's own `<root>/.git` is always
   * covered, found or not.
   */
  vcsMetadata?: { access?: VcsMetadataAccess; paths?: readonly string[] };
  /**
   * Files and folders (absolute) whose content makes other programs run
   * code — an agent host's configuration, editor tasks, `.envrc`, the
   * package managers' settings — found before the command runs: read-only
   * to a command nobody approved (writing one asks when the analysis sees
   * it; this holds where it cannot, a script's own writes). One that does not
   * exist yet cannot be covered.
   */
  codeLoadingPaths?: readonly string[];
  /** More read-only paths (absolute), e.g. a toolchain under `/opt`. A path that is also a zone becomes read-only. */
  extraReadOnly?: string[];
  /**
   * Paths (absolute) that must stay invisible even inside a zone: the policy
   * file and toolgate's state directory (`.toolgate/`, with the approvals file
   * a sandboxed command must never rewrite), anything else the caller knows.
   */
  hidden?: readonly string[];
  /** Whose home's credentials to hide when a zone contains it; defaults to `os.homedir()`. */
  homeDirectory?: string;
  /** Which system paths to start from; defaults to `process.platform`. */
  platform?: NodeJS.Platform;
  /** An operator's explicit profile (`sandbox.profile`): the result is the intersection, so it can only remove permissions. */
  operatorProfile?: SandboxProfile;
}

/**
 * Derives the OS sandbox profile of a command from the same policy the gate
 * applies (seed 001: "never weaker"), for the decision that let it run
 * (`authority`): zones writable only as far as that decision reaches, the
 * system paths needed to run programs read-only, a private `/tmp`, and
 * nothing else at all — the home directory, `/root`, other users' files,
 * `/var`, `/run` and the rest of `/etc` are not in the sandbox unless a zone
 * covers them. `.git` inside writable zones stays read-only unless
 * `vcsMetadata.access` grants it; credentials and `hidden` paths are masked.
 * Network follows `shell.network`. Pure: it reads no files, so it can be
 * shown (`toolgate doctor`) and tested as data.
 *
 * For a command nobody approved (`authority: 'policy'`) a rw zone is
 * writable only when its approval allows both writes and deletes without
 * asking: the kernel cannot let a process write a file but not delete it,
 * so `write: allow, delete: block` grants less (read-only), never more. A
 * zone whose reads ask or are blocked is hidden from it.
 *
 * @example
 * const profile = deriveSandboxProfile({ zones, authority: 'policy', network: false, hidden: [policyFile, stateDirectory] });
 * const wrapped = wrapWithBwrap({ profile, command: 'sh', args: ['-c', 'make'], cwd: zones[0].root });
 */
export function deriveSandboxProfile(options: DeriveSandboxProfileOptions): SandboxProfile {
  const platform = options.platform ?? process.platform;
  const authority = options.authority ?? 'person';
  const systemPaths = platform === 'darwin' ? MACOS_SYSTEM_READ_ONLY_PATHS : LINUX_SYSTEM_READ_ONLY_PATHS;
  const writable: SandboxPathRule[] = [];
  const readOnly: SandboxPathRule[] = systemPaths.map((systemPath) => ({ path: systemPath, source: 'system' }));
  const candidates: SandboxPathRule[] = [];
  for (const zone of options.zones) {
    const rule: SandboxPathRule = { path: normalizeSandboxPath(zone.root), source: `zone ${zone.name}` };
    const access = zoneAccess(zone, authority);
    if (access === 'read-write') writable.push(zone.suffixes === undefined ? rule : { ...rule, suffixes: [...zone.suffixes] });
    else if (access === 'read-only') readOnly.push(rule);
    // Hidden only where an enclosing zone would show it; elsewhere it is not in the sandbox anyway.
    else candidates.push({ ...rule, source: `zone ${zone.name} (${zone.approval.read === 'block' ? 'reads blocked' : 'reads need a person\'s approval'})` });
  }
  for (const extra of options.extraReadOnly ?? []) readOnly.push({ path: normalizeSandboxPath(extra), source: 'extra read-only' });

  const home = options.homeDirectory === undefined ? os.homedir() : options.homeDirectory;
  const zonesOnly: SandboxProfile = { writable, readOnly, hidden: [], network: { mode: 'none' }, privateTemporaryDirectory: true };
  if (!vcsMetadataWritable(options.vcsMetadata?.access ?? 'read_only', authority)) {
    const metadata = [...writable.map((rule) => `${rule.path}/${VCS_METADATA_NAME}`), ...(options.vcsMetadata?.paths ?? [])];
    // git reads its user configuration from the home directory too (a zone on ~ would make it writable): hooks and fsmonitor can be set there.
    if (home !== '' && path.isAbsolute(home)) metadata.push(...USER_VCS_CONFIGURATION.map((name) => path.join(home, name)));
    for (const entry of new Set(metadata.map(normalizeSandboxPath))) {
      if (accessOf(zonesOnly, entry).access === 'read-write') readOnly.push({ path: entry, source: 'version-control metadata' });
    }
  }

  if (authority === 'policy') {
    for (const entry of new Set((options.codeLoadingPaths ?? []).map(normalizeSandboxPath))) {
      if (accessOf(zonesOnly, entry).access === 'read-write') readOnly.push({ path: entry, source: 'code-loading' });
    }
  }

  const visible: SandboxProfile = { writable, readOnly, hidden: [], network: { mode: 'none' }, privateTemporaryDirectory: true };
  const secretParents = options.zones.map((zone) => normalizeSandboxPath(zone.root));
  if (home !== '' && path.isAbsolute(home)) secretParents.push(normalizeSandboxPath(home));
  for (const parent of new Set(secretParents)) {
    for (const name of SECRET_NAMES) candidates.push({ path: path.join(parent, name), source: 'credentials' });
  }
  for (const protectedPath of options.hidden ?? []) candidates.push({ path: normalizeSandboxPath(protectedPath), source: 'protected' });
  // A path nothing makes visible is hidden already; listing it would only clutter the profile.
  const hidden = dedupeByPath(candidates.filter((candidate) => accessOf(visible, candidate.path).access !== 'none'));

  const derived: SandboxProfile = { writable, readOnly, hidden, network: networkFromPolicy(options.network), privateTemporaryDirectory: true };
  return options.operatorProfile === undefined ? derived : intersectProfiles(derived, options.operatorProfile);
}

/**
 * What one zone gives a command let through by `authority`.
 *
 * @example
 * zoneAccess({ ...zone, mode: 'rw', approval: { read: 'allow', write: 'allow', delete: 'block' } }, 'policy') // 'read-only'
 */
export function zoneAccess(zone: SandboxZone, authority: CallAuthority): SandboxAccess {
  const { approval } = zone;
  if (approval.read === 'block') return 'none';
  if (authority === 'policy' && approval.read !== 'allow') return 'none';
  if (zone.mode !== 'rw') return 'read-only';
  if (authority === 'policy') return approval.write === 'allow' && approval.delete === 'allow' ? 'read-write' : 'read-only';
  return approval.write === 'block' ? 'read-only' : 'read-write';
}

function vcsMetadataWritable(access: VcsMetadataAccess, authority: CallAuthority): boolean {
  return access === 'writable' || (access === 'writable_when_approved' && authority === 'person');
}

/**
 * The policy's `shell.network` as a sandbox network setting: absent or false
 * is none, true is all, a domain list is those domains (an empty list is none).
 *
 * @example
 * networkFromPolicy({ allowDomains: ['registry.npmjs.org'] }) // { mode: 'domains', allowDomains: ['registry.npmjs.org'] }
 */
export function networkFromPolicy(network: boolean | { allowDomains: string[] } | undefined): SandboxNetwork {
  if (network === undefined || network === false) return { mode: 'none' };
  if (network === true) return { mode: 'all' };
  const domains = [...new Set(network.allowDomains.map((domain) => domain.trim().toLowerCase()).filter((domain) => domain !== ''))].sort();
  return domains.length === 0 ? { mode: 'none' } : { mode: 'domains', allowDomains: domains };
}

function dedupeByPath(rules: readonly SandboxPathRule[]): SandboxPathRule[] {
  const seen = new Map<string, SandboxPathRule>();
  for (const rule of rules) if (!seen.has(rule.path)) seen.set(rule.path, rule);
  return [...seen.values()];
}
