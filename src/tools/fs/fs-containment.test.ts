/**
 * The adversarial suite: every known way out of a zone, through the real
 * gate and the real filesystem. Each case asserts the verdict, that a
 * direct `execute` (skipping the gate) refuses too, and that nothing outside
 * the zones, or inside the project, was changed.
 */
import { existsSync, mkdirSync, renameSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CONTEXT, createFsFixture, fingerprintTree, type FsFixture } from '../../../test/fs-fixture.ts';

let fixture: FsFixture;

beforeEach(() => {
  fixture = createFsFixture();
  const ws = path.join(fixture.project, 'ws');
  const link = (target: string, at: string) => symlinkSync(target, path.join(fixture.project, at));
  link(fixture.outside, 'ws/link-out');
  link('../../outside', 'ws/link-rel');
  link(path.join(fixture.outside, 'secret.txt'), 'ws/secret-link');
  link(path.join(fixture.outside, 'created.txt'), 'ws/dangle');
  link('missing-inside.txt', 'ws/dangle-in');
  link('chain2', 'ws/chain1');
  link('chain3', 'ws/chain2');
  link(fixture.outside, 'ws/chain3');
  link('inner2', 'ws/inner1');
  link('notes.txt', 'ws/inner2');
  link('loop2', 'ws/loop1');
  link('loop1', 'ws/loop2');
  link('../ws-evil', 'ws/evil-link');
  link('../docs', 'ws/docs-link');
  link('..', 'ws/up');
  link('script.sh', 'notes/link.txt');
  fixture.write('ws/evil\u202etxt.sh', 'echo pwned\n');
  link('evil\u202etxt.sh', 'ws/tidy.txt');
  expect(existsSync(path.join(ws, 'link-out', 'secret.txt'))).toBe(true);
});

afterEach(() => fixture.cleanup());

interface BlockedCase {
  tool: string;
  args: Record<string, unknown> | null | string;
  reason: RegExp;
}

/** Verdict block, direct execute refuses, and nothing anywhere changed. */
async function expectBlocked(testCase: BlockedCase): Promise<void> {
  const outsideBefore = fixture.outsideState();
  const projectBefore = fingerprintTree(fixture.project);
  const verdict = await fixture.gate.evaluate({ tool: testCase.tool, args: testCase.args, callId: 'c1' }, CONTEXT);
  expect(verdict.kind, `verdict for ${JSON.stringify(testCase.args)}`).toBe('block');
  expect(verdict.reason).toMatch(testCase.reason);
  const { authorization } = await fixture.run(testCase.tool, testCase.args);
  expect(authorization.decision).toBe('block');
  await expect(fixture.tool(testCase.tool).execute(testCase.args as never)).rejects.toBeInstanceOf(Error);
  expect(fixture.asked).toHaveLength(0);
  expect(fixture.outsideState()).toBe(outsideBefore);
  expect(fingerprintTree(fixture.project)).toBe(projectBefore);
}

/** Test names that show the arguments, NUL bytes included. */
function labelled(cases: BlockedCase[]): (BlockedCase & { label: string })[] {
  return cases.map((testCase) => ({ ...testCase, label: `${testCase.tool} ${JSON.stringify(testCase.args)}` }));
}

const OUTSIDE = /outside every zone/;
const ESCAPES = /escapes zone workspace via symlink/;
const DECEPTIVE = /contains a control, invisible or text-direction character/;

