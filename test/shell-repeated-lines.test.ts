/**
 * The analysis of a command line is kept between decisions
 * (`analyzeCommandOnce`); what the line touches is not. Each case decides a
 * line, changes the filesystem the way an attacker with a foothold would
 * (a file swapped for a symlink out, a hard link or a FIFO, a directory
 * swapped for a symlink before `..`, a git hook planted), and decides the
 * same line again: the second verdict must see the change.
 */
import { execFileSync } from 'node:child_process';
import { linkSync, mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createShellFixture, type ShellFixture } from './shell-fixture.ts';

let fixture: ShellFixture;
let ws: string;
let outside: string;
beforeEach(() => {
  fixture = createShellFixture();
  ws = path.join(fixture.root, 'ws');
  outside = path.join(fixture.root, 'outside');
});
afterEach(() => fixture.remove());

/** Decides `command`, applies `change`, decides it again: both verdicts. */
async function beforeAndAfter(command: string, change: () => void) {
  const before = await fixture.tool.decide({ command });
  change();
  const after = await fixture.tool.decide({ command });
  return { before: before.decision, after: after.decision, reasons: after.reasons.join('\n') };
}

describe('a line decided again is judged on the filesystem as it is now, not as it was', () => {
  it('a file swapped for a symlink to a secret outside every zone', async () => {
    const verdicts = await beforeAndAfter('cat notes.txt', () => {
      rmSync(path.join(ws, 'notes.txt'));
      symlinkSync(path.join(outside, 'secret.txt'), path.join(ws, 'notes.txt'));
    });
    expect(verdicts).toMatchObject({ before: 'allow', after: 'block', reasons: expect.stringContaining('outside every zone') });
  });

  it('a file that gained a hard link outside the zones', async () => {
    const verdicts = await beforeAndAfter('cat a.txt', () => linkSync(path.join(ws, 'a.txt'), path.join(outside, 'a-alias.txt')));
    expect(verdicts).toMatchObject({ before: 'allow', after: 'ask', reasons: expect.stringContaining('2 hard links') });
  });

  it('a file swapped for a FIFO', async () => {
    writeFileSync(path.join(ws, 'p.txt'), 'p\n');
    const verdicts = await beforeAndAfter('cat p.txt', () => {
      rmSync(path.join(ws, 'p.txt'));
      execFileSync('mkfifo', [path.join(ws, 'p.txt')]);
    });
    expect(verdicts).toMatchObject({ before: 'allow', after: 'ask', reasons: expect.stringContaining('FIFO') });
  });

  it('a directory swapped for a symlink out, before ".." (resolved one component at a time)', async () => {
    mkdirSync(path.join(ws, 'sub'));
    writeFileSync(path.join(ws, 'b.txt'), 'b\n');
    const verdicts = await beforeAndAfter('cat sub/../b.txt', () => {
      rmSync(path.join(ws, 'sub'), { recursive: true });
      mkdirSync(path.join(outside, 'deep'));
      writeFileSync(path.join(outside, 'b.txt'), 'secret\n');
      symlinkSync(path.join(outside, 'deep'), path.join(ws, 'sub'));
    });
    expect(verdicts).toMatchObject({ before: 'allow', after: 'block', reasons: expect.stringContaining(path.join(outside, 'b.txt')) });
  });

  it('a parent directory of a plain path swapped for a symlink out', async () => {
    mkdirSync(path.join(ws, 'dir'));
    writeFileSync(path.join(ws, 'dir', 'c.txt'), 'c\n');
    const verdicts = await beforeAndAfter('cat dir/c.txt', () => {
      renameSync(path.join(ws, 'dir'), path.join(ws, 'dir-old'));
      mkdirSync(path.join(outside, 'dir'));
      writeFileSync(path.join(outside, 'dir', 'c.txt'), 'secret\n');
      symlinkSync(path.join(outside, 'dir'), path.join(ws, 'dir'));
    });
    expect(verdicts).toMatchObject({ before: 'allow', after: 'block', reasons: expect.stringContaining('outside every zone') });
  });

  it('a repository with core.fsmonitor planted under an allowed git status', async () => {
    const verdicts = await beforeAndAfter('git status', () => {
      mkdirSync(path.join(ws, '.git', 'objects'), { recursive: true });
      mkdirSync(path.join(ws, '.git', 'refs'));
      writeFileSync(path.join(ws, '.git', 'HEAD'), 'ref: refs/heads/main\n');
      writeFileSync(path.join(ws, '.git', 'config'), '[core]\n\tfsmonitor = ./evil.sh\n');
    });
    expect(verdicts).toMatchObject({ before: 'allow', after: 'ask', reasons: expect.stringContaining('core.fsmonitor') });
  });
});
