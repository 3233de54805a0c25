import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const DEMO_NOTES = '# Notes\n- [ ] pad the invoice numbers to 6 digits\n- [ ] tidy the workspace\n';

/**
 * A fresh workspace for the demo agent: `ws/notes.txt` and the demo policy
 * (reads allowed, writes and shell commands ask, `rm` blocked). Nothing
 * outside it is touched.
 *
 * @example
 * const { root, policyFile } = createDemoWorkspace();
 */
export function createDemoWorkspace(options: { parent?: string } = {}): { root: string; policyFile: string } {
  const root = mkdtempSync(path.join(options.parent ?? os.tmpdir(), 'toolgate-demo-'));
  mkdirSync(path.join(root, 'ws'));
  writeFileSync(path.join(root, 'ws', 'notes.txt'), DEMO_NOTES);
  const policyFile = path.join(root, 'toolgate.yaml');
  writeFileSync(policyFile, readFileSync(new URL('./policies/demo-policy.yaml', import.meta.url), 'utf8'));
  return { root, policyFile };
}

/** The embedded default policy of `toolgate run`, as YAML text. */
export function defaultPolicyText(): string {
  return readFileSync(new URL('./policies/default-policy.yaml', import.meta.url), 'utf8');
}
