/**
 * Issue 11, class 4: hard links and special files. A hard link inside a
 * zone to a file outside it (or in a read-only zone) is that same file: it
 * is neither read nor written through the zone without a person. Hard links
 * are not made to files the policy would not let be written (`cp -l`,
 * `ln`). A FIFO, a socket or a device is refused by the file tools at
 * once, never opened. Run for real through the gate (auto_deny: what asks
 * does not run), with the OS sandbox off and on; afterwards the outside
 * files are unchanged and nothing leaked into any output.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, linkSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKernelPathsFixture, type KernelPathsFixture } from './kernel-paths-fixture.ts';
import { requireWorkingBwrap } from './require-bwrap.ts';

describe.each([
  { sandboxed: false, label: 'sandbox off: the policy layer alone' },
  { sandboxed: true, label: 'bubblewrap sandbox on' },
])('hard links and special files ($label)', ({ sandboxed }) => {
  let fixture: KernelPathsFixture;
  let server: net.Server;
  beforeAll(async () => {
    if (sandboxed) await requireWorkingBwrap();
    fixture = await createKernelPathsFixture({ sandboxed });
    linkSync(fixture.secretFile, path.join(fixture.ws, 'hard-secret.txt'));
    linkSync(fixture.docsFile, path.join(fixture.ws, 'hard-docs.md'));
    execFileSync('mkfifo', [path.join(fixture.ws, 'pipe')]);
    symlinkSync('/dev/zero', path.join(fixture.ws, 'zero'));
    server = net.createServer();
    await new Promise<void>((resolve) => server.listen(path.join(fixture.ws, 'socket'), resolve));
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    fixture.cleanup();
  });

  const unchanged = () => {
    expect(readFileSync(fixture.secretFile, 'utf8')).toBe(fixture.secretText);
    expect(readFileSync(fixture.docsFile, 'utf8')).toBe(fixture.docsText);
  };

  describe('a hard link inside the zone to a file outside it or in a read-only zone', () => {
    it.each([
      'cat hard-secret.txt',
      'head -c 100 hard-secret.txt',
      'cat < hard-secret.txt',
      'wc -c hard-secret.txt; cat hard-docs.md hard-secret.txt',
      'cp hard-secret.txt copy-of-secret.txt && cat copy-of-secret.txt',
    ])('is not read by the shell: %s', async (command) => {
      const outcome = await fixture.call('shell', { command });
      expect(JSON.stringify(outcome)).not.toContain(fixture.secretText);
      expect(outcome).toMatchObject({ ran: false, stage: 'gate', reason: expect.stringMatching(/hard links/) });
    });

    it.each([
      'echo pwned >> hard-secret.txt',
      'echo pwned >> hard-docs.md',
      'echo pwned | tee -a hard-docs.md',
      'echo pwned | tee hard-secret.txt',
      'printf pwned > hard-docs.md',
    ])('is not written by the shell: %s', async (command) => {
      const outcome = await fixture.call('shell', { command });
      expect(outcome).toMatchObject({ ran: false, stage: 'gate' });
      unchanged();
    });

    it('is not read by read_file', async () => {
      const outcome = await fixture.call('read_file', { path: 'ws/hard-secret.txt' });
      expect(JSON.stringify(outcome)).not.toContain(fixture.secretText);
      expect(outcome).toMatchObject({ ran: false, stage: 'gate', reason: expect.stringMatching(/2 hard links.*a person decides/) });
    });

    it('is not written by write_file or edit_file', async () => {
      expect(await fixture.call('write_file', { path: 'ws/hard-docs.md', content: 'pwned' })).toMatchObject({ ran: false, stage: 'gate', reason: expect.stringMatching(/hard links/) });
      expect(await fixture.call('edit_file', { path: 'ws/hard-secret.txt', old_string: 'OUTSIDE', new_string: 'pwned' })).toMatchObject({ ran: false, stage: 'gate', reason: expect.stringMatching(/hard links/) });
      unchanged();
    });

    it('a hard link made after the check is refused when the call runs', async () => {
      const target = path.join(fixture.ws, 'racy.txt');
      writeFileSync(target, 'racy\n');
      expect(await fixture.decide('read_file', { path: 'ws/racy.txt' })).toMatchObject({ decision: 'allow' });
      linkSync(target, path.join(fixture.outside, 'racy-alias.txt'));
      const outcome = await fixture.execute('read_file', { path: 'ws/racy.txt' });
      expect(outcome).toMatchObject({ ran: false, stage: 'execute', reason: expect.stringMatching(/2 hard links.*nothing was done/) });
      expect(await fixture.execute('edit_file', { path: 'ws/racy.txt', old_string: 'racy', new_string: 'calm' })).toMatchObject({ ran: false, stage: 'execute', reason: expect.stringMatching(/hard links/) });
      expect(await fixture.execute('write_file', { path: 'ws/racy.txt', content: 'x' })).toMatchObject({ ran: false, stage: 'execute', reason: expect.stringMatching(/hard links/) });
      expect(readFileSync(path.join(fixture.outside, 'racy-alias.txt'), 'utf8')).toBe('racy\n');
    });
  });

  describe('hard links are not made to files the policy does not let be written', () => {
    it.each([
      ['cp -l ../docs/guide.md g1.md', 'g1.md'],
      ['cp --link ../outside/secret.txt s1.txt', 's1.txt'],
      ['cp -al ../docs g2', 'g2'],
      ['ln ../docs/guide.md g3.md', 'g3.md'],
      ['ln ../outside/secret.txt s2.txt', 's2.txt'],
    ])('%s', async (command, made) => {
      const links = { secret: statSync(fixture.secretFile).nlink, docs: statSync(fixture.docsFile).nlink };
      const outcome = await fixture.call('shell', { command });
      expect(outcome).toMatchObject({ ran: false, stage: 'gate' });
      expect(existsSync(path.join(fixture.ws, made))).toBe(false);
      expect({ secret: statSync(fixture.secretFile).nlink, docs: statSync(fixture.docsFile).nlink }).toEqual(links);
    });
  });

  describe('special files: refused at once by the file tools, never opened', () => {
    it.each([
      ['read_file', { path: 'ws/pipe' }, /FIFO.*regular files only/],
      ['write_file', { path: 'ws/pipe', content: 'x' }, /FIFO.*regular files only/],
      ['edit_file', { path: 'ws/pipe', old_string: 'a', new_string: 'b' }, /FIFO.*regular files only/],
      ['read_file', { path: 'ws/socket' }, /socket.*regular files only/],
      ['write_file', { path: 'ws/socket', content: 'x' }, /socket.*regular files only/],
      ['read_file', { path: 'ws/zero' }, /escapes zone ws via symlink ws\/zero → \/dev\/zero/],
      ['read_file', { path: '/dev/zero' }, /outside every zone/],
      ['read_file', { path: 'ws' }, /is a directory/],
    ] as const)('%s %j', async (tool, args, reason) => {
      const outcome = await fixture.call(tool, args);
      expect(outcome).toMatchObject({ ran: false, stage: 'gate', reason: expect.stringMatching(reason) });
      // Measured: a few milliseconds; a blocking open of the FIFO would wait for a writer forever (the bound allows a loaded machine).
      expect(outcome.durationMs).toBeLessThan(10_000);
    });
  });

  describe('special files: the shell asks before opening one', () => {
    it.each(['cat pipe', 'head -c 10 < pipe', 'echo x > pipe', 'cat socket'])('%s', async (command) => {
      const outcome = await fixture.call('shell', { command });
      expect(outcome).toMatchObject({ ran: false, stage: 'gate', reason: expect.stringMatching(/FIFO|socket/) });
      expect(outcome.durationMs).toBeLessThan(10_000);
    });
  });

  describe('ordinary files still work', () => {
    it('read_file and the shell read a file with one name', async () => {
      expect(await fixture.call('read_file', { path: 'ws/notes.txt' })).toMatchObject({ ran: true, result: { content: 'notes\n' } });
      expect(await fixture.call('shell', { command: 'cat notes.txt' })).toMatchObject({ ran: true, result: { stdout: 'notes\n' } });
    });

    it('write_file, edit_file and >> change a file with one name', async () => {
      expect(await fixture.call('write_file', { path: 'ws/own.txt', content: 'one\n' })).toMatchObject({ ran: true });
      expect(await fixture.call('edit_file', { path: 'ws/own.txt', old_string: 'one', new_string: 'two' })).toMatchObject({ ran: true });
      expect(await fixture.call('shell', { command: 'echo three >> own.txt && cat own.txt' })).toMatchObject({ ran: true, result: { stdout: 'two\nthree\n' } });
    });

    it('a hard link between two files of the writable zone can still be made', async () => {
      expect(await fixture.call('shell', { command: 'ln notes.txt notes-alias.txt' })).toMatchObject({ ran: true, result: { exit_code: 0 } });
    });
  });
});

describe('judged: hard links and special files', () => {
  let fixture: KernelPathsFixture;
  beforeAll(async () => {
    fixture = await createKernelPathsFixture({ sandboxed: false });
    linkSync(fixture.secretFile, path.join(fixture.ws, 'hard-secret.txt'));
    execFileSync('mkfifo', [path.join(fixture.ws, 'pipe')]);
  });
  afterAll(() => fixture.cleanup());

  it.each([
    ['shell', { command: 'cat hard-secret.txt' }, 'ask'],
    ['shell', { command: 'echo x >> hard-secret.txt' }, 'ask'],
    ['shell', { command: 'rm hard-secret.txt' }, 'allow'],
    ['shell', { command: 'cp -l ../docs/guide.md g.md' }, 'block'],
    ['shell', { command: 'cp -l notes.txt n.txt' }, 'allow'],
    ['read_file', { path: 'ws/hard-secret.txt' }, 'ask'],
    ['write_file', { path: 'ws/hard-secret.txt', content: 'x' }, 'ask'],
    ['read_file', { path: 'ws/pipe' }, 'block'],
    ['read_file', { path: 'ws/notes.txt' }, 'allow'],
  ] as const)('%s %j → %s', async (tool, args, expected) => {
    expect(await fixture.decide(tool, args)).toMatchObject({ decision: expected });
  });

  it('rsync --link-dest hard-links into the copy, so its directory must be writable', async () => {
    // docs is readable: a plain read of it would be allowed.
    expect(await fixture.decide('shell', { command: `rsync -a --link-dest=${fixture.docs} ./ copy/` })).toMatchObject({ decision: 'block', reason: expect.stringMatching(/read-only/) });
    expect(await fixture.decide('shell', { command: `rsync -a --link-dest=${fixture.outside} ./ copy/` })).toMatchObject({ decision: 'block' });
  });

  it('toolgate check says the same, with the reason', async () => {
    expect(await fixture.check('read_file', { path: 'ws/hard-secret.txt' })).toMatchObject({ decision: 'ask' });
    expect(await fixture.check('read_file', { path: 'ws/pipe' })).toMatchObject({ decision: 'block', reason: expect.stringMatching(/FIFO/) });
    expect(await fixture.check('shell', { command: 'cp --link ../outside/secret.txt s' })).toMatchObject({ decision: 'block' });
  });
});