describe('reads that leave the zones are blocked', () => {
  const cases: BlockedCase[] = [
    { tool: 'read_file', args: { path: '../outside/secret.txt' }, reason: OUTSIDE },
    { tool: 'read_file', args: { path: 'ws/../../outside/secret.txt' }, reason: OUTSIDE },
    { tool: 'read_file', args: { path: 'ws/sub/../../../outside/secret.txt' }, reason: OUTSIDE },
    { tool: 'read_file', args: { path: '/etc/passwd' }, reason: OUTSIDE },
    { tool: 'read_file', args: { path: 'ws/link-out/secret.txt' }, reason: /escapes zone workspace via symlink ws\/link-out → \/.*outside/ },
    { tool: 'read_file', args: { path: 'ws/link-rel/nested/key.pem' }, reason: /via symlink ws\/link-rel → \/.*\/outside;/ },
    { tool: 'read_file', args: { path: 'ws/secret-link' }, reason: /via symlink ws\/secret-link → \/.*secret\.txt/ },
    { tool: 'read_file', args: { path: 'ws/chain1/secret.txt' }, reason: /via symlink ws\/chain1 → ws\/chain2 → ws\/chain3 → \/.*outside/ },
    { tool: 'read_file', args: { path: 'ws/loop1' }, reason: /symlink loop/ },
    { tool: 'read_file', args: { path: 'ws-evil/payload.txt' }, reason: OUTSIDE },
    { tool: 'read_file', args: { path: './ws-evil/../ws-evil/payload.txt' }, reason: OUTSIDE },
    { tool: 'read_file', args: { path: 'ws/evil-link/payload.txt' }, reason: /via symlink ws\/evil-link → ws-evil/ },
    { tool: 'read_file', args: { path: 'ws/up/ws-evil/payload.txt' }, reason: /via symlink ws\/up → \./ },
    // ".." after a symlink is applied to the link's target, as the kernel does.
    { tool: 'read_file', args: { path: 'ws/link-out/../outside/secret.txt' }, reason: ESCAPES },
    { tool: 'read_file', args: { path: 'wѕ/notes.txt' }, reason: OUTSIDE }, // Cyrillic "ѕ"
    { tool: 'read_file', args: { path: 'ws\u200b/notes.txt' }, reason: DECEPTIVE }, // zero-width space
    { tool: 'read_file', args: { path: 'ws/notes\u202etxt.sh' }, reason: DECEPTIVE }, // right-to-left override
    { tool: 'read_file', args: { path: 'ws/notes.txt\nApproved: yes' }, reason: DECEPTIVE },
    { tool: 'read_file', args: { path: 'ws/\u001b[2Jnotes.txt' }, reason: DECEPTIVE },
    { tool: 'read_file', args: { path: 'ws/notes.txt\u0000' }, reason: /NUL byte/ },
    { tool: 'read_file', args: { path: '~/.ssh/id_rsa' }, reason: /starts with "~"/ },
    { tool: 'read_file', args: { path: '~root/.bashrc' }, reason: /starts with "~"/ },
    { tool: 'read_file', args: { path: '' }, reason: /invalid arguments/ },
    { tool: 'list_dir', args: { path: 'ws/link-out' }, reason: ESCAPES },
    { tool: 'list_dir', args: { path: '..' }, reason: OUTSIDE },
    { tool: 'list_dir', args: { path: '/' }, reason: OUTSIDE },
    { tool: 'list_dir', args: { path: '.' }, reason: OUTSIDE },
    { tool: 'list_dir', args: { path: 'ws/chain1' }, reason: ESCAPES },
  ];
  it.each(labelled(cases))('$label', async (testCase) => expectBlocked(testCase));

  it('treats WS/ as a different directory on a case-sensitive filesystem', async () => {
    mkdirSync(path.join(fixture.project, 'WS'));
    fixture.write('WS/notes.txt', 'attacker controlled\n');
    if (existsSync(path.join(fixture.project, 'ws', 'NOTES.TXT'))) return; // case-insensitive filesystem: one directory
    await expectBlocked({ tool: 'read_file', args: { path: 'WS/notes.txt' }, reason: OUTSIDE });
    await expectBlocked({ tool: 'write_file', args: { path: 'WS/notes.txt', content: 'x' }, reason: OUTSIDE });
  });

  it('says which symlink escaped, so the model can act on it', async () => {
    const verdict = await fixture.gate.evaluate({ tool: 'read_file', args: { path: 'ws/link-out/secret.txt' }, callId: 'c' }, CONTEXT);
    expect(verdict.reason).toBe(`"ws/link-out/secret.txt" escapes zone workspace via symlink ws/link-out → ${fixture.outside}; symlinks may not lead out of their zone`);
  });
});

