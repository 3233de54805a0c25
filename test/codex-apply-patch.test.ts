/**
 * Codex's edits (issue 53, point 11): Codex 0.171 edits files by running
 * `apply_patch <<'EOF' … EOF` through its shell tool, and applies the patch
 * itself. toolgate's hook reads the patch and judges each file it adds,
 * updates, deletes or moves as the fs change it is, under the zones — so an
 * edit in the project runs, a patch that writes outside it or deletes a
 * file (the policy asks, and Codex cannot ask) is denied and nothing of it
 * is written, and a patch command with anything more on the line is judged
 * as the shell command it then is. With the real Codex, on loopback.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { HOST_TEST_POLICY, hostProject, runHostSession } from './agent-host-harness.ts';

const directories: string[] = [];
afterAll(() => {
  for (const directory of directories) rmSync(directory, { recursive: true, force: true });
});

function project() {
  const where = hostProject({ policy: HOST_TEST_POLICY, files: { 'src/a.txt': 'one\ntwo\n', 'old.txt': 'old\n', 'sub/keep.txt': 'keep\n' } });
  directories.push(path.dirname(where.directory));
  return where;
}

const patchCommand = (lines: readonly string[], prefix = '') => `${prefix}apply_patch <<'EOF'\n*** Begin Patch\n${lines.join('\n')}\n*** End Patch\nEOF\n`;

describe("Codex's apply_patch, judged as the files it changes", () => {
  it('an update and an add inside the project are allowed, and Codex applies them once', { timeout: 120_000 }, async () => {
    const where = project();
    const result = await runHostSession({ host: 'codex', project: where, call: { name: 'exec_command', input: { cmd: patchCommand(['*** Update File: src/a.txt', '@@', ' one', '-two', '+TWO', '*** Add File: src/b.txt', '+new']) } } });
    expect(result.toolResults.join('\n')).toContain('Success. Updated the following files');
    expect(readFileSync(path.join(where.directory, 'src/a.txt'), 'utf8')).toBe('one\nTWO\n');
    expect(readFileSync(path.join(where.directory, 'src/b.txt'), 'utf8')).toBe('new\n');
    // After cd DIR &&, the paths are the directory's.
    const moved = await runHostSession({ host: 'codex', project: where, call: { name: 'exec_command', input: { cmd: patchCommand(['*** Add File: note.txt', '+in sub'], 'cd sub && ') } } });
    expect(moved.toolResults.join('\n')).toContain('Success');
    expect(readFileSync(path.join(where.directory, 'sub/note.txt'), 'utf8')).toBe('in sub\n');
  });

  it('a patch that also writes outside the project is denied whole, naming that file; nothing of it is written', { timeout: 120_000 }, async () => {
    const where = project();
    const outside = path.join(path.dirname(where.directory), 'outside.txt');
    const result = await runHostSession({ host: 'codex', project: where, call: { name: 'exec_command', input: { cmd: patchCommand(['*** Update File: src/a.txt', '@@', ' one', '-two', '+TWO', `*** Add File: ${outside}`, '+escaped']) } } });
    expect(result.toolResults.join('\n')).toMatch(/the patch adds .*outside\.txt: .*outside every zone/);
    expect(existsSync(outside)).toBe(false);
    expect(readFileSync(path.join(where.directory, 'src/a.txt'), 'utf8')).toBe('one\ntwo\n');
  });

  it('a delete asks under this policy; Codex cannot ask, so the patch is denied, saying so, and the file stays', { timeout: 120_000 }, async () => {
    const where = project();
    const result = await runHostSession({ host: 'codex', project: where, call: { name: 'exec_command', input: { cmd: patchCommand(['*** Delete File: old.txt']) } } });
    const said = result.toolResults.join('\n');
    expect(said).toContain('Apply a patch (D old.txt): deletes old.txt');
    expect(said).toContain('Codex cannot ask a person from its hook');
    expect(readFileSync(path.join(where.directory, 'old.txt'), 'utf8')).toBe('old\n');
  });

  it('more on the line than the patch makes it a shell command, judged as one: denied, and neither the patch nor the rest runs', { timeout: 120_000 }, async () => {
    const where = project();
    const result = await runHostSession({ host: 'codex', project: where, call: { name: 'exec_command', input: { cmd: `${patchCommand(['*** Add File: src/c.txt', '+c']).trimEnd()}\nrm -rf sub` } } });
    expect(result.toolResults.join('\n')).toMatch(/rm is blocked in this project/);
    expect(existsSync(path.join(where.directory, 'src/c.txt'))).toBe(false);
    expect(existsSync(path.join(where.directory, 'sub/keep.txt'))).toBe(true);
  });
});
