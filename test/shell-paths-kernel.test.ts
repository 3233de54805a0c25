/**
 * Issue 11, class 3: paths judged against a filesystem that the line itself
 * changes, and `..` after a symlink. Each attack is run for real through
 * the gate (auto_deny: what asks does not run), with the OS sandbox off —
 * where the policy layer alone must hold — and on; afterwards nothing
 * outside the workspace may have changed. The same lines are also judged
 * (the gate's verdict, and `toolgate check`).
 */
import { mkdirSync, mkdtempSync, readFileSync, existsSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKernelPathsFixture, type KernelPathsFixture } from './kernel-paths-fixture.ts';
import { requireWorkingBwrap } from './require-bwrap.ts';

const EVIL_PATCH = ['diff --git a/plink b/plink', 'new file mode 120000', '--- /dev/null', '+++ b/plink', '@@ -0,0 +1 @@', '+../docs', '\\ No newline at end of file', ''].join('\n');

/** Puts into `ws` what the attacks start from: a link to `.`, a link to docs, an archive and a patch that each make a link to docs. */
function prepareWorkspace(fixture: KernelPathsFixture): void {
  const { ws } = fixture;
  symlinkSync('.', path.join(ws, 'self'));
  symlinkSync('../docs', path.join(ws, 'docs-link'));
  mkdirSync(path.join(ws, 'sub', 'inner'), { recursive: true });
  symlinkSync('sub/inner', path.join(ws, 'deep'));
  writeFileSync(path.join(ws, 'evil.patch'), EVIL_PATCH);
  const staging = mkdtempSync(path.join(os.tmpdir(), 'toolgate-tar-'));
  try {
    symlinkSync('../docs', path.join(staging, 'tlink'));
    execFileSync('tar', ['cf', path.join(ws, 'evil.tar'), '-C', staging, 'tlink']);
    // A zip whose member is named "../escaped-zip.txt" (zip stores the name as given).
    mkdirSync(path.join(staging, 'a', 'b'), { recursive: true });
    writeFileSync(path.join(staging, 'a', 'escaped-zip.txt'), 'pwned');
    execFileSync('zip', ['-q', path.join(ws, 'evil.zip'), '../escaped-zip.txt'], { cwd: path.join(staging, 'a', 'b') });
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/** Lines that would write into the read-only zone or outside every zone, or read the secret, if their paths were judged lexically or before the line ran. */
const ATTACKS: readonly { name: string; command: string; forbidden: (fixture: KernelPathsFixture) => string[] }[] = [
  { name: 'tee through a link to "." then ".."', command: 'tee self/../escaped.txt', forbidden: (f) => [path.join(f.root, 'escaped.txt')] },
  { name: 'a redirection through a link to "." then ".."', command: 'echo pwned > self/../escaped2.txt', forbidden: (f) => [path.join(f.root, 'escaped2.txt')] },
  { name: 'a link made earlier in the line, then written through', command: 'ln -s ../docs d1; echo pwned > d1/new1.txt', forbidden: (f) => [path.join(f.docs, 'new1.txt')] },
  { name: 'a link made earlier in the line, then tee truncates through it', command: 'ln -s ../docs d2 && tee d2/guide.md', forbidden: () => [] },
  { name: 'a link made in one stage of a pipeline, used by another', command: 'ln -s ../docs d3 | (sleep 0.3; echo pwned | tee d3/new3.txt)', forbidden: (f) => [path.join(f.docs, 'new3.txt')] },
  { name: 'a link made earlier in the line, then cd into it', command: 'ln -s ../docs d4; cd d4 && touch new4.txt', forbidden: (f) => [path.join(f.docs, 'new4.txt')] },
  { name: 'an archive that extracts a link, then a write through it', command: 'tar xf evil.tar && echo pwned > tlink/new5.txt', forbidden: (f) => [path.join(f.docs, 'new5.txt')] },
  { name: 'git apply of a patch that makes a link, then a write through it', command: 'git apply evil.patch && echo pwned > plink/new6.txt', forbidden: (f) => [path.join(f.docs, 'new6.txt')] },
  { name: 'patch that makes a link, then a write through it', command: 'patch -p1 < evil.patch; cp notes.txt plink/new7.txt', forbidden: (f) => [path.join(f.docs, 'new7.txt')] },
  { name: 'unzip -: of an archive whose member name has ".."', command: 'unzip -o -: evil.zip', forbidden: (f) => [path.join(f.root, 'escaped-zip.txt')] },
  { name: 'a rename of a link that leads out, then a write through the new name', command: 'mv docs-link moved && echo pwned > moved/new8.txt', forbidden: (f) => [path.join(f.docs, 'new8.txt')] },
];

describe.each([
  { sandboxed: false, label: 'sandbox off: the policy layer alone' },
  { sandboxed: true, label: 'bubblewrap sandbox on' },
])('paths as the kernel resolves them ($label)', ({ sandboxed }) => {
  let fixture: KernelPathsFixture;
  beforeAll(async () => {
    if (sandboxed) await requireWorkingBwrap();
    fixture = await createKernelPathsFixture({ sandboxed });
  });
  afterAll(() => fixture.cleanup());

  describe('attacks', () => {
    beforeAll(() => prepareWorkspace(fixture));

    it.each(ATTACKS)('$name: nothing outside the workspace changes', async ({ command, forbidden }) => {
      const before = fixture.snapshotOutsideWorkspace();
      const outcome = await fixture.call('shell', { command });
      expect(fixture.snapshotOutsideWorkspace()).toEqual(before);
      for (const file of forbidden(fixture)) expect(existsSync(file)).toBe(false);
      expect(readFileSync(fixture.docsFile, 'utf8')).toBe(fixture.docsText);
      if (!sandboxed) expect(outcome).toMatchObject({ ran: false, stage: 'gate' });
    });

    it('cat through a link to "." then ".." does not print the secret', async () => {
      const outcome = await fixture.call('shell', { command: 'cat self/../outside/secret.txt' });
      expect(JSON.stringify(outcome)).not.toContain(fixture.secretText);
      expect(outcome).toMatchObject({ ran: false, stage: 'gate' });
    });

    it('read_file and write_file resolve ".." after the link, too', async () => {
      const read = await fixture.call('read_file', { path: 'ws/self/../outside/secret.txt' });
      expect(JSON.stringify(read)).not.toContain(fixture.secretText);
      expect(read).toMatchObject({ ran: false, stage: 'gate' });
      const write = await fixture.call('write_file', { path: 'ws/self/../escaped-by-tool.txt', content: 'pwned' });
      expect(write).toMatchObject({ ran: false, stage: 'gate' });
      expect(existsSync(path.join(fixture.root, 'escaped-by-tool.txt'))).toBe(false);
    });
  });

  describe('lines that only create regular files and real directories still run', () => {
    it.each([
      ['echo hi > made.txt && cat made.txt', 'hi\n'],
      ['mkdir -p build/x && cp notes.txt build/x/ && cat build/x/notes.txt', 'notes\n'],
      ['printf "a\\nb\\n" > two.txt; wc -l two.txt', '2 two.txt\n'],
      ['ln -s notes.txt alias.txt', ''],
    ])('%s', async (command, stdout) => {
      const outcome = await fixture.call('shell', { command });
      expect(outcome).toMatchObject({ ran: true, result: { exit_code: 0, stdout } });
    });
  });
});

describe('judged: paths through what the line changes ask, ".." after a link is followed', () => {
  let fixture: KernelPathsFixture;
  beforeAll(async () => {
    fixture = await createKernelPathsFixture({ sandboxed: false });
    prepareWorkspace(fixture);
  });
  afterAll(() => fixture.cleanup());

  it.each([
    ['tee self/../x', 'block'],
    ['cat self/../outside/secret.txt', 'block'],
    ['cat sub/inner/../../notes.txt', 'allow'],
    ['ln -s ../docs d; tee d/x', 'ask'],
    ['ln -s ../docs d; echo x > d/x', 'ask'],
    ['tee d/x | ln -s ../docs d', 'ask'],
    // A plain list runs in the order written: tee is done before the link exists.
    ['tee d/x; ln -s ../docs d', 'allow'],
    ['for i in 1 2; do tee -a d/x; ln -s ../docs d; done', 'ask'],
    ['tar xf evil.tar; cat tlink/guide.md > copy.txt', 'ask'],
    ['git apply evil.patch && cat plink/guide.md', 'ask'],
    // Removing a real directory and making it again changes nothing the judgement relied on.
    ['rm -rf sub && mkdir sub && echo x > sub/x', 'allow'],
    ['mv docs-link m && cat m/guide.md', 'ask'],
    ['cp -r sub copy && tee copy/x', 'ask'],
    ['ln -s ../docs d && cat *', 'ask'],
    ['cat * && ln -s ../docs d', 'allow'],
    ['unzip -o -: evil.zip', 'ask'],
    ['unzip -o evil.zip && cat README', 'ask'],
    ['cd sub && cat ../notes.txt', 'allow'],
    // bash's cd applies ".." to the name (ws), cd -P after the link (ws/sub): which one runs is not known here.
    ['cd -P deep/.. && tee x', 'ask'],
    ['echo x > a.txt && cat a.txt', 'allow'],
    ['cp notes.txt n2.txt && cat n2.txt', 'allow'],
    ['mkdir -p m/n && echo x > m/n/o.txt', 'allow'],
    ['rm -f old.txt; cat notes.txt', 'allow'],
    ['tar cf out.tar notes.txt && cat notes.txt', 'allow'],
  ] as const)('%s → %s', async (command, expected) => {
    const verdict = await fixture.decide('shell', { command });
    expect({ command, ...verdict }).toMatchObject({ decision: expected });
  });

  it('toolgate check says the same', async () => {
    expect(await fixture.check('shell', { command: 'tee self/../x' })).toMatchObject({ decision: 'block' });
    expect(await fixture.check('shell', { command: 'ln -s ../docs d; tee d/x' })).toMatchObject({ decision: 'ask' });
    expect(await fixture.check('shell', { command: 'git apply evil.patch && echo x > plink/y' })).toMatchObject({ decision: 'ask' });
    expect(await fixture.check('shell', { command: 'echo x > a.txt && cat a.txt' })).toMatchObject({ decision: 'allow' });
  });
});