describe('writes that leave the zones or break zone rules are blocked', () => {
  const write = (target: string): BlockedCase['args'] => ({ path: target, content: 'pwned\n' });
  const cases: BlockedCase[] = [
    { tool: 'write_file', args: write('../outside/secret.txt'), reason: OUTSIDE },
    { tool: 'write_file', args: write('../outside/new.txt'), reason: OUTSIDE },
    { tool: 'write_file', args: write('/tmp/toolgate-should-not-exist.txt'), reason: OUTSIDE },
    { tool: 'write_file', args: write('ws/link-out/secret.txt'), reason: ESCAPES },
    { tool: 'write_file', args: write('ws/link-out/new.txt'), reason: ESCAPES },
    { tool: 'write_file', args: write('ws/link-out/new-dir/new.txt'), reason: ESCAPES },
    { tool: 'write_file', args: write('ws/secret-link'), reason: ESCAPES },
    { tool: 'write_file', args: write('ws/dangle'), reason: /dangling symlink ws\/dangle → .*created\.txt/ },
    { tool: 'write_file', args: write('ws/dangle/child.txt'), reason: /dangling symlink/ },
    { tool: 'write_file', args: write('ws/dangle-in'), reason: /dangling symlink/ },
    { tool: 'write_file', args: write('ws/chain1/new.txt'), reason: ESCAPES },
    { tool: 'write_file', args: write('ws/link-out/../outside/new.txt'), reason: ESCAPES },
    { tool: 'write_file', args: write('ws-evil/payload.txt'), reason: OUTSIDE },
    { tool: 'write_file', args: write('ws/evil-link/payload.txt'), reason: ESCAPES },
    { tool: 'write_file', args: write('wѕ/notes.txt'), reason: OUTSIDE },
    { tool: 'write_file', args: write('notes/evil\u202etxt.sh'), reason: DECEPTIVE },
    { tool: 'write_file', args: write('ws/a\rb.txt'), reason: DECEPTIVE },
    { tool: 'write_file', args: write('ws/tidy.txt'), reason: /resolves to "evil\\u202etxt\.sh" in zone workspace, which contains a control/ },
    { tool: 'write_file', args: write('docs/readme.md'), reason: /zone docs, which is read-only/ },
    { tool: 'write_file', args: write('docs/new.md'), reason: /read-only/ },
    { tool: 'write_file', args: write('ws/vendor/lib.js'), reason: /zone vendor, which is read-only/ },
    { tool: 'write_file', args: write('ws/docs-link/readme.md'), reason: /zone docs, which is read-only/ },
    { tool: 'write_file', args: write('ws/up/docs/readme.md'), reason: /zone docs, which is read-only/ },
    { tool: 'write_file', args: write('notes/a.txt/'), reason: /ends with a path separator/ },
    { tool: 'write_file', args: write('notes/a.txt.sh'), reason: /does not end with a suffix zone notes admits/ },
    { tool: 'write_file', args: write('notes/a.txt\u0000.sh'), reason: /NUL byte/ },
    { tool: 'write_file', args: write('notes/link.txt'), reason: /resolves to script\.sh/ },
    { tool: 'write_file', args: write('ws'), reason: /root of zone workspace/ },
    { tool: 'write_file', args: write('ws/'), reason: /root of zone workspace/ },
    { tool: 'write_file', args: write('ws/.'), reason: /root of zone workspace/ },
    { tool: 'write_file', args: write('ws/sub/.'), reason: /names a directory/ },
    { tool: 'write_file', args: write('~/.bashrc'), reason: /starts with "~"/ },
    { tool: 'write_file', args: write('ws/loop1'), reason: /symlink loop/ },
    { tool: 'edit_file', args: { path: 'ws/secret-link', old_string: 'top', new_string: 'no' }, reason: ESCAPES },
    { tool: 'edit_file', args: { path: 'docs/readme.md', old_string: 'Docs', new_string: 'Pwned' }, reason: /read-only/ },
    { tool: 'edit_file', args: { path: 'notes/script.sh', old_string: 'hi', new_string: 'pwned' }, reason: /suffix/ },
  ];
  it.each(labelled(cases))('$label', async (testCase) => expectBlocked(testCase));

  it('never creates the target of a dangling symlink', async () => {
    await fixture.run('write_file', { path: 'ws/dangle', content: 'x' });
    await fixture.tool('write_file').execute({ path: 'ws/dangle', content: 'x' }).catch(() => undefined);
    expect(existsSync(path.join(fixture.outside, 'created.txt'))).toBe(false);
  });
});

