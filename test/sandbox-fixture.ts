import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadPolicyFile } from '../src/config/load-policy-file.ts';
import type { Policy } from '../src/core/policy/policy.ts';
import { zonesFromPolicy, type Zone } from '../src/tools/fs/zones.ts';

/**
 * A throwaway project for the sandbox tests: a rw zone `ws`, a ro zone
 * `docs`, and outside every zone a secret, an ~/.ssh-like directory and a
 * policy file; plus symlinks inside `ws` that lead out of it.
 */
export interface SandboxFixture {
  root: string;
  policyFile: string;
  policy: Policy;
  zones: Zone[];
  /** The rw zone's root. */
  workspace: string;
  /** The ro zone's root. */
  docs: string;
  /** A directory outside every zone (the zones' parent holds it). */
  outside: string;
  secretFile: string;
  secretText: string;
  sshKeyFile: string;
  sshKeyText: string;
  docsText: string;
  /** A unique name no test creates on purpose, for probes that must not appear. */
  probeName: string;
  cleanup(): void;
}

export interface FixtureOptions {
  /** `shell.network` in the policy (default false). */
  network?: boolean;
  /** Extra policy lines appended at the top level. */
  extraPolicy?: string;
}

/**
 * Creates the fixture under the system temporary directory.
 *
 * @example
 * const fixture = await createSandboxFixture();
 * afterAll(() => fixture.cleanup());
 */
export async function createSandboxFixture(options: FixtureOptions = {}): Promise<SandboxFixture> {
  const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-sandbox-')));
  const token = randomBytes(8).toString('hex');
  const workspace = path.join(root, 'ws');
  const docs = path.join(root, 'docs');
  const outside = path.join(root, 'outside');
  const home = path.join(root, 'home');
  for (const directory of [workspace, docs, outside, path.join(home, '.ssh')]) mkdirSync(directory, { recursive: true });
  const secretText = `TOP-SECRET-${token}`;
  const sshKeyText = `SSH-PRIVATE-KEY-${token}`;
  const docsText = `public docs ${token}`;
  writeFileSync(path.join(outside, 'secret.txt'), secretText);
  writeFileSync(path.join(home, '.ssh', 'id_ed25519'), sshKeyText);
  writeFileSync(path.join(docs, 'readme.txt'), docsText);
  writeFileSync(path.join(workspace, 'existing.txt'), 'existing\n');
  symlinkSync(outside, path.join(workspace, 'link-to-outside'));
  symlinkSync('/etc', path.join(workspace, 'link-to-etc'));
  symlinkSync(docs, path.join(workspace, 'link-to-docs'));
  symlinkSync(path.join(outside, 'secret.txt'), path.join(workspace, 'link-to-secret'));
  const policyFile = path.join(root, 'toolgate.yaml');
  writeFileSync(
    policyFile,
    [
      'mode: approve_all',
      'fs:',
      '  zones:',
      '    - { name: ws, root: ./ws, mode: rw, approval: { read: allow, write: ask, delete: ask } }',
      '    - { name: docs, root: ./docs, mode: ro }',
      'shell:',
      '  default: ask',
      `  network: ${options.network === true ? 'true' : 'false'}`,
      options.extraPolicy ?? '',
    ].join('\n'),
  );
  const { policy } = await loadPolicyFile(policyFile);
  const zones = zonesFromPolicy({ policy, policyDirectory: root });
  return {
    root,
    policyFile,
    policy,
    zones,
    workspace,
    docs,
    outside,
    secretFile: path.join(outside, 'secret.txt'),
    secretText,
    sshKeyFile: path.join(home, '.ssh', 'id_ed25519'),
    sshKeyText,
    docsText,
    probeName: `toolgate-probe-${token}`,
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}
