import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PolicyError } from '../core/errors/policy-error.ts';
import { loadPolicyFile } from './load-policy-file.ts';

let root: string;
beforeAll(() => {
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-load-policy-')));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The one message a PolicyError gives for the file, with the file. */
async function refusal(file: string): Promise<{ file: string; message: string }> {
  const error = await loadPolicyFile(file).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(PolicyError);
  const policyError = error as PolicyError;
  return { file: policyError.file, message: policyError.issues.map((issue) => issue.message).join('; ') };
}

describe('loadPolicyFile', () => {
  it('reads and parses a policy, relative paths against the cwd given', async () => {
    writeFileSync(path.join(root, 'toolgate.yaml'), 'version: 1\ntools:\n  read_notes: { decision: allow }\n');
    const loaded = await loadPolicyFile('toolgate.yaml', { cwd: root });
    expect(loaded.path).toBe(path.join(root, 'toolgate.yaml'));
    expect(loaded.directory).toBe(root);
    expect(loaded.policy.document.version).toBe(1);
  });

  it('names the file and what is wrong when it is missing, a directory, a named pipe or a link to one, without blocking on the pipe', async () => {
    expect(await refusal(path.join(root, 'missing.yaml'))).toEqual({ file: path.join(root, 'missing.yaml'), message: expect.stringContaining('no such file') });
    mkdirSync(path.join(root, 'folder.yaml'));
    expect(await refusal(path.join(root, 'folder.yaml'))).toEqual({ file: path.join(root, 'folder.yaml'), message: 'this is a directory, not a policy file' });
    execFileSync('mkfifo', [path.join(root, 'pipe.yaml')]);
    symlinkSync(path.join(root, 'pipe.yaml'), path.join(root, 'link.yaml'));
    for (const name of ['pipe.yaml', 'link.yaml']) {
      expect(await refusal(path.join(root, name))).toEqual({ file: path.join(root, name), message: 'this is not a regular file (a named pipe, socket or device): a policy is a file' });
    }
    expect(await refusal('/dev/zero')).toEqual({ file: '/dev/zero', message: expect.stringContaining('not a regular file') });
  });

  it('reads the text as it is now, each time (a policy edited between calls is the new one)', async () => {
    const file = path.join(root, 'edited.yaml');
    writeFileSync(file, 'version: 1\ntools:\n  a: { decision: allow }\n');
    expect((await loadPolicyFile(file)).policy.document.tools?.a).toEqual({ decision: 'allow' });
    writeFileSync(file, 'version: 1\ntools:\n  a: { decision: block }\n');
    expect((await loadPolicyFile(file)).policy.document.tools?.a).toEqual({ decision: 'block' });
  });
});