describe('deletes and moves that break zone rules are blocked', () => {
  const cases: BlockedCase[] = [
    { tool: 'delete_file', args: { path: 'ws' }, reason: /root of zone workspace/ },
    { tool: 'delete_file', args: { path: 'ws/' }, reason: /root of zone workspace/ },
    { tool: 'delete_file', args: { path: './ws' }, reason: /root of zone workspace/ },
    { tool: 'delete_file', args: { path: 'ws/sub/..' }, reason: /root of zone workspace/ },
    { tool: 'delete_file', args: { path: 'ws/sub-missing/../' }, reason: /does not exist|root of zone/ },
    { tool: 'delete_file', args: { path: 'notes' }, reason: /root of zone notes/ },
    { tool: 'delete_file', args: { path: 'ws/vendor' }, reason: /read-only/ },
    { tool: 'delete_file', args: { path: 'docs/readme.md' }, reason: /read-only/ },
    { tool: 'delete_file', args: { path: 'ws/secret-link' }, reason: ESCAPES },
    { tool: 'delete_file', args: { path: 'ws/link-out/secret.txt' }, reason: ESCAPES },
    { tool: 'delete_file', args: { path: '../outside/secret.txt' }, reason: OUTSIDE },
    { tool: 'delete_file', args: { path: 'ws/dangle' }, reason: /dangling symlink/ },
    { tool: 'delete_file', args: { path: 'archive/old.txt' }, reason: /deleting archive\/old\.txt is blocked: zone archive has approval\.delete: block/ },
    { tool: 'delete_file', args: { path: 'notes/script.sh' }, reason: /suffix/ },
    { tool: 'delete_file', args: { path: 'ws/nothing.txt' }, reason: /does not exist/ },
    { tool: 'move_file', args: { source: 'ws/notes.txt', destination: 'docs/notes.txt' }, reason: /^destination: .*zone docs, which is read-only/ },
    { tool: 'move_file', args: { source: 'docs/readme.md', destination: 'ws/readme.md' }, reason: /^source: .*zone docs, which is read-only/ },
    { tool: 'move_file', args: { source: 'ws/notes.txt', destination: 'ws/vendor/notes.txt' }, reason: /zone vendor, which is read-only/ },
    { tool: 'move_file', args: { source: 'ws/vendor/lib.js', destination: 'ws/lib.js' }, reason: /zone vendor, which is read-only/ },
    { tool: 'move_file', args: { source: 'ws/notes.txt', destination: 'ws/docs-link/notes.txt' }, reason: /zone docs, which is read-only/ },
    { tool: 'move_file', args: { source: 'ws/notes.txt', destination: '../outside/notes.txt' }, reason: /^destination: .*outside every zone/ },
    { tool: 'move_file', args: { source: '../outside/secret.txt', destination: 'ws/secret.txt' }, reason: /^source: .*outside every zone/ },
    { tool: 'move_file', args: { source: 'ws/secret-link', destination: 'ws/stolen.txt' }, reason: /^source: .*escapes/ },
    { tool: 'move_file', args: { source: 'ws/notes.txt', destination: 'ws/link-out/notes.txt' }, reason: /^destination: .*escapes/ },
    { tool: 'move_file', args: { source: 'ws/notes.txt', destination: 'ws/dangle' }, reason: /dangling symlink/ },
    { tool: 'move_file', args: { source: 'ws', destination: 'ws2' }, reason: /root of zone workspace/ },
    { tool: 'move_file', args: { source: 'ws/notes.txt', destination: 'ws' }, reason: /root of zone workspace/ },
    { tool: 'move_file', args: { source: 'ws/notes.txt', destination: 'notes/notes.sh' }, reason: /suffix/ },
    { tool: 'move_file', args: { source: 'notes/todo.txt', destination: 'notes/todo.sh' }, reason: /suffix/ },
    { tool: 'move_file', args: { source: 'notes/todo.txt', destination: 'notes/x.txt\u0000.sh' }, reason: /NUL byte/ },
    { tool: 'move_file', args: { source: 'archive/old.txt', destination: 'ws/old.txt' }, reason: /approval\.delete: block/ },
    { tool: 'move_file', args: { source: 'ws/notes.txt', destination: 'ws/sub/deep.txt' }, reason: /already exists/ },
    { tool: 'move_file', args: { source: 'ws/inner1', destination: 'ws/notes.txt' }, reason: /same file/ },
  ];
  it.each(labelled(cases))('$label', async (testCase) => expectBlocked(testCase));
});

describe('arguments are checked against a strict schema', () => {
  const cases: BlockedCase[] = [
    { tool: 'read_file', args: { path: 'ws/notes.txt', follow_symlinks: true }, reason: /invalid arguments for read_file: .*follow_symlinks/ },
    { tool: 'read_file', args: {}, reason: /invalid arguments for read_file: path/ },
    { tool: 'read_file', args: { path: 42 }, reason: /invalid arguments/ },
    { tool: 'read_file', args: null, reason: /invalid arguments/ },
    { tool: 'read_file', args: 'ws/notes.txt', reason: /invalid arguments/ },
    { tool: 'write_file', args: { path: 'ws/a.txt' }, reason: /invalid arguments for write_file: content/ },
    { tool: 'write_file', args: { path: 'ws/a.txt', content: 'x', mode: 0o777 }, reason: /mode/ },
    { tool: 'edit_file', args: { path: 'ws/notes.txt', old_string: '', new_string: 'x' }, reason: /old_string/ },
    { tool: 'move_file', args: { from: 'ws/notes.txt', to: 'ws/x.txt' }, reason: /invalid arguments/ },
    { tool: 'list_dir', args: { path: 'ws', recursive: true }, reason: /recursive/ },
  ];
  it.each(labelled(cases))('$label', async (testCase) => expectBlocked(testCase));
});

describe('paths swapped between approval and execution are refused', () => {
  it('refuses when the approved file becomes a symlink to a file outside', async () => {
    const target = fixture.write('ws/target.txt', 'original\n');
    const outsideBefore = fixture.outsideState();
    fixture.answer = () => {
      renameSync(target, `${target}.moved`);
      symlinkSync(path.join(fixture.outside, 'secret.txt'), target);
      return { approved: true, scope: 'once' };
    };
    const outcome = await fixture.run('write_file', { path: 'ws/target.txt', content: 'pwned\n' });
    expect(outcome.authorization.decision).toBe('approved');
    expect(outcome.error?.code).toBe('FS_PATH_REJECTED');
    expect(outcome.error?.message).toMatch(/escapes zone workspace via symlink ws\/target\.txt/);
    expect(fixture.outsideState()).toBe(outsideBefore);
  });

  it('refuses when a parent directory becomes a symlink out of the zone', async () => {
    const outsideBefore = fixture.outsideState();
    fixture.answer = () => {
      renameSync(path.join(fixture.project, 'ws/sub'), path.join(fixture.project, 'ws/sub-old'));
      symlinkSync(path.join(fixture.outside, 'nested'), path.join(fixture.project, 'ws/sub'));
      return { approved: true, scope: 'once' };
    };
    const outcome = await fixture.run('write_file', { path: 'ws/sub/key.pem', content: 'pwned\n' });
    expect(outcome.authorization.decision).toBe('approved');
    expect(outcome.error?.code).toBe('FS_PATH_REJECTED');
    expect(fixture.outsideState()).toBe(outsideBefore);
  });

  it('refuses a pre-approved write whose path was swapped after the verdict', async () => {
    const allowing = createFsFixture({ workspaceApproval: { write: 'allow', delete: 'allow' } });
    try {
      const verdict = await allowing.gate.evaluate({ tool: 'delete_file', args: { path: 'ws/notes.txt' }, callId: 'c' }, CONTEXT);
      expect(verdict.kind).toBe('allow');
      const notes = path.join(allowing.project, 'ws/notes.txt');
      renameSync(notes, `${notes}.bak`);
      symlinkSync(path.join(allowing.outside, 'secret.txt'), notes);
      const outsideBefore = allowing.outsideState();
      await expect(allowing.tool('delete_file').execute({ path: 'ws/notes.txt' })).rejects.toMatchObject({ code: 'FS_PATH_REJECTED' });
      await expect(allowing.tool('write_file').execute({ path: 'ws/notes.txt', content: 'x' })).rejects.toMatchObject({ code: 'FS_PATH_REJECTED' });
      expect(allowing.outsideState()).toBe(outsideBefore);
    } finally {
      allowing.cleanup();
    }
  });

  it('refuses a move whose destination was swapped for a symlink out of the zone', async () => {
    const outsideBefore = fixture.outsideState();
    fixture.answer = () => {
      symlinkSync(fixture.outside, path.join(fixture.project, 'ws/drop'));
      return { approved: true, scope: 'once' };
    };
    const outcome = await fixture.run('move_file', { source: 'ws/notes.txt', destination: 'ws/drop/notes.txt' });
    expect(outcome.authorization.decision).toBe('approved');
    expect(outcome.error?.code).toBe('FS_PATH_REJECTED');
    expect(fixture.outsideState()).toBe(outsideBefore);
    expect(fixture.read('ws/notes.txt')).toBe('line one\nline two\nline three\n');
  });
});
